// How far a backfill is, as its user follows it (issue 42): each account counts once its outcome is
// recorded, not when its 100-account chunk's job ends, and the API's run shows the same number; the
// provider's throttling is said; `--wait --timeout` gives up only when nothing moves for that long.
// A worker in this process on the emulators (slowed by their latency knobs), real Redis and PostgreSQL;
// the CLI through its own `main` in this process too (runCliInProcess), on the same Redis and database.
import { randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CrmConnector } from '../../connectors/types.ts';
import { isChunk } from '../../queues/enrich-queue.ts';
import { runBackfill } from '../../src/backfill/backfill.ts';
import { describeThrottle, runProgressReader } from '../../src/backfill/run-progress.ts';
import { sharedRate } from '../../src/buyer-intel/shared-rate.ts';
import { runCliInProcess, sandboxCliEnv } from '../helpers/cli.ts';
import { itWithPostgres } from '../helpers/databases.ts';
import { eventually } from '../helpers/poll.ts';
import { deleteKeysOf, testRedis } from '../helpers/redis.ts';
import { startTestService, type TestService } from '../helpers/start-service.ts';
import { concurrentDatabase, type TestDatabase } from '../helpers/test-database.ts';

const API_KEY = `key-${randomBytes(16).toString('hex')}`;
/** The configured Buyer Intelligence rate of the workers (emulators/settings.ts) and of the CLI. */
const RATE = 50;

let t: TestService;
let redis: Redis;
let connector: CrmConnector;
let database: TestDatabase;
/** A prefix no worker serves: a run queued there never moves. */
let idle: string;

beforeAll(async () => {
  database = await concurrentDatabase();
  t = await startTestService({
    name: 'run-progress',
    without: ['salesforce'],
    fields: true,
    startWorker: true,
    settings: (s) => ({ ...s, database: database.settings, api: { apiKeys: [API_KEY] } }),
  });
  redis = testRedis();
  connector = t.service.connector('hubspot', String(t.hs.portalId));
  idle = `${t.prefix}-idle`;
}, 60_000);
afterAll(async () => {
  await t?.close();
  await deleteKeysOf(redis, idle);
  redis?.disconnect();
});

/** `n` companies in a city of their own, so that a backfill filtered on it takes them alone. */
function companies(city: string, n: number): void {
  for (let i = 1; i <= n; i++)
    t.hs.store.createCompany(
      { name: `${city} Town ${i}`, city, state: i % 2 ? 'TX' : 'OH' },
      { source: 'CRM_UI' },
    );
}

const inCity = (city: string) => [{ field: 'city', negate: false, value: city }];

const cli = (args: string[], prefix: string) =>
  runCliInProcess(args, {
    REDIS_PREFIX: prefix,
    BUYER_INTEL_RATE_PER_SECOND: String(RATE),
    ...database.env,
    ...sandboxCliEnv(t.bi, t.hs),
  });

/** GET /api/runs/:id's count of the run's accounts. */
async function apiAccounts(runId: string): Promise<number> {
  const res = await fetch(`${t.base}/api/runs/${runId}`, { headers: { authorization: `Bearer ${API_KEY}` } });
  expect(res.status).toBe(200);
  return ((await res.json()) as { accounts: number }).accounts;
}

/** Every count a set of finished chunks can make: what a count of finished jobs could show. */
function chunkSums(sizes: number[]): Set<number> {
  let sums = new Set([0]);
  for (const size of sizes) sums = new Set([...sums, ...[...sums].map((s) => s + size)]);
  return sums;
}

describe('a backfill’s progress', () => {
  it('counts each account as its outcome is recorded, between chunk boundaries, as the API’s run does', async () => {
    const accounts = 150; // a chunk of 100 and one of 50: readings between them are no chunk sum
    companies('Progress Per Account', accounts);
    t.bi.faults.settings.latencyMs = 40; // a run of some seconds, read many times on its way
    try {
      const state = await runBackfill({
        connector,
        queue: t.service.backfillQueue,
        redis,
        prefix: t.prefix,
        filters: inCity('Progress Per Account'),
        attempts: 1,
        store: t.service.store,
        expected: accounts,
      });
      const storeRunId = state.storeRunId ?? '';
      const reader = runProgressReader({
        store: t.service.store,
        queue: t.service.backfillQueue,
        redis,
        prefix: t.prefix,
        connector,
        run: { runId: state.runId, storeRunId, startedAt: state.startedAt },
        provider: { token: t.bi.token, ratePerSecond: RATE },
      });
      // Each reading between two of the API's: the workers record outcomes meanwhile, never fewer.
      const readings: { before: number; read: number; after: number }[] = [];
      await eventually(
        async () => {
          const before = await apiAccounts(storeRunId);
          const { outcomes } = await reader.read();
          readings.push({ before, read: outcomes.finished, after: await apiAccounts(storeRunId) });
          return outcomes.finished === accounts;
        },
        'every account of the run finished',
        // Generous: on the embedded database (one session) the run and these readings share it.
        { timeoutMs: 240_000, intervalMs: 100 },
      );
      // The run's jobs, once all of them finished (none moves between BullMQ's lists any more).
      const sizes = await eventually(async () => {
        const jobs = (await t.service.backfillQueue.getJobs(['completed'])).filter(
          (j) => j.data.runId === storeRunId,
        );
        const sizes = jobs.map((j) => (isChunk(j.data) ? j.data.accountIds.length : 1));
        return sizes.reduce((a, b) => a + b, 0) === accounts ? sizes : undefined;
      }, 'every job of the run completed');
      expect(Math.max(...sizes)).toBe(100);
      for (const r of readings) {
        expect(r.read).toBeGreaterThanOrEqual(r.before);
        expect(r.read).toBeLessThanOrEqual(r.after);
      }
      // Some reading showed accounts that no set of whole chunks adds up to.
      const sums = chunkSums(sizes);
      expect(
        readings.filter((r) => !sums.has(r.read)),
        `readings ${readings.map((r) => r.read).join(' ')}`,
      ).not.toEqual([]);
      expect(await apiAccounts(storeRunId)).toBe(accounts);
      // Nothing answered 429: no throttling said.
      expect((await reader.read()).throttledTo).toBeUndefined();
    } finally {
      t.bi.faults.settings.latencyMs = 0;
    }
  }, 300_000);

  itWithPostgres(
    '`--wait --timeout` follows a run that keeps moving however much longer than the timeout it takes',
    async () => {
      const accounts = 40;
      const timeoutS = 6;
      companies('Progress Keeps Moving', accounts);
      // Groups of up to 10 accounts (WORKER_CONCURRENCY) one after another, each a few slow CRM and
      // provider calls: outcomes every second or two (measured: 0.5–1.9 s), the run as a whole longer
      // than the timeout from its first outcome to its last (the assertion below checks it).
      t.hs.faults.settings.latencyMs = 500;
      t.bi.faults.settings.latencyMs = 250;
      // When the workers record the run's first outcome, as `runs show` would count it.
      const { runs } = await t.service.store.open();
      const firstOutcome = eventually(
        async () => {
          const { runs: recent } = await runs.list({ kind: 'backfill', limit: 5 });
          const run = recent.find((r) => r.label.includes('city=Progress Keeps Moving'));
          const counts = run ? await runs.outcomeCounts(run.id) : undefined;
          return counts && Object.values(counts).some((n) => n > 0) ? Date.now() : undefined;
        },
        'a first outcome of the run',
        { timeoutMs: 60_000, intervalMs: 50 },
      );
      firstOutcome.catch(() => undefined); // awaited below; a test failed before it leaves no rejection
      try {
        const run = await cli(
          [
            'backfill',
            '--crm',
            'hubspot',
            '--filter',
            'city=Progress Keeps Moving',
            '--wait',
            '--timeout',
            String(timeoutS),
          ],
          t.prefix,
        );
        const exitedAt = Date.now();
        expect(run.code, `stdout: ${run.stdout}\nstderr: ${run.stderr}`).toBe(0);
        expect(run.stdout).toContain(`Finished ${accounts}:`);
        expect(run.stderr).not.toContain('stopped progressing');
        // The premise, not a speed: the workers took longer than --timeout from their first outcome to
        // the last (the latencies above make it so; a slower machine only makes it longer).
        expect(exitedAt - (await firstOutcome)).toBeGreaterThan(timeoutS * 1000);
      } finally {
        t.hs.faults.settings.latencyMs = 0;
        t.bi.faults.settings.latencyMs = 0;
      }
    },
    120_000,
  );

  itWithPostgres(
    '`--wait --timeout` exits 1 with one line when nothing moves for that long, saying the provider throttles',
    async () => {
      const accounts = 12;
      companies('Progress Stalled', accounts);
      // What a worker does on the provider's 429: the rate every worker uses drops below the configured.
      await sharedRate({
        redis,
        prefix: idle,
        token: t.bi.token,
        ratePerSecond: RATE,
        burst: RATE,
      }).throttled?.(undefined);
      const run = await cli(
        ['backfill', '--crm', 'hubspot', '--filter', 'city=Progress Stalled', '--wait', '--timeout', '2'],
        idle,
      );
      expect(run.code, `stdout: ${run.stdout}\nstderr: ${run.stderr}`).toBe(1);
      expect(run.stdout).toContain(`Queued ${accounts} accounts`);
      const lines = run.stderr.trim().split('\n');
      // The pace climbs back from the cut as the seconds pass: whatever it is then, under the rate.
      const stalled = lines.filter((l) => l.startsWith('buyer-intel-sync backfill:'));
      expect(stalled).toHaveLength(1);
      expect(stalled[0]).toMatch(
        new RegExp(
          `^buyer-intel-sync backfill: stopped progressing: 0 of ${accounts} accounts finished, none for 2 s \\(--timeout\\) \\(provider throttling, (\\d+(\\.\\d)?) req/s\\); the workers go on with the other ${accounts}$`,
        ),
      );
      expect(Number(/throttling, ([\d.]+) req/.exec(stalled[0] ?? '')?.[1])).toBeLessThan(RATE);
      // The progress line says it too.
      expect(lines.filter((l) => l.startsWith('backfill: ')).at(-1)).toMatch(
        new RegExp(
          `^backfill: ${accounts}/${accounts} queued, 0 finished .*, ETA — — provider throttling, \\d+(\\.\\d)? req/s$`,
        ),
      );
    },
    60_000,
  );

  it('says "provider throttling, N req/s" once the provider answers 429 and the shared rate drops', async () => {
    companies('Progress Throttled', 5);
    t.bi.faults.inject({ kind: 'status', status: 429, retryAfterSeconds: 1 });
    const state = await runBackfill({
      connector,
      queue: t.service.backfillQueue,
      redis,
      prefix: t.prefix,
      filters: inCity('Progress Throttled'),
      attempts: 3,
      store: t.service.store,
      expected: 5,
    });
    const reader = runProgressReader({
      store: t.service.store,
      queue: t.service.backfillQueue,
      redis,
      prefix: t.prefix,
      connector,
      run: { runId: state.runId, storeRunId: state.storeRunId ?? '', startedAt: state.startedAt },
      provider: { token: t.bi.token, ratePerSecond: RATE },
    });
    const throttled = await eventually(
      async () => (await reader.read()).throttledTo,
      'the shared rate held down',
      {
        timeoutMs: 30_000,
      },
    );
    expect(throttled).toBeLessThan(RATE);
    // Shown to a tenth: the pace climbs back on a curve, so it is rarely a round number.
    expect(describeThrottle(throttled)).toBe(`provider throttling, ${Math.round(throttled * 10) / 10} req/s`);
    // The run still ends: every account finished once the provider lets us through again.
    await eventually(async () => (await reader.read()).outcomes.finished === 5, 'the run finishing', {
      timeoutMs: 60_000,
    });
  }, 90_000);
});
