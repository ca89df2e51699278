// Fault: the worker process (`node src/cli.ts worker`, a real child process) is SIGKILLed while ~40
// jobs are in flight (upstream latency injected so they are mid-call, some mid-write). No drain, no
// lock release, pending batched writes lost.
// Asserts: a second worker picks the dead worker's jobs up (BullMQ stalled-job recovery), every account
// ends enriched with the right buyer and fields, and no signal has two notes on its company.
// Note: the product's worker uses BullMQ's default lockDuration / stalledInterval (30 s each), so the
// stalled jobs come back only after 30–60 s; this test therefore takes ~45–75 s.
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SandboxBuyer } from '../../emulators/buyer-intel/data/types.ts';
import type { RunningBuyerIntelSandbox } from '../../emulators/buyer-intel/server.ts';
import { type RunningHubSpotSandbox, startHubSpotSandbox } from '../../emulators/hubspot/server.ts';
import { sandboxSettings } from '../../emulators/settings.ts';
import { enrichJobOptions, jobIdOf } from '../../queues/enrich-queue.ts';
import { DEFAULT_MAPPING } from '../../src/map/default-mapping.ts';
import { fieldDefinitions, PROVENANCE_FIELDS as P } from '../../src/map/field-definitions.ts';
import type { Service } from '../../src/service/runtime.ts';
import { startSandbox } from '../helpers/buyer-intel-sandbox.ts';
import { testPrefix } from '../helpers/redis.ts';
import {
  CLI,
  cliEnv,
  companyFor,
  distinctBuyers,
  duplicates,
  noteKeysOf,
  REDIS_URL,
  untilStarted,
  waitFor,
} from '../helpers/reliability-env.ts';
import { closeService, createTestService } from '../helpers/service.ts';
import { concurrentDatabase, type TestDatabase } from '../helpers/test-database.ts';

const prefix = testPrefix('test-rel-kill');
const POPULATION = DEFAULT_MAPPING.fields.find((f) => f.attribute === 'Population')?.property ?? '';
const ACCOUNTS = 40;

let bi: RunningBuyerIntelSandbox;
let hs: RunningHubSpotSandbox;
/** In this process: the queue, field setup, and (after the kill) the replacement worker. */
let service: Service;
let child: ChildProcessWithoutNullStreams | undefined;
/**
 * A `worker` process needs a shared database (DATABASE_URL): on a PostgreSQL the child and this
 * process's replacement worker share one. Without it the child is `start` on its own embedded database
 * instead: the same worker, killed the same way.
 */
let database: TestDatabase & { shared: boolean };

beforeAll(async () => {
  [bi, hs] = await Promise.all([startSandbox(), startHubSpotSandbox({ rateLimits: false })]);
  database = await concurrentDatabase();
  service = await createTestService({
    database: database.settings,
    ...sandboxSettings(
      { buyerIntel: bi, hubspot: hs },
      { redisUrl: REDIS_URL, prefix },
      {
        buyerIntel: { ratePerSecond: 500, burst: 500, maxRetryAfterMs: 100 },
        signals: { period: 'LastTwoYears', maxNotesPerRun: 50 },
        worker: { concurrency: 10, writeBatchWaitMs: 50 },
      },
    ),
  });
  await service.connector('hubspot', String(hs.portalId)).ensureFields(fieldDefinitions(DEFAULT_MAPPING));
});

afterAll(async () => {
  if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  await closeService(service, REDIS_URL, prefix);
  await Promise.all([bi?.close(), hs?.close()]);
});

function spawnWorker(): Promise<ChildProcessWithoutNullStreams> {
  const proc = spawn(process.execPath, [CLI, database.shared ? 'worker' : 'start'], {
    env: cliEnv(bi, hs, prefix, {
      ...database.env,
      LOG_LEVEL: 'info',
      WORKER_CONCURRENCY: '10',
      WRITE_BATCH_WAIT_MS: '50',
      SIGNALS_PERIOD: 'LastTwoYears',
      SIGNALS_MAX_NOTES_PER_RUN: '50',
    }),
  });
  return untilStarted(proc);
}

describe('a worker killed mid-jobs', () => {
  it('loses no account and writes no note twice once another worker takes over', async () => {
    const buyers = distinctBuyers(bi, ACCOUNTS);
    const accounts = new Map<string, SandboxBuyer>();
    for (const b of buyers) accounts.set(hs.store.createCompany(companyFor(b), { source: 'CRM_UI' }).id, b);

    // Slow upstreams: every call waits, so jobs are mid-call (and some mid-write) when the kill lands.
    bi.faults.settings.latencyMs = 150;
    hs.faults.settings.latencyMs = 60;

    child = await spawnWorker();
    const tenant = String(hs.portalId);
    await service.queue.addBulk(
      [...accounts.keys()].map((accountId) => ({
        name: 'enrich' as const,
        data: { crm: 'hubspot' as const, tenant, accountId, trigger: 'cli' as const },
        opts: enrichJobOptions('cli', 5, jobIdOf('rel-kill', accountId)),
      })),
    );

    // Kill once some work is done and some is in flight (notes are being written).
    await waitFor(
      'some jobs done and others active',
      async () => {
        const c = await service.queue.getJobCounts('completed', 'active');
        return (c.completed ?? 0) >= 3 && (c.active ?? 0) >= 3;
      },
      30_000,
      20,
    );
    const proc = child;
    const exited = new Promise<NodeJS.Signals | null>((r) => proc.once('exit', (_code, signal) => r(signal)));
    proc.kill('SIGKILL');
    expect(await exited).toBe('SIGKILL');
    const atKill = await service.queue.getJobCounts('completed', 'active', 'wait', 'prioritized');
    expect(atKill.active ?? 0).toBeGreaterThan(0);

    bi.faults.settings.latencyMs = 0;
    hs.faults.settings.latencyMs = 0;
    // The replacement worker (in this process, the same code as `worker`).
    service.startWorker();

    await waitFor(
      `all ${ACCOUNTS} jobs completed`,
      async () => (await service.queue.getJobCounts('completed')).completed === ACCOUNTS,
      100_000,
      250,
    );
    expect(await service.queue.getJobCounts('failed')).toEqual({ failed: 0 });

    let totalNotes = 0;
    for (const [id, buyer] of accounts) {
      const company = hs.store.get('companies', id);
      const label = `${buyer.name} (${id})`;
      expect(company?.values.get(P.status), label).toBe('enriched');
      expect(company?.values.get(P.buyerId), label).toBe(buyer.id);
      expect(company?.values.get(POPULATION), label).toBe(
        String(bi.dataset.attributesOf(buyer.id)?.Population),
      );
      const keys = noteKeysOf(hs, id);
      expect(duplicates(keys), `duplicate notes on ${label}`).toEqual([]);
      totalNotes += keys.length;
    }
    expect(totalNotes).toBeGreaterThan(0);
  }, 150_000);
});
