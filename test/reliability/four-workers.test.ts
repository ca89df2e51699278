// Scale-out as operations teams run it: 4 `worker` processes, each with an environment of its own (as
// separate machines have: its own temporary directory and process name), one Redis (a Redis Cluster
// under `npm run test:cluster`) and one PostgreSQL, a `backfill` of 1,000 HubSpot companies started by
// the CLI, and one worker killed with SIGKILL mid-run. BullMQ hands the dead worker's chunks to the
// others once their locks expire (within about 20 s).
// Asserts: every account has its one outcome and its status on the CRM, most are enriched, no account
// has two notes of the same key, no job failed.
// @redis-cluster: also runs on a 3-master Redis Cluster (npm run test:cluster). CI runs it there only
// (CI_CLUSTER_SUITE_FOLLOWS=1 in .ci/run): the cluster is the stricter Redis for the same four processes,
// and the ~40 s of four workers' CPU twice over was the longest part of CI's 15 minutes.
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect } from 'vitest';
import { benchAccounts } from '../../bench/accounts.ts';
import type { RunningBuyerIntelSandbox } from '../../emulators/buyer-intel/server.ts';
import { type RunningHubSpotSandbox, startHubSpotSandbox } from '../../emulators/hubspot/server.ts';
import { BACKFILL_QUEUE, createEnrichQueue } from '../../queues/enrich-queue.ts';
import { PROVENANCE_FIELDS as P } from '../../src/map/field-definitions.ts';
import { Store } from '../../src/store/store.ts';
import { startSandbox } from '../helpers/buyer-intel-sandbox.ts';
import { freshPostgresDatabase, itWithPostgres } from '../helpers/databases.ts';
import { deleteKeysOf, ON_CLUSTER, testPrefix, testRedis } from '../helpers/redis.ts';
import { CLI, cliEnv, duplicates, noteKeysOf, untilStarted, waitFor } from '../helpers/reliability-env.ts';

// Eight chunks of 100: the kill lands with some done and the victim holding one.
const ACCOUNTS = 800;
const WORKERS = 4;
const prefix = testPrefix('test-four-workers');
const redis = testRedis();
let bi: RunningBuyerIntelSandbox;
let hs: RunningHubSpotSandbox;
let queue: ReturnType<typeof createEnrichQueue>;
let database: Awaited<ReturnType<typeof freshPostgresDatabase>>;
const workers: { proc: ChildProcessWithoutNullStreams; home: string }[] = [];

beforeAll(async () => {
  [bi, hs] = await Promise.all([startSandbox(), startHubSpotSandbox({ rateLimits: false })]);
  database = await freshPostgresDatabase();
  // The backfill's chunks and handed-off accounts: its own queue.
  queue = createEnrichQueue(redis, { prefix, name: BACKFILL_QUEUE });
});

afterAll(async () => {
  for (const w of workers) {
    if (w.proc.exitCode === null && w.proc.signalCode === null) w.proc.kill('SIGKILL');
    rmSync(w.home, { recursive: true, force: true });
  }
  await queue?.close();
  await deleteKeysOf(redis, prefix);
  redis.disconnect();
  await Promise.all([bi?.close(), hs?.close()]);
  await database?.drop();
});

/** The environment a machine of the deployment has: the shared settings, and its own directory. */
function machineEnv(n: number, home: string): Record<string, string> {
  return cliEnv(bi, hs, prefix, {
    DATABASE_URL: database?.url ?? '',
    HOME: home,
    TMPDIR: home,
    HOSTNAME: `worker-${n}`,
    // `started` is an info line; the job lines after it are read and dropped (a full pipe would stall the worker).
    LOG_LEVEL: 'info',
    BUYER_INTEL_RATE_PER_SECOND: '500',
    BUYER_INTEL_BURST: '500',
    SIGNALS_PERIOD: 'LastTwoYears',
    SIGNALS_MAX_NOTES_PER_RUN: '3',
  });
}

function startWorker(n: number): Promise<ChildProcessWithoutNullStreams> {
  const home = mkdtempSync(join(tmpdir(), `machine-${n}-`));
  const proc = spawn(process.execPath, [CLI, 'worker'], { env: machineEnv(n, home) });
  workers.push({ proc, home });
  return untilStarted(proc, `worker ${n}`, 120_000);
}

function runCli(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const home = mkdtempSync(join(tmpdir(), 'operator-'));
  const proc = spawn(process.execPath, [CLI, ...args], { env: machineEnv(0, home) });
  let stdout = '';
  let stderr = '';
  proc.stdout.on('data', (d) => {
    stdout += d;
  });
  proc.stderr.on('data', (d) => {
    stderr += d;
  });
  return new Promise((resolve) =>
    proc.once('close', (code) => {
      rmSync(home, { recursive: true, force: true });
      resolve({ code, stdout, stderr });
    }),
  );
}

// Part of the suite: ~28 s on a quiet machine (9-10 s to the kill, 17-18 s after it; the same on the
// cluster), 55 s at load 5-10, 164 s at load ~15, 4-6 minutes at load 20-25. It found a note created twice on 10 of 2,000 accounts in one
// loaded run in four, before notes were claimed (src/write/note-claims.ts).
const clusterRunFollows = process.env.CI_CLUSTER_SUITE_FOLLOWS === '1' && !ON_CLUSTER;
describe.skipIf(clusterRunFollows)(`${WORKERS} workers on one Redis and one PostgreSQL`, () => {
  itWithPostgres(
    `a backfill of ${ACCOUNTS} accounts with one worker killed: every account once, no note twice`,
    async () => {
      const t0 = Date.now();
      const accounts = benchAccounts(bi.dataset, ACCOUNTS, 400).map((a) => ({
        ...a,
        id: hs.store.createCompany(
          { name: a.name, ...(a.state ? { state: a.state } : {}), ...(a.domain ? { domain: a.domain } : {}) },
          { source: 'CRM_UI' },
        ).id,
      }));
      expect((await runCli(['setup', '--crm', 'hubspot'])).code).toBe(0);
      const started = await Promise.all(Array.from({ length: WORKERS }, (_, i) => startWorker(i + 1)));
      // Slow upstreams while the kill lands, so the victim holds chunks mid-call and mid-write.
      bi.faults.settings.latencyMs = 40;
      const backfill = await runCli(['backfill', '--crm', 'hubspot']);
      expect(backfill.code, backfill.stderr).toBe(0);
      expect(backfill.stdout).toContain(`Queued ${ACCOUNTS} accounts`);

      // Kill a worker while it holds a chunk (each job names the process that took it), once some
      // accounts are written: whichever worker holds one then (which process takes which chunk is
      // BullMQ's race, and a chunk's accounts write together, so a fixed one may hold none by then).
      const written = () =>
        accounts.filter((a) => hs.store.get('companies', a.id)?.values.has(P.status)).length;
      let holder: ChildProcessWithoutNullStreams | undefined;
      await waitFor(
        'accounts written and a worker holding a chunk',
        async () => {
          if (written() < 20) return false;
          const active = await queue.getActive();
          holder = started.find((w) => active.some((j) => j.processedBy?.endsWith(`:${w.pid}`)));
          return holder !== undefined;
        },
        120_000,
        50,
      );
      const victim = holder;
      if (!victim) throw new Error('no worker holds a chunk');
      const killed = new Promise<NodeJS.Signals | null>((r) =>
        victim.once('exit', (_c, signal) => r(signal)),
      );
      victim.kill('SIGKILL');
      const killedAt = Date.now();
      expect(await killed).toBe('SIGKILL');
      bi.faults.settings.latencyMs = 0;

      const chunks = Math.ceil(ACCOUNTS / 100);
      // Done when nothing is left to run (a chunk may hand an account back as a job of its own).
      let counts: Record<string, number> = {};
      await waitFor(
        `every backfill job done (last counts ${JSON.stringify(counts)})`,
        async () => {
          counts = await queue.getJobCounts(
            'completed',
            'active',
            'wait',
            'prioritized',
            'delayed',
            'failed',
          );
          const left =
            (counts.active ?? 0) + (counts.wait ?? 0) + (counts.prioritized ?? 0) + (counts.delayed ?? 0);
          return left === 0 && (counts.completed ?? 0) >= chunks;
        },
        240_000,
        500,
      ).catch((err: Error) => {
        throw new Error(`${err.message}: ${JSON.stringify(counts)}`);
      });
      const failed = await queue.getFailed(0, 4);
      expect(
        failed.map((j) => `${j.id}: ${j.failedReason}`),
        'jobs failed for good',
      ).toEqual([]);

      const store = new Store({ url: database?.url ?? '' });
      try {
        const { outcomes } = await store.open();
        const tenant = String(hs.portalId);
        const recorded = await outcomes.getMany(
          'hubspot',
          tenant,
          accounts.map((a) => a.id),
        );
        expect(recorded.size).toBe(ACCOUNTS);
        const notesTwice: string[] = [];
        const statuses = new Map<string, number>();
        let notes = 0;
        for (const a of accounts) {
          const status = hs.store.get('companies', a.id)?.values.get(P.status) ?? 'none';
          statuses.set(status, (statuses.get(status) ?? 0) + 1);
          const keys = noteKeysOf(hs, a.id);
          notes += keys.length;
          if (duplicates(keys).length) notesTwice.push(a.id);
        }
        const secs = (from: number, to = Date.now()) => Math.round((to - from) / 1000);
        console.log(
          `${secs(t0, killedAt)} s to the kill, ${secs(killedAt)} s after it; ${WORKERS} workers, one killed: ${ACCOUNTS} accounts (${[...statuses].map(([k, n]) => `${n} ${k}`).join(', ')}), ${notes} notes, ${notesTwice.length} accounts with a note twice`,
        );
        expect([...statuses.keys()].every((k) => ['enriched', 'needs_review', 'no_match'].includes(k))).toBe(
          true,
        );
        expect(statuses.get('enriched') ?? 0).toBeGreaterThan(ACCOUNTS / 2);
        expect(notesTwice).toEqual([]);
        expect(notes).toBeGreaterThan(ACCOUNTS / 2);
      } finally {
        await store.close();
      }
    },
    600_000,
  );
});
