// The Change Data Capture path end to end, through real HTTP, the real jsforce streaming client and
// real Redis: an Account created in the emulator → its AccountChangeEvent (CREATE) → a job → fields and
// Tasks written; our own writes (UPDATE events) start no new work; a restarted service resumes from
// the replay id kept in Redis and picks up what was created while it was down.
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningBuyerIntelSandbox } from '../../emulators/buyer-intel/server.ts';
import { type RunningSalesforceSandbox, startSalesforceSandbox } from '../../emulators/salesforce/server.ts';
import { sandboxSettings } from '../../emulators/settings.ts';
import { DEFAULT_MAPPING } from '../../src/map/default-mapping.ts';
import { fieldDefinitions } from '../../src/map/field-definitions.ts';
import type { Service, ServiceSettings } from '../../src/service/runtime.ts';
import { startSandbox } from '../helpers/buyer-intel-sandbox.ts';
import { eventually } from '../helpers/poll.ts';
import { closeService, createTestService, finishedJob } from '../helpers/service.ts';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const prefix = `test-e2e-cdc-${randomUUID().slice(0, 8)}`;

let bi: RunningBuyerIntelSandbox;
let sf: RunningSalesforceSandbox;
let settings: ServiceSettings;
let service: Service | undefined;
let redis: Redis;

async function startService(): Promise<Service> {
  const s = await createTestService(settings);
  s.startWorker();
  await s.startChangeEvents();
  return s;
}

beforeAll(async () => {
  redis = new Redis(REDIS_URL);
  bi = await startSandbox();
  sf = await startSalesforceSandbox({ streaming: { connectTimeoutMs: 500 } });
  const base = sandboxSettings(
    { buyerIntel: bi, salesforce: sf },
    { redisUrl: REDIS_URL, prefix },
    { worker: { writeBatchWaitMs: 20 } },
  );
  settings = { ...base, crms: { salesforce: { ...(base.crms.salesforce as object), events: ['cdc'] } } };
  service = await startService();
  await service.connector('salesforce', sf.orgId).ensureFields(fieldDefinitions(DEFAULT_MAPPING));
});
afterAll(async () => {
  redis?.disconnect();
  await closeService(service, REDIS_URL, prefix);
  await Promise.all([bi?.close(), sf?.close()]);
});

const jobsOf = async (s: Service, accountId: string) =>
  (await s.queue.getJobs(['completed', 'failed', 'active', 'waiting', 'prioritized', 'delayed'])).filter(
    (j) => j.data.accountId === accountId,
  );

describe('Salesforce Change Data Capture', () => {
  it('enriches a created Account once; our own writes start nothing new', async () => {
    const id = sf.store.create('Account', { Name: 'City of Austin', BillingState: 'TX' }).id;
    const result = await finishedJob(service as Service, id);
    expect(result.status).toBe('enriched');
    expect(sf.store.list('Task').filter((t) => t.values.get('WhatId') === id).length).toBeGreaterThan(0);
    // Wait until the subscriber has processed every event of this Account, our own UPDATEs included
    // (the replay id it stored has reached the last one): still one job.
    const last = Math.max(
      ...sf.streaming.events
        .filter((e) => e.data.payload.ChangeEventHeader.recordIds.includes(id))
        .map((e) => e.replayId),
    );
    expect(
      sf.streaming.events.some(
        (e) => e.replayId === last && e.data.payload.ChangeEventHeader.changeType === 'UPDATE',
      ),
    ).toBe(true);
    const stored = async () => Number(await redis.get(`${prefix}:cdc:${sf.orgId.slice(0, 15)}:replay`));
    await eventually(async () => (await stored()) >= last, 'the replay id stored', { timeoutMs: 30_000 });
    expect(await jobsOf(service as Service, id)).toHaveLength(1);
  }, 60_000);

  it('resumes from the stored replay id after a restart and enriches what was created meanwhile', async () => {
    await service?.close();
    const meanwhile = sf.store.create('Account', { Name: 'Travis County', BillingState: 'TX' }).id;
    service = await startService();
    const result = await finishedJob(service, meanwhile);
    expect(result.status).toBe('enriched');
    expect(await jobsOf(service, meanwhile)).toHaveLength(1);
  });

  it('keeps listening after the session expires (re-authenticates and resubscribes)', async () => {
    sf.auth.expire();
    const later = sf.store.create('Account', {
      Name: 'Austin Independent School District',
      BillingState: 'TX',
    }).id;
    const result = await finishedJob(service as Service, later, 30_000);
    expect(result.status).toBe('enriched');
  });
});
