// `buyer-intel-sync backfill` as a real process against the HubSpot emulator with 1,000 companies:
// the estimate, a run killed midway (SIGKILL) and resumed, and every account queued exactly once;
// then, with a worker running, --wait following a run until its accounts finished, counted by outcome.
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CrmConnector } from '../../connectors/types.ts';
import type { RunningBuyerIntelSandbox } from '../../emulators/buyer-intel/server.ts';
import { hubspotEmulator } from '../../emulators/hubspot/index.ts';
import { type RunningHubSpotSandbox, startHubSpotSandbox } from '../../emulators/hubspot/server.ts';
import { BACKFILL_QUEUE, isChunk } from '../../queues/enrich-queue.ts';
import {
  type BackfillState,
  backfillStateKey,
  SEARCH_AND_ATTRIBUTE_CALLS_PER_ACCOUNT,
} from '../../src/backfill/backfill.ts';
import { startSandbox } from '../helpers/buyer-intel-sandbox.ts';
import { CLI_PATH as CLI, runCli, sandboxCliEnv } from '../helpers/cli.ts';
import { eventually } from '../helpers/poll.ts';
import { testPrefix } from '../helpers/redis.ts';
import { concurrentDatabase } from '../helpers/test-database.ts';

/** The demo's companies, as a person creates them in HubSpot. */
const DEMO_COMPANIES = hubspotEmulator.demoAccounts;

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const prefix = `test-backfill-${randomUUID().slice(0, 8)}`;
const ACCOUNTS = 1_000;

let bi: RunningBuyerIntelSandbox;
let hs: RunningHubSpotSandbox;
let redis: Redis;
let queue: Queue;
/** The processes of a test run at once (test-database.ts). */
let database: Record<string, string>;

beforeAll(async () => {
  [bi, hs] = await Promise.all([startSandbox(), startHubSpotSandbox({})]);
  for (let i = 1; i <= ACCOUNTS; i++)
    hs.store.createCompany({ name: `Backfill Town ${i}`, state: i % 2 ? 'TX' : 'OH' }, { source: 'CRM_UI' });
  redis = new Redis(REDIS_URL);
  queue = new Queue(BACKFILL_QUEUE, { connection: redis, prefix });
  database = (await concurrentDatabase()).env;
});
afterAll(async () => {
  await queue.obliterate({ force: true }).catch(() => undefined);
  await queue.close();
  const keys = await redis.keys(`${prefix}:*`);
  if (keys.length) await redis.del(...keys);
  await redis.quit();
  await Promise.all([bi.close(), hs.close()]);
});

const env = (redisPrefix = prefix) => ({
  PATH: process.env.PATH ?? '',
  REDIS_URL,
  REDIS_PREFIX: redisPrefix,
  ...database,
  ...sandboxCliEnv(bi, hs),
});

const cli = (args: string[], redisPrefix = prefix) => runCli(args, env(redisPrefix));

const stateKey = () =>
  backfillStateKey(prefix, { kind: 'hubspot', tenant: String(hs.portalId) } as CrmConnector, []);

describe('buyer-intel-sync backfill', () => {
  it('prints the estimate and queues nothing with --dry-run; refuses a bad filter with exit 2', async () => {
    const dry = await cli(['backfill', '--crm', 'hubspot', '--dry-run', '--filter', 'state=TX']);
    expect(dry.code).toBe(0);
    // The estimate names the calls the run spends: the org-wide feed's pages for its signals, fewer
    // than one call per new buyer of 1,250 accounts.
    const said =
      /(\d+) accounts, ~(\d+) Buyer Intelligence calls \(signals: (\d+) pages? of the org-wide feed \(\d+ signals\), re-read each hour the run lasts, instead of ~(\d+) calls, one per new buyer\)/.exec(
        dry.stdout,
      );
    expect(said, dry.stdout).not.toBeNull();
    const [, accounts, calls, pages, perBuyer] = (said ?? []).map(Number);
    expect(accounts).toBe(ACCOUNTS / 2);
    expect(perBuyer).toBe(Math.ceil((ACCOUNTS / 2) * 0.44));
    expect(pages).toBeLessThan(perBuyer ?? 0);
    expect(calls).toBe(Math.ceil((ACCOUNTS / 2) * SEARCH_AND_ATTRIBUTE_CALLS_PER_ACCOUNT) + (pages ?? 0));
    expect(await queue.count()).toBe(0);
    const bad = await cli(['backfill', '--crm', 'hubspot', '--filter', 'state~TX']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--filter');
    const timeout = await cli(['backfill', '--crm', 'hubspot', '--timeout', '5']);
    expect(timeout.code).toBe(2);
    expect(timeout.stderr).toContain('--timeout goes with --wait');
  });

  it('resumes after being killed midway and queues every account exactly once, at backfill priority', async () => {
    hs.faults.settings.latencyMs = 40; // slow pages, so the kill lands midway
    const child = spawn(process.execPath, [CLI, 'backfill', '--crm', 'hubspot'], {
      env: env(),
      stdio: 'ignore',
    });
    const killedAt = await eventually(
      async () => {
        const raw = await redis.get(stateKey());
        const state = raw ? (JSON.parse(raw) as BackfillState) : null;
        return state && state.enqueued >= 500 ? state : undefined;
      },
      '500 accounts queued',
      { timeoutMs: 30_000, intervalMs: 10 },
    );
    child.kill('SIGKILL');
    await new Promise((r) => child.once('exit', r));
    expect(killedAt?.done).toBe(false);
    hs.faults.settings.latencyMs = 0;

    const resumed = await cli(['backfill', '--crm', 'hubspot']);
    expect(resumed.code).toBe(0);
    expect(resumed.stdout).toContain('Resuming backfill');
    expect(resumed.stdout).toContain(`Queued ${ACCOUNTS} accounts`);
    // No worker runs in this test: everything queued, nothing finished, and the user is told why.
    expect(resumed.stdout).toContain('No worker is running on this Redis');
    expect(resumed.stdout).toContain('Finished 0: 0 enriched, 0 needs review, 0 no match, 0 failed.');
    expect(resumed.stdout).toContain(`The workers enrich the other ${ACCOUNTS} at the lowest priority.`);
    // stderr is no terminal here: plain progress lines, the last one with the final counts.
    const progress = resumed.stderr.trim().split('\n');
    expect(progress.every((l) => l.startsWith('backfill: '))).toBe(true);
    expect(progress.at(-1)).toMatch(
      new RegExp(
        `^backfill: ${ACCOUNTS}/${ACCOUNTS} queued, 0 finished \\(0 enriched, 0 needs review, 0 no match, 0 failed\\), \\d+s elapsed, ETA —$`,
      ),
    );

    // Chunks of BACKFILL_ACCOUNTS_PER_JOB (100) accounts, one per page of 100: a page queued again
    // after the kill was the same jobs.
    const jobs = await queue.getJobs(['prioritized', 'waiting']);
    expect(jobs).toHaveLength(ACCOUNTS / 100);
    const ids = jobs.flatMap((j) => (isChunk(j.data) ? j.data.accountIds : [j.data.accountId]));
    expect(ids).toHaveLength(ACCOUNTS);
    expect(new Set(ids).size).toBe(ACCOUNTS);
    expect(new Set(jobs.map((j) => j.opts.priority))).toEqual(new Set([50]));
  }, 60_000);

  it('with --wait, follows the run until a worker finished every account, and counts them as BullMQ does', async () => {
    const waitPrefix = testPrefix('test-backfill-wait');
    const city = 'Backfill Demo';
    for (const c of DEMO_COMPANIES)
      hs.store.createCompany(
        {
          name: c.name,
          city,
          ...(c.state ? { state: c.state } : {}),
          ...(c.website ? { domain: new URL(c.website).hostname } : {}),
        },
        { source: 'CRM_UI' },
      );
    expect((await cli(['setup', '--crm', 'hubspot'], waitPrefix)).code).toBe(0);
    // `start` (HTTP and a worker in one process) runs on the embedded database when there is no server;
    // `worker` alone would need a shared DATABASE_URL.
    const worker = spawn(process.execPath, [CLI, 'start'], {
      env: { ...env(waitPrefix), HOST: '127.0.0.1', PORT: '0' },
      stdio: 'ignore',
    });
    const waitQueue = new Queue(BACKFILL_QUEUE, { connection: redis, prefix: waitPrefix });
    try {
      // Started before the backfill, as an operator would (the command says when none is running).
      await eventually(async () => (await waitQueue.getWorkersCount()) > 0, 'a worker', {
        timeoutMs: 20_000,
        intervalMs: 100,
      });
      const run = await cli(
        ['backfill', '--crm', 'hubspot', '--filter', `city=${city}`, '--wait', '--timeout', '50'],
        waitPrefix,
      );
      expect(run.code, `stdout: ${run.stdout}\nstderr: ${run.stderr}`).toBe(0);
      const n = DEMO_COMPANIES.length;
      expect(run.stdout).toContain(`Queued ${n} accounts`);
      expect(run.stdout).not.toContain('No worker is running');

      // What BullMQ itself holds for the queue, counted independently of the command: the chunk's
      // accounts (and any it handed to a job of its own).
      const finished = await waitQueue.getJobs(['completed', 'failed']);
      const tally = { enriched: 0, needs_review: 0, no_match: 0, failed: 0 };
      let accounts = 0;
      for (const job of finished) {
        type Status = { status?: keyof typeof tally };
        const chunk = job.returnvalue as { accounts?: { result?: Status }[] } | null;
        const results: (Status | null | undefined)[] = chunk?.accounts
          ? chunk.accounts.flatMap((a) => (a.result ? [a.result] : []))
          : [job.returnvalue as Status | null];
        for (const r of results) tally[job.failedReason ? 'failed' : (r?.status ?? 'failed')]++;
        accounts += results.length;
      }
      expect(accounts).toBe(n);
      // The demo's names end in every outcome but failure.
      expect(tally.enriched).toBeGreaterThan(0);
      expect(tally.needs_review).toBeGreaterThan(0);
      expect(tally.no_match).toBeGreaterThan(0);
      const counts = `${tally.enriched} enriched, ${tally.needs_review} needs review, ${tally.no_match} no match, ${tally.failed} failed`;
      expect(run.stdout).toContain(`Finished ${n}: ${counts}.`);
      expect(run.stderr.trim().split('\n').at(-1)).toMatch(
        new RegExp(
          `^backfill: ${n}/${n} queued, ${n} finished \\(${counts}\\), \\d+s elapsed, ETA \\S+( at [\\d.]+ accounts/s)?$`,
        ),
      );
    } finally {
      worker.kill('SIGTERM');
      await new Promise((r) => worker.once('exit', r));
      await waitQueue.obliterate({ force: true }).catch(() => undefined);
      await waitQueue.close();
    }
  }, 60_000);
});
