// The write history against the CRM after every fault of a backfill, on servers of the test's own (a
// private PostgreSQL and a private redis-server: the shared ones are never stopped). 300 HubSpot
// companies (the emulator) are enriched as one backfill run by a `worker` process (a real child) and
// then by a worker in this process; mid-backfill the child is SIGKILLed (its jobs come back as stalled),
// Redis is restarted (its AOF reloaded) and PostgreSQL is stopped for ~10 s (`-m immediate`).
// Asserts, once the queue is drained and the pending sweep ran: every value and note of ours in the CRM
// has its history row (0 mismatches), every account enriched (0 lost), no duplicate note; after a
// reject, none of the rejected buyer's fields remain; the undo of the whole run leaves none of ours.
// With writes recorded only after their CRM call (no write-ahead), a run of it found 23 of ours off the
// record (20 values and 3 notes of one account written as PostgreSQL went down); with it, 0.
// Slow (~1.5–3 min: the stalled jobs of the killed worker come back after BullMQ's 30 s lock).
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SandboxBuyer } from '../../emulators/buyer-intel/data/types.ts';
import type { RunningBuyerIntelSandbox } from '../../emulators/buyer-intel/server.ts';
import { type RunningHubSpotSandbox, startHubSpotSandbox } from '../../emulators/hubspot/server.ts';
import { sandboxSettings } from '../../emulators/settings.ts';
import { enrichJobOptions, jobIdOf } from '../../queues/enrich-queue.ts';
import { DEFAULT_MAPPING } from '../../src/map/default-mapping.ts';
import { fieldDefinitions, PROVENANCE_FIELDS as P } from '../../src/map/field-definitions.ts';
import type { Service } from '../../src/service/runtime.ts';
import { sameValue } from '../../src/undo/compare.ts';
import { sweepPendingWrites } from '../../src/undo/pending-sweep.ts';
import { resolveUndo } from '../../src/undo/target.ts';
import { runUndo } from '../../src/undo/undo.ts';
import { startSandbox } from '../helpers/buyer-intel-sandbox.ts';
import {
  PG_BIN,
  type PrivatePostgres,
  type PrivateRedis,
  privatePostgres,
  privateRedis,
} from '../helpers/private-servers.ts';
import {
  CLI,
  cliEnv,
  companyFor,
  distinctBuyers,
  duplicates,
  noteKeysOf,
  untilStarted,
  waitFor,
} from '../helpers/reliability-env.ts';
import { completedJob, createTestService } from '../helpers/service.ts';

const ACCOUNTS = 300;
const REJECTED = 5;
const prefix = `test-rel-history-${randomUUID().slice(0, 8)}`;
const API_KEY = `key-${randomBytes(16).toString('hex')}`;
const OURS = [...new Set([...fieldDefinitions(DEFAULT_MAPPING).map((f) => f.name), ...Object.values(P)])];
const MAPPED = DEFAULT_MAPPING.fields.map((f) => f.property);

let pg: PrivatePostgres;
let redis: PrivateRedis;
let bi: RunningBuyerIntelSandbox;
let hs: RunningHubSpotSandbox;
let service: Service;
let child: ChildProcessWithoutNullStreams | undefined;

beforeAll(async () => {
  if (!PG_BIN) return;
  [pg, redis, [bi, hs]] = await Promise.all([
    privatePostgres(),
    privateRedis(),
    Promise.all([startSandbox(), startHubSpotSandbox({ rateLimits: false })]),
  ]);
  service = await createTestService({
    ...sandboxSettings(
      { buyerIntel: bi, hubspot: hs },
      { redisUrl: redis.url, prefix },
      {
        buyerIntel: { ratePerSecond: 500, burst: 500, maxRetryAfterMs: 100 },
        signals: { period: 'LastTwoYears', maxNotesPerRun: 10 },
        worker: { concurrency: 10, writeBatchWaitMs: 20 },
      },
    ),
    database: { url: pg.url },
    api: { apiKeys: [API_KEY] },
  });
  await service.store.migrate();
  await service.connector('hubspot', String(hs.portalId)).ensureFields(fieldDefinitions(DEFAULT_MAPPING));
}, 120_000);

afterAll(async () => {
  if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  await service?.close().catch(() => undefined);
  await Promise.all([bi?.close(), hs?.close(), redis?.remove()]);
  pg?.remove();
});

function spawnWorker(): Promise<ChildProcessWithoutNullStreams> {
  const proc = spawn(process.execPath, [CLI, 'worker'], {
    env: cliEnv(bi, hs, prefix, {
      REDIS_URL: redis.url,
      DATABASE_URL: pg.url,
      LOG_LEVEL: 'info',
      WORKER_CONCURRENCY: '10',
      WRITE_BATCH_WAIT_MS: '20',
      SIGNALS_PERIOD: 'LastTwoYears',
      SIGNALS_MAX_NOTES_PER_RUN: '10',
    }),
  });
  return untilStarted(proc);
}

const completed = async () => (await service.queue.getJobCounts('completed')).completed ?? 0;
const untilCompleted = (n: number, what: string) =>
  waitFor(`${n} jobs completed (${what})`, async () => (await completed()) >= n, 120_000, 100);

/** Values of ours in the CRM without their history row, and notes of ours without theirs. */
async function mismatches(ids: readonly string[]): Promise<string[]> {
  const repos = await service.store.open();
  const tenant = String(hs.portalId);
  const found: string[] = [];
  for (const id of ids) {
    const company = hs.store.get('companies', id);
    const { events } = await repos.writes.forAccount(
      { crm: 'hubspot', tenant, accountId: id },
      { limit: 500 },
    );
    for (const field of OURS) {
      const value = company?.values.get(field) ?? null;
      if (value === null || value === '') continue;
      const last = events.find((e) => e.type === 'field' && e.field === field && e.result === 'ok');
      if (last?.type !== 'field' || !sameValue(value, last.new)) found.push(`${id} ${field}=${value}`);
    }
    const recorded = new Set(
      events.flatMap((e) => (e.type === 'note' && e.action === 'created' ? [e.noteId] : [])),
    );
    const removed = new Set(
      events.flatMap((e) => (e.type === 'note' && e.action === 'removed' ? [e.noteId] : [])),
    );
    for (const note of hs.store.notesOf(id))
      if (!recorded.has(note.id) || removed.has(note.id)) found.push(`${id} note ${note.id}`);
  }
  return found;
}

describe.skipIf(!PG_BIN)(
  'the write history under a worker kill, a Redis restart and a PostgreSQL outage',
  () => {
    it('holds every value and note of ours, loses no account, and takes all back', async () => {
      const buyers = distinctBuyers(bi, ACCOUNTS);
      const accounts = new Map<string, SandboxBuyer>();
      for (const b of buyers) accounts.set(hs.store.createCompany(companyFor(b), { source: 'CRM_UI' }).id, b);
      const ids = [...accounts.keys()];
      const { runs } = await service.store.open();
      const run = await runs.create({ kind: 'backfill', label: `backfill of ${ACCOUNTS} under faults` });
      // Slow upstreams: jobs are mid-call (some mid-write) when each fault lands.
      bi.faults.settings.latencyMs = 40;
      hs.faults.settings.latencyMs = 20;

      child = await spawnWorker();
      const tenant = String(hs.portalId);
      await service.queue.addBulk(
        ids.map((accountId) => ({
          name: 'enrich' as const,
          data: { crm: 'hubspot' as const, tenant, accountId, trigger: 'backfill' as const, runId: run.id },
          opts: enrichJobOptions('backfill', 20, jobIdOf('rel-history', accountId)),
        })),
      );

      // 1. The worker process is killed mid-jobs; a worker in this process carries on.
      await untilCompleted(30, 'before the kill');
      const at: Record<string, number> = { kill: await completed() };
      const proc = child;
      const exited = new Promise<NodeJS.Signals | null>((r) => proc.once('exit', (_c, signal) => r(signal)));
      proc.kill('SIGKILL');
      expect(await exited).toBe('SIGKILL');
      service.startWorker();

      // 2. Redis restarts (SIGTERM, AOF reloaded) under load.
      await untilCompleted(90, 'before the Redis restart');
      at.redis = await completed();
      await redis.restart();

      // 3. PostgreSQL stops for ~10 s.
      await untilCompleted(150, 'before the PostgreSQL outage');
      at.postgres = await completed();
      pg.stop();
      await new Promise((r) => setTimeout(r, 10_000));
      pg.start();

      bi.faults.settings.latencyMs = 0;
      hs.faults.settings.latencyMs = 0;
      await waitFor(
        `all ${ACCOUNTS} jobs completed`,
        async () => (await completed()) === ACCOUNTS,
        150_000,
        250,
      );
      expect(await service.queue.getJobCounts('failed')).toEqual({ failed: 0 });
      // Each fault landed mid-backfill.
      for (const n of Object.values(at)) expect(n).toBeLessThan(ACCOUNTS);

      // What no job came back to is settled by the sweep (the schedule's code, with no age threshold).
      const swept = await sweepPendingWrites(
        { store: service.store, connectorFor: service.connector, locks: service.accountLocks },
        { olderThanMs: 0 },
      );
      const lost = ids.filter((id) => hs.store.get('companies', id)?.values.get(P.status) !== 'enriched');
      expect(lost).toEqual([]);
      const doubled = ids.filter((id) => duplicates(noteKeysOf(hs, id)).length > 0);
      expect(doubled).toEqual([]);
      expect(await mismatches(ids)).toEqual([]);
      const notes = ids.reduce((n, id) => n + hs.store.notesOf(id).length, 0);
      expect(notes).toBeGreaterThan(ACCOUNTS);
      console.log(
        `faults at ${JSON.stringify(at)} of ${ACCOUNTS} jobs; swept ${JSON.stringify(swept)}; ${notes} notes`,
      );

      // A reject takes back the rejected buyer's fields: none of them remains.
      const base = (await service.startHttp(0, '127.0.0.1')).url;
      for (const id of ids.slice(0, REJECTED)) {
        const res = await fetch(`${base}/api/accounts/hubspot/${id}/reject`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${API_KEY}` },
          body: JSON.stringify({ reason: 'not this buyer' }),
        });
        expect(res.status).toBe(202);
        await completedJob(service, String(((await res.json()) as { jobId: string }).jobId), 60_000);
        const company = hs.store.get('companies', id);
        expect(MAPPED.filter((f) => company?.values.get(f))).toEqual([]);
        expect(hs.store.notesOf(id)).toEqual([]);
      }
      expect(await mismatches(ids)).toEqual([]);

      // The undo of the whole run leaves none of our values and notes.
      const repos = await service.store.open();
      const undone = await runUndo(
        {
          store: service.store,
          connectorFor: service.connector,
          locks: service.accountLocks,
        },
        await resolveUndo(repos, { kind: 'run', runId: run.id }),
      );
      expect(undone.pending).toBe(0);
      const left = ids.flatMap((id) => {
        const company = hs.store.get('companies', id);
        return MAPPED.filter((f) => company?.values.get(f)).map((f) => `${id} ${f}`);
      });
      expect(left).toEqual([]);
      expect(ids.reduce((n, id) => n + hs.store.notesOf(id).length, 0)).toBe(0);
    }, 420_000);
  },
);
