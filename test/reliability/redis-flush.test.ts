// Fault: Redis loses everything (FLUSHALL: a Redis without persistence restarted, a failover that lost
// its data) while the service runs. Redis is a private redis-server started by this test on its own
// port, never the shared one. What a customer relies on is in the database, so after the flush:
// every tenant is still connected, every review decision is still there, a digest already delivered this
// period is not delivered again and its account is still walked (the index of matched accounts is
// rebuilt from the outcomes), and a new webhook is enriched. Queued jobs are what Redis may lose
// (BullMQ keeps them only in Redis); none is queued at the flush. The schedules are in Redis too: the
// running worker declares them again by itself (no restart), and a pending history row written after
// the flush is settled by the settle-pending sweep they bring back.
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SandboxBuyer } from '../../emulators/buyer-intel/data/types.ts';
import type { RunningBuyerIntelSandbox } from '../../emulators/buyer-intel/server.ts';
import { type RunningHubSpotSandbox, startHubSpotSandbox } from '../../emulators/hubspot/server.ts';
import { type RunningSalesforceSandbox, startSalesforceSandbox } from '../../emulators/salesforce/server.ts';
import { sandboxSettings } from '../../emulators/settings.ts';
import { createDigestQueue, digestSchedulerId } from '../../queues/digest-queue.ts';
import { FOLLOW_UP_SWEEP_SCHEDULER } from '../../queues/follow-up-sweep.ts';
import { PENDING_SWEEP_JOB, PENDING_SWEEP_SCHEDULE } from '../../queues/maintenance.ts';
import { parseDigestSettings } from '../../src/digest/settings.ts';
import { NO_FOLLOW_UPS } from '../../src/follow-ups/settings.ts';
import { DEFAULT_MAPPING } from '../../src/map/default-mapping.ts';
import { fieldDefinitions, PROVENANCE_FIELDS as P } from '../../src/map/field-definitions.ts';
import type { Service } from '../../src/service/runtime.ts';
import { TokenCipher } from '../../src/tenants/cipher.ts';
import { TenantStore } from '../../src/tenants/store.ts';
import { startSandbox } from '../helpers/buyer-intel-sandbox.ts';
import {
  companyFor,
  creationEvent,
  distinctBuyers,
  freePort,
  noteKeysOf,
  postHubSpotWebhook,
  waitFor,
} from '../helpers/reliability-env.ts';
import { createTestService } from '../helpers/service.ts';

const prefix = `test-rel-flush-${randomUUID().slice(0, 8)}`;
const API_KEY = randomBytes(24).toString('hex');
const cipher = new TokenCipher(randomBytes(32));
let redisServer: ChildProcess | undefined;
let redisUrl: string;
let admin: Redis;
let digestQueue: ReturnType<typeof createDigestQueue>;
let bi: RunningBuyerIntelSandbox;
let hs: RunningHubSpotSandbox;
let sf: RunningSalesforceSandbox;
let service: Service;
let base: string;
let eventId = 1;

async function enrichedByWebhook(id: string): Promise<void> {
  const body = JSON.stringify([creationEvent(hs, id, eventId++)]);
  expect(await postHubSpotWebhook(`${base}/webhooks/hubspot`, hs.clientSecret, body)).toBe(200);
  await waitFor(`${id} enriched`, () => hs.store.get('companies', id)?.values.get(P.status) === 'enriched');
}

beforeAll(async () => {
  const port = await freePort();
  redisUrl = `redis://127.0.0.1:${port}`;
  redisServer = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
    { stdio: 'ignore' },
  );
  admin = new Redis(redisUrl, { maxRetriesPerRequest: null });
  admin.on('error', () => undefined); // until the server listens
  await waitFor('the private redis-server', async () => (await admin.ping().catch(() => '')) === 'PONG');
  digestQueue = createDigestQueue(admin, { prefix });
  [bi, hs, sf] = await Promise.all([
    startSandbox(),
    startHubSpotSandbox({ rateLimits: false }),
    startSalesforceSandbox({}),
  ]);
  const settings = sandboxSettings(
    { buyerIntel: bi, hubspot: hs },
    { redisUrl, prefix },
    { signals: { period: 'LastTwoYears', maxNotesPerRun: 5 }, worker: { writeBatchWaitMs: 20 } },
  );
  service = await createTestService({
    ...settings,
    crms: {
      ...settings.crms,
      salesforce: {
        app: { clientId: sf.clientId, clientSecret: sf.clientSecret, loginUrl: sf.url, apiVersion: '62.0' },
      },
    },
    tenants: { cipher },
    api: { apiKeys: [API_KEY] },
    digest: parseDigestSettings({ perAccount: { pattern: '0 12 * * 1', tz: 'UTC', lookbackDays: 730 } }),
    // No task is made; only the sweep's schedule matters here.
    followUps: { ...NO_FOLLOW_UPS, sweepMinutes: 60 },
  });
  await new TenantStore(async () => (await service.store.open()).tenants, admin, prefix, cipher).put({
    crm: 'salesforce',
    orgId: sf.orgId,
    instanceUrl: sf.url,
    refreshToken: sf.refreshToken,
  });
  await service.loadTenants();
  await service.connector('hubspot', String(hs.portalId)).ensureFields(fieldDefinitions(DEFAULT_MAPPING));
  base = (await service.startHttp(0, '127.0.0.1')).url;
  service.startWorker();
  // As `worker` does at start.
  await service.upsertSchedules();
});

afterAll(async () => {
  // Not bounded: a job whose batched CRM write Redis lost in the flush used to hold the worker's close
  // until the item's 120-s deadline; it now fails at once (src/batch/shared.ts), so close is prompt.
  const closing = Date.now();
  await service?.close();
  expect(Date.now() - closing).toBeLessThan(15_000);
  await digestQueue?.close();
  admin?.disconnect();
  redisServer?.kill('SIGKILL');
  await Promise.all([bi?.close(), hs?.close(), sf?.close()]);
});

describe('Redis loses everything', () => {
  it('loses no tenant, decision or digest, and the service goes on', async () => {
    const buyers = distinctBuyers(bi, 3, 7);
    const company = (i: number) =>
      hs.store.createCompany(companyFor(buyers[i] as SandboxBuyer), { source: 'CRM_UI' }).id;
    const keptId = company(0);
    const rejectedId = company(1);
    await enrichedByWebhook(keptId);
    await enrichedByWebhook(rejectedId);
    const reject = await fetch(`${base}/api/accounts/hubspot/${rejectedId}/reject`, {
      method: 'POST',
      headers: { authorization: `Bearer ${API_KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ reason: 'not this buyer' }),
    });
    expect(reject.status).toBe(202);
    await waitFor(
      'the rejection applied',
      () => hs.store.get('companies', rejectedId)?.values.get(P.status) === 'no_match',
    );
    const digest = await service.digest('per-account');
    expect(digest.counts, JSON.stringify(digest)).toMatchObject({ written: 1 });
    const digestNotes = () => noteKeysOf(hs, keptId).filter((k) => k.startsWith('digest:')).length;
    const notesBefore = digestNotes();
    expect(notesBefore).toBe(1);

    expect(await admin.flushall()).toBe('OK');
    expect(await admin.dbsize()).toBe(0);

    // Tenants: read again from the database, the stored org is still served.
    expect((await service.loadTenants()).loaded).toContain(`salesforce:${sf.orgId.slice(0, 15)}`);
    // Decisions: the person's rejection is still the account's latest decision.
    const { decisions } = await service.store.open();
    const account = { crm: 'hubspot', tenant: String(hs.portalId), accountId: rejectedId };
    expect((await decisions.forAccount(account))[0]).toMatchObject({ action: 'reject' });
    // Digests: the matched account is walked again (index rebuilt) and this period's note is not repeated.
    const again = await service.digest('per-account');
    expect(again.counts).toMatchObject({ written: 0, alreadyWritten: 1 });
    expect(digestNotes()).toBe(notesBefore);
    // And the service goes on: a new account's webhook is enriched.
    const laterId = company(2);
    await enrichedByWebhook(laterId);
  });

  it('declares the schedules again without a restart, and the pending sweep settles a row', async () => {
    const schedulers = async () =>
      [
        ...(await service.maintenanceQueue.getJobSchedulers()).map((s) => s.key),
        ...(await digestQueue.getJobSchedulers()).map((s) => s.key),
      ].sort();
    const expected = [
      digestSchedulerId('per-account'),
      FOLLOW_UP_SWEEP_SCHEDULER,
      PENDING_SWEEP_SCHEDULE.id,
    ].sort();
    const allThere = async () => (await schedulers()).join() === expected.join();
    // Declared at start (and, by now, again after the flush of the test before).
    await waitFor('the schedulers', allThere, 15_000);
    const accountId = hs.store.createCompany(companyFor(distinctBuyers(bi, 1, 11)[0] as SandboxBuyer), {
      source: 'CRM_UI',
    }).id;
    await enrichedByWebhook(accountId);
    const account = { crm: 'hubspot', tenant: String(hs.portalId), accountId };
    const { writes } = await service.store.open();
    // The CRM shows the values a moment before their history rows settle (written ahead as pending,
    // settled on the CRM's answer): on a loaded machine that moment is long enough to be seen.
    await waitFor(
      'the enrichment settled',
      async () => (await writes.pendingOf(account)).fields.length === 0,
    );

    expect(await admin.flushall()).toBe('OK');
    // A write whose CRM answer never reached the store, left pending long enough for the sweep.
    await writes.recordPendingFieldWrites([
      {
        ...account,
        runId: null,
        jobId: null,
        trigger: 'webhook',
        buyerId: null,
        field: P.status,
        attribute: null,
        kind: 'provenance',
        policy: null,
        old: null,
        new: 'enriched',
        decision: 'write',
        result: 'pending',
        error: null,
        at: new Date(Date.now() - 20 * 60_000),
      },
    ]);
    expect((await writes.pendingOf(account)).fields).toHaveLength(1);

    // Well within the 30 s the work may be off, the running worker has them all again.
    await waitFor('the schedulers declared again', allThere, 15_000);
    // Its next slot comes in minutes: the test brings it forward (the scheduler's own job, promoted).
    const next = await waitFor('the next settle-pending job', async () =>
      (await service.maintenanceQueue.getDelayed()).find((j) => j.name === PENDING_SWEEP_JOB),
    );
    await next.promote();
    await waitFor(
      'the pending row settled',
      async () => (await writes.pendingOf(account)).fields.length === 0,
    );
    const { events } = await writes.forAccount(account);
    expect(events.some((e) => e.type === 'field' && e.field === P.status && e.result === 'ok')).toBe(true);
  });
});
