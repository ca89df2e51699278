// Two worker processes' worth of service (each its own Redis connections, batch channels and process
// id, as two `buyer-intel-sync worker` processes would have) enrich 200 companies created in the
// HubSpot emulator: their field writes share CRM batch calls across the two workers.
// @redis-cluster: also runs on a 3-master Redis Cluster (npm run test:cluster).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningBuyerIntelSandbox } from '../../emulators/buyer-intel/server.ts';
import { type RunningHubSpotSandbox, startHubSpotSandbox } from '../../emulators/hubspot/server.ts';
import { sandboxSettings } from '../../emulators/settings.ts';
import type { EnrichResult } from '../../src/enrich/types.ts';
import { DEFAULT_MAPPING } from '../../src/map/default-mapping.ts';
import { fieldDefinitions, PROVENANCE_FIELDS as P } from '../../src/map/field-definitions.ts';
import type { Service } from '../../src/service/runtime.ts';
import { startSandbox } from '../helpers/buyer-intel-sandbox.ts';
import { eventually } from '../helpers/poll.ts';
import { REDIS_URL, testPrefix } from '../helpers/redis.ts';
import { closeService, createTestService } from '../helpers/service.ts';

const prefix = testPrefix('test-e2e-shared');
const ACCOUNTS = 200;
/** Every job of both workers at once, so a batch could hold any account's write. */
const CONCURRENCY = 100;
const UPDATE = 'crm.companies.batchApi.update';

let bi: RunningBuyerIntelSandbox;
let hs: RunningHubSpotSandbox;
let workers: Service[] = [];

beforeAll(async () => {
  bi = await startSandbox();
  hs = await startHubSpotSandbox({ rateLimits: false });
  const settings = () =>
    sandboxSettings(
      { buyerIntel: bi, hubspot: hs },
      { redisUrl: REDIS_URL, prefix },
      {
        buyerIntel: { timeoutMs: 10_000, ratePerSecond: 1_000, burst: 1_000, maxRetryAfterMs: 100 },
        signals: { period: 'LastTwoYears', maxNotesPerRun: 2 },
        worker: { concurrency: CONCURRENCY, writeBatchWaitMs: 0, attempts: 3 },
      },
    );
  workers = [await createTestService(settings()), await createTestService(settings())];
  const [first] = workers;
  if (!first) throw new Error('no service');
  await first.connector('hubspot', String(hs.portalId)).ensureFields(fieldDefinitions(DEFAULT_MAPPING));
  const http = await first.startHttp(0, '127.0.0.1');
  hs.webhooks.configure({ targetUrl: `${http.url}/webhooks/hubspot`, propertyChanges: [] });
}, 60_000);

afterAll(async () => {
  const [first, ...rest] = workers;
  await Promise.all(rest.map((w) => w.close()));
  await closeService(first, REDIS_URL, prefix);
  await Promise.all([bi?.close(), hs?.close()]);
});

describe('two workers share their write batches', () => {
  it('enrich 200 webhook-created companies once each, in far fewer batch calls than accounts', async () => {
    const pool = bi.dataset.buyers.filter((b) => b.name && b.stateCode);
    const seen = new Set<string>();
    const buyers = pool.filter((b) => {
      const key = `${b.name}|${b.stateCode}`;
      if (seen.has(key)) return false;
      seen.add(key);
      return true;
    });
    const step = Math.floor(buyers.length / ACCOUNTS);
    const ids = Array.from({ length: ACCOUNTS }, (_, i) => {
      const b = buyers[i * step];
      if (!b) throw new Error('data set too small');
      return hs.store.createCompany({ name: b.name, state: b.stateCode }, { source: 'CRM_UI' }).id;
    });
    const [a, b] = workers;
    if (!a || !b) throw new Error('two workers');
    // Every job waits in the queue before either worker starts: both take work from the first moment.
    await eventually(
      async () => {
        const counts = await a.queue.getJobCounts('waiting', 'prioritized');
        return (counts.waiting ?? 0) + (counts.prioritized ?? 0) === ACCOUNTS;
      },
      'the webhooks',
      { timeoutMs: 30_000, intervalMs: 100 },
    );
    hs.stats.reset();
    // HubSpot answers batch updates slowly (as under load): writes that arrive meanwhile wait together.
    hs.faults.inject({ kind: 'delay', ms: 2_000, match: UPDATE, times: ACCOUNTS });
    a.startWorker();
    b.startWorker();
    await eventually(
      async () => {
        const counts = await a.queue.getJobCounts('completed', 'failed');
        return (counts.completed ?? 0) + (counts.failed ?? 0) >= ACCOUNTS;
      },
      'every job',
      { timeoutMs: 120_000, intervalMs: 100 },
    );
    hs.faults.clear();

    // (An attempt may fail on the way, e.g. a connection reset under 200 concurrent requests: retried.)
    expect((await a.queue.getJobs(['failed'])).map((j) => j.failedReason)).toEqual([]);
    const jobs = await a.queue.getJobs(['completed']);
    // Enriched once each: one completed job per account, and its status on the company.
    const byAccount = new Map<string, EnrichResult[]>();
    for (const j of jobs) {
      const id = j.data.accountId ?? 'a chunk (no webhook job is one)';
      byAccount.set(id, [...(byAccount.get(id) ?? []), j.returnvalue]);
    }
    expect([...byAccount.keys()].sort()).toEqual([...ids].sort());
    expect([...byAccount.values()].every((r) => r.length === 1)).toBe(true);
    for (const id of ids) {
      const [result] = byAccount.get(id) ?? [];
      const company = hs.store.getCompany(id);
      expect(company?.values.get(P.status), id).toBe(result?.status);
      // No duplicate notes: the notes on the company are the job's, each once.
      const notes = hs.store.notesOf(id);
      expect(notes.length).toBe(result?.notes.created.length);
      expect(new Set(notes.map((n) => n.values.get('hs_note_body'))).size).toBe(notes.length);
    }
    const statuses = [...byAccount.values()].map(([r]) => r?.status);
    expect(statuses.filter((s) => s === 'enriched').length).toBeGreaterThan(ACCOUNTS / 2);

    // Each account's fields are at least one write and a batch call takes up to 100, so the fewest
    // calls are ceil(200/100) = 2. While a call is in flight (2 s here) every write of both workers
    // that arrives waits for it and leaves with the next, so calls follow the slow CRM, not the
    // accounts: at most one call per 10 accounts (20), which batches closed per worker on a short
    // timer, or of one worker's jobs as they trickle in, would exceed (they make a call per worker
    // per window). Observed: about 10 on a loaded 2-core machine.
    const calls = hs.stats.count(UPDATE);
    console.log(`shared batches e2e: ${calls} company batch-update calls for ${ACCOUNTS} accounts`);
    expect(calls).toBeGreaterThanOrEqual(2);
    expect(calls).toBeLessThanOrEqual(ACCOUNTS / 10);
  }, 180_000);
});
