// A backfill started during a CRM 429 storm completes: the HubSpot emulator answers 30 % of calls 429
// (as HubSpot documents it), and the estimate and the listing wait each one out — the waits are
// counted, not slept — and queue every account once. A listing that fails past its budget on its very
// first page has already recorded its run, and the same command resumes that run.
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningBuyerIntelSandbox } from '../../emulators/buyer-intel/server.ts';
import { type RunningHubSpotSandbox, startHubSpotSandbox } from '../../emulators/hubspot/server.ts';
import { sandboxSettings } from '../../emulators/settings.ts';
import { isChunk } from '../../queues/enrich-queue.ts';
import {
  backfillStateKey,
  estimateBackfill,
  readBackfillState,
  runBackfill,
} from '../../src/backfill/backfill.ts';
import type { Service } from '../../src/service/runtime.ts';
import { startSandbox } from '../helpers/buyer-intel-sandbox.ts';
import { closeService, createTestService } from '../helpers/service.ts';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const prefix = `test-storm-${randomUUID().slice(0, 8)}`;
const COMPANIES = 230;

let bi: RunningBuyerIntelSandbox;
let hs: RunningHubSpotSandbox;
let service: Service;
let redis: Redis;

beforeAll(async () => {
  [bi, hs] = await Promise.all([startSandbox(), startHubSpotSandbox({ faultSeed: 27 })]);
  redis = new Redis(REDIS_URL, { maxRetriesPerRequest: null });
  service = await createTestService(
    sandboxSettings({ buyerIntel: bi, hubspot: hs }, { redisUrl: REDIS_URL, prefix }),
  );
  for (let i = 1; i <= COMPANIES; i++) hs.store.createCompany({ name: `Town ${i}` }, { source: 'CRM_UI' });
}, 60_000);
afterAll(async () => {
  await closeService(service, REDIS_URL, prefix);
  redis?.disconnect();
  await Promise.all([bi?.close(), hs?.close()]);
});

const queuedAccounts = async () =>
  (await service.backfillQueue.getJobs(['prioritized', 'waiting'])).flatMap((j) =>
    isChunk(j.data) ? j.data.accountIds : [j.data.accountId],
  );

describe('backfill listing during a 429 storm', () => {
  it('estimates and queues every account once, waiting out each 429 within the budget', async () => {
    const connector = service.connector('hubspot', String(hs.portalId));
    const waits: number[] = [];
    const patience = {
      sleep: async (ms: number) => {
        waits.push(ms);
      },
    };
    hs.faults.settings.rateLimitRate = 0.3;
    try {
      const estimate = await estimateBackfill(connector, [], undefined, patience);
      expect(estimate.accounts).toBe(COMPANIES);
      const state = await runBackfill({
        connector,
        queue: service.backfillQueue,
        redis,
        prefix,
        filters: [],
        attempts: 1,
        pageSize: 20,
        store: service.store,
        patience,
      });
      expect(state).toMatchObject({ done: true, enqueued: COMPANIES, scanned: COMPANIES });
    } finally {
      hs.faults.settings.rateLimitRate = 0;
    }
    // The storm was real (some calls were refused and waited out) and nothing was queued twice.
    expect(waits.length).toBeGreaterThan(2);
    const accounts = await queuedAccounts();
    expect(accounts).toHaveLength(COMPANIES);
    expect(new Set(accounts).size).toBe(COMPANIES);
    await service.backfillQueue.obliterate({ force: true });
  });

  it('records the run before the first page: a listing stopped there resumes as the same run', async () => {
    const connector = service.connector('hubspot', String(hs.portalId));
    const filters = [{ field: 'name', value: 'Town 7', negate: false }];
    hs.faults.inject({ kind: 'status', status: 429, times: 50 });
    // No budget for waiting: the first 429 ends this attempt.
    const stopped = runBackfill({
      connector,
      queue: service.backfillQueue,
      redis,
      prefix,
      filters,
      attempts: 1,
      store: service.store,
      patience: { maxWaitMs: 0 },
    });
    await expect(stopped).rejects.toMatchObject({ permanent: false });
    hs.faults.clear();
    const saved = await readBackfillState(redis, backfillStateKey(prefix, connector, filters));
    expect(saved).toMatchObject({ done: false, cursor: null, enqueued: 0, storeRunId: expect.any(String) });

    const resumed = await runBackfill({
      connector,
      queue: service.backfillQueue,
      redis,
      prefix,
      filters,
      attempts: 1,
      store: service.store,
    });
    expect(resumed).toMatchObject({ done: true, runId: saved?.runId, storeRunId: saved?.storeRunId });
    const { runs } = await service.store.open();
    const backfills = (await runs.list({ kind: 'backfill', limit: 50 })).runs;
    expect(backfills.filter((r) => r.id === saved?.storeRunId)).toHaveLength(1);
    expect(backfills.find((r) => r.id === saved?.storeRunId)?.finishedAt).toBeInstanceOf(Date);
  });
});
