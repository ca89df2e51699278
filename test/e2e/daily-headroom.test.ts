// The daily allocation through the whole service, over real HTTP, real Redis and the emulators with a
// small daily limit: the customer's other integration spends the allocation down past the headroom →
// the next answer our worker gets says so → backfill jobs for that tenant are delayed (not failed, no
// attempt spent; a chunk whole) while webhook jobs still run; /metrics shows the gauges and `doctor`
// the WARN line.
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readBudget } from '../../connectors/limits.ts';
import type { RunningBuyerIntelSandbox } from '../../emulators/buyer-intel/server.ts';
import { type RunningHubSpotSandbox, startHubSpotSandbox } from '../../emulators/hubspot/server.ts';
import { type RunningSalesforceSandbox, startSalesforceSandbox } from '../../emulators/salesforce/server.ts';
import { sandboxSettings } from '../../emulators/settings.ts';
import { chunkJobIdOf, type EnrichTrigger, enrichJobOptions, jobIdOf } from '../../queues/enrich-queue.ts';
import { readBackfillPause } from '../../src/backfill/daily-headroom.ts';
import { DEFAULT_MAPPING } from '../../src/map/default-mapping.ts';
import { fieldDefinitions } from '../../src/map/field-definitions.ts';
import type { Service } from '../../src/service/runtime.ts';
import { startSandbox } from '../helpers/buyer-intel-sandbox.ts';
import { runCli, sandboxCliEnv } from '../helpers/cli.ts';
import { eventually } from '../helpers/poll.ts';
import { closeService, completedJob, createTestService } from '../helpers/service.ts';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const run = randomUUID().slice(0, 8);
const DAILY = 400;
const HEADROOM = 0.5;
// Generous bounds: other suites share the machine's two cores.
const JOB_MS = 60_000;
const TEST_MS = 180_000;

let bi: RunningBuyerIntelSandbox;
let redis: Redis;
beforeAll(async () => {
  bi = await startSandbox();
  redis = new Redis(REDIS_URL);
});
afterAll(async () => {
  await bi?.close();
  redis?.disconnect();
});

/** /metrics answers only a bearer of this token (or on its own listener). */
const METRICS_TOKEN = 'metrics-token-for-the-headroom-test';

function serviceFor(endpoints: Parameters<typeof sandboxSettings>[0], prefix: string): Promise<Service> {
  return createTestService({
    ...sandboxSettings(
      endpoints,
      { redisUrl: REDIS_URL, prefix },
      {
        signals: { maxNotesPerRun: 0 },
        worker: { concurrency: 4, writeBatchWaitMs: 20, crmDailyHeadroom: HEADROOM },
      },
    ),
    security: { metrics: { token: METRICS_TOKEN }, apiDocsPublic: false, inboundAccountWindowMs: 0 },
  });
}

async function enqueue(
  service: Service,
  crm: string,
  tenant: string,
  accountId: string,
  trigger: EnrichTrigger,
) {
  const jobId = jobIdOf(crm, tenant, accountId, trigger, run);
  // As the service queues them: a backfill's account on the backfill queue, the rest on the enrich queue.
  const queue = trigger === 'backfill' ? service.backfillQueue : service.queue;
  await queue.add('enrich', { crm, tenant, accountId, trigger }, enrichJobOptions(trigger, 5, jobId));
  return jobId;
}

/** A backfill chunk of these accounts, as `backfill` queues them. */
async function enqueueChunk(service: Service, crm: string, tenant: string, accountIds: string[]) {
  const jobId = chunkJobIdOf(crm, tenant, accountIds, run);
  await service.backfillQueue.add(
    'enrich',
    { crm, tenant, accountIds, trigger: 'backfill', run },
    enrichJobOptions('backfill', 5, jobId),
  );
  return jobId;
}

/** Bounded poll until the backfill job was moved back to delayed at least once by the gate. */
async function deferredJob(service: Service, jobId: string) {
  const { job, state } = await eventually(
    async () => {
      const job = await service.backfillQueue.getJob(jobId);
      const state = await service.backfillQueue.getJobState(jobId);
      return (job && state === 'delayed') || state === 'completed' || state === 'failed'
        ? { job, state }
        : undefined;
    },
    `job ${jobId} delayed by the gate`,
    { timeoutMs: JOB_MS },
  );
  if (!job || state !== 'delayed') throw new Error(`job ${jobId} ${state}`);
  return job;
}

/** The other integration: plain calls with the same credentials until what is left is `left`. */
async function spendDown(send: () => Promise<Response>, remaining: number, left: number) {
  for (let i = remaining; i > left; i -= 20) {
    const answers = await Promise.all(Array.from({ length: Math.min(20, i - left) }, send));
    expect(answers.every((a) => a.ok)).toBe(true);
  }
}

describe('backfill stops at the daily headroom: HubSpot (private app)', () => {
  const prefix = `test-headroom-hs-${run}`;
  let hs: RunningHubSpotSandbox;
  let service: Service;
  let metricsUrl: string;
  let tenant: string;

  beforeAll(async () => {
    hs = await startHubSpotSandbox({ rateLimits: { tenSecondly: 10_000, daily: DAILY } });
    tenant = String(hs.portalId);
    service = await serviceFor({ buyerIntel: bi, hubspot: hs }, prefix);
    await service.connector('hubspot', tenant).ensureFields(fieldDefinitions(DEFAULT_MAPPING));
    metricsUrl = `${(await service.startHttp(0, '127.0.0.1')).url}/metrics`;
    service.startWorker();
  });
  afterAll(async () => {
    await closeService(service, REDIS_URL, prefix);
    await hs?.close();
  });

  it(
    'delays backfill jobs once usage crosses the headroom, while webhook jobs run',
    async () => {
      const company = (name: string) =>
        hs.store.createCompany({ name, state: 'TX' }, { source: 'CRM_UI' }).id;
      const [first, held, alsoHeld, later] = [
        company('City of Austin'),
        company('Travis County'),
        company('Bastrop County'),
        company('Hays County'),
      ];
      const before = (await readBudget(redis, prefix, 'hubspot', tenant)).daily;
      expect(before).toMatchObject({ limit: DAILY });
      await spendDown(
        () =>
          fetch(`${hs.url}/crm/v3/objects/companies/${first}`, {
            headers: { authorization: `Bearer ${hs.accessToken}` },
          }),
        before?.remaining ?? 0,
        DAILY * HEADROOM - 20,
      );
      // Our next answer tells the service what the other integration spent.
      await completedJob(service, await enqueue(service, 'hubspot', tenant, first, 'webhook'), JOB_MS);
      expect((await readBudget(redis, prefix, 'hubspot', tenant)).daily?.remaining).toBeLessThanOrEqual(
        DAILY * HEADROOM,
      );

      // A chunk of two accounts waits whole, no attempt spent, neither account touched.
      const backfill = await deferredJob(
        service,
        await enqueueChunk(service, 'hubspot', tenant, [held, alsoHeld]),
      );
      expect(backfill.attemptsMade).toBe(0);
      expect(backfill.failedReason ?? '').toBe('');
      expect(hs.store.getCompany(held)?.values.get('buyer_intel_status')).toBeUndefined();
      expect(hs.store.getCompany(alsoHeld)?.values.get('buyer_intel_status')).toBeUndefined();
      expect(await readBackfillPause(redis, prefix, 'hubspot', tenant)).toMatchObject({
        limit: DAILY,
        headroom: HEADROOM,
      });

      await completedJob(service, await enqueue(service, 'hubspot', tenant, later, 'webhook'), JOB_MS);
      expect(await service.backfillQueue.getJobState(backfill.id ?? '')).toBe('delayed');
      expect(hs.stats.count(undefined, 429)).toBe(0);
    },
    TEST_MS,
  );

  it('shows the budget in /metrics', async () => {
    const text = await (
      await fetch(metricsUrl, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } })
    ).text();
    const labels = `{crm="hubspot",tenant="${tenant}"}`;
    expect(text).toContain(`bis_crm_daily_limit${labels} ${DAILY}`);
    expect(text).toMatch(new RegExp(`bis_crm_daily_remaining${labels.replace(/[{}]/g, '\\$&')} \\d+`));
    expect(text).toContain(`bis_crm_window_max${labels} 10000`);
    expect(text).toMatch(/bis_crm_window_remaining\{crm="hubspot",tenant="\d+"\} \d+/);
  });

  it(
    'doctor prints the tenant’s daily line, WARN at the headroom',
    async () => {
      const result = await runCli(['doctor', '--timeout-ms', '5000'], {
        ...sandboxCliEnv(bi, hs),
        REDIS_PREFIX: prefix,
        CRM_DAILY_HEADROOM: String(HEADROOM),
        PGLITE_DIR: 'memory',
      });
      const line = result.stdout.split('\n').find((l) => l.includes(`hubspot ${tenant} daily`));
      expect(line, result.stdout + result.stderr).toMatch(
        new RegExp(
          `^WARN +hubspot ${tenant} daily +\\d+ of ${DAILY} daily calls used, \\d+ left \\(\\d+(\\.\\d)? %; read .*at or below the 50 % headroom`,
        ),
      );
    },
    TEST_MS,
  );
});

describe('backfill stops at the daily headroom: Salesforce (rolling 24 h)', () => {
  const prefix = `test-headroom-sf-${run}`;
  let sf: RunningSalesforceSandbox;
  let service: Service;
  let tenant: string;

  beforeAll(async () => {
    sf = await startSalesforceSandbox({ dailyApiRequests: DAILY });
    tenant = sf.orgId.slice(0, 15);
    service = await serviceFor({ buyerIntel: bi, salesforce: sf }, prefix);
    await service.connector('salesforce', sf.orgId).ensureFields(fieldDefinitions(DEFAULT_MAPPING));
    service.startWorker();
  });
  afterAll(async () => {
    await closeService(service, REDIS_URL, prefix);
    await sf?.close();
  });

  it(
    'delays backfill jobs once usage crosses the headroom, while webhook jobs run',
    async () => {
      const account = (Name: string) => sf.store.create('Account', { Name, BillingState: 'TX' }).id;
      const [first, held, later] = [
        account('City of Austin'),
        account('Travis County'),
        account('Hays County'),
      ];
      // The org's first answer to us (the field check counts no REST call).
      await completedJob(service, await enqueue(service, 'salesforce', tenant, first, 'webhook'), JOB_MS);
      const before = (await readBudget(redis, prefix, 'salesforce', tenant)).daily;
      expect(before).toMatchObject({ limit: DAILY });
      await spendDown(
        () =>
          fetch(
            `${sf.url}/services/data/v62.0/query?q=${encodeURIComponent('SELECT Id FROM Account LIMIT 1')}`,
            {
              headers: { authorization: `Bearer ${sf.accessToken}` },
            },
          ),
        before?.remaining ?? 0,
        DAILY * HEADROOM - 20,
      );
      await completedJob(service, await enqueue(service, 'salesforce', tenant, later, 'webhook'), JOB_MS);
      expect((await readBudget(redis, prefix, 'salesforce', tenant)).daily?.remaining).toBeLessThanOrEqual(
        DAILY * HEADROOM,
      );

      const backfill = await deferredJob(
        service,
        await enqueue(service, 'salesforce', tenant, held, 'backfill'),
      );
      expect(backfill.attemptsMade).toBe(0);
      expect(backfill.failedReason ?? '').toBe('');

      // A webhook job after the pause still runs (a new account's event).
      const newcomer = account('Williamson County');
      await completedJob(service, await enqueue(service, 'salesforce', tenant, newcomer, 'webhook'), JOB_MS);
      expect(await service.backfillQueue.getJobState(backfill.id ?? '')).toBe('delayed');
    },
    TEST_MS,
  );
});
