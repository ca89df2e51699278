// A backfill is one run in the store: created before its first job, named by every job it queues,
// the same run when an interrupted backfill resumes, counting what it queued so far, finished with its
// counts once every account is queued; a restart is a run of its own. Real Redis (BullMQ) and the
// embedded database.
// @redis-cluster: also runs on a 3-master Redis Cluster (npm run test:cluster).
import '../helpers/memory-crm.ts'; // first: registers the test double before the registry is read
import { randomUUID } from 'node:crypto';
import type { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMemoryConnector } from '../../connectors/memory/connector.ts';
import { MemoryCrmStore } from '../../connectors/memory/store.ts';
import { createEnrichQueue, type EnrichQueueData, isChunk } from '../../queues/enrich-queue.ts';
import { backfillJobId, backfillStateKey, runBackfill } from '../../src/backfill/backfill.ts';
import { type Repositories, Store } from '../../src/store/store.ts';
import { deleteKeysOf, testPrefix, testRedis } from '../helpers/redis.ts';
import { serviceDatabase } from '../helpers/test-database.ts';

const prefix = testPrefix('test-backfill-run');
const ACCOUNTS = 250;

let redis: Redis;
let queue: Queue<EnrichQueueData>;
let store: Store;
let repos: Repositories;
const crm = new MemoryCrmStore(`bf-${randomUUID().slice(0, 8)}`);
const connector = createMemoryConnector(crm);
const ids: string[] = [];

beforeAll(async () => {
  redis = testRedis();
  queue = createEnrichQueue(redis, { prefix });
  store = new Store(await serviceDatabase());
  repos = await store.open();
  for (let i = 1; i <= ACCOUNTS; i++)
    ids.push(crm.createAccount({ name: `Town ${i}`, state: i % 2 ? 'TX' : 'OH' }));
});
afterAll(async () => {
  await queue.obliterate({ force: true });
  await queue.close();
  await deleteKeysOf(redis, prefix);
  redis.disconnect();
  await store.close();
});

const backfill = (over: Partial<Parameters<typeof runBackfill>[0]> = {}) =>
  runBackfill({
    connector,
    queue,
    redis,
    prefix,
    filters: [],
    attempts: 1,
    pageSize: 100,
    store,
    expected: ACCOUNTS,
    actor: 'cli (tester)',
    ...over,
  });

const queued = async () => (await queue.getJobs(['prioritized', 'waiting'])).map((j) => j.data);
/** The accounts the queued jobs hold: a chunk's, or a job's own. */
const accounts = (jobs: EnrichQueueData[]) =>
  jobs.flatMap((d) => (isChunk(d) ? d.accountIds : [d.accountId]));
const backfillRuns = async () => (await repos.runs.list({ kind: 'backfill', limit: 500 })).runs;

describe('a backfill’s run', () => {
  it('is created before the first job, stays the same run when resumed, and is finished with its counts', async () => {
    // Interrupted after its first page, as Ctrl-C does.
    const interrupt = new AbortController();
    const first = await backfill({ signal: interrupt.signal, onProgress: () => interrupt.abort() });
    expect(first).toMatchObject({ done: false, enqueued: 100 });
    const [run, ...others] = await backfillRuns();
    expect(others).toEqual([]);
    expect(run).toMatchObject({
      id: first.storeRunId,
      label: `backfill of ${ACCOUNTS} accounts (In-memory CRM ${crm.workspace})`,
      actor: 'cli (tester)',
      finishedAt: null,
      // What it queued so far, for its status while it lists.
      counts: { queued: 100, scanned: 100 },
    });
    expect(new Set((await queued()).map((j) => j.runId))).toEqual(new Set([run?.id]));

    const resumed = await backfill();
    expect(resumed).toMatchObject({ done: true, enqueued: ACCOUNTS, storeRunId: run?.id });
    const jobs = await queued();
    // Pages of 100, chunks of up to 100 accounts: one job per page, every account once.
    expect(jobs).toHaveLength(Math.ceil(ACCOUNTS / 100));
    expect(accounts(jobs)).toHaveLength(ACCOUNTS);
    expect(new Set(accounts(jobs)).size).toBe(ACCOUNTS);
    expect(new Set(jobs.map((j) => j.runId))).toEqual(new Set([run?.id]));
    const [finished, ...more] = await backfillRuns();
    expect(more).toEqual([]);
    expect(finished).toMatchObject({
      id: run?.id,
      startedAt: run?.startedAt,
      counts: { queued: ACCOUNTS, scanned: ACCOUNTS },
    });
    expect(finished?.finishedAt).toBeInstanceOf(Date);
  });

  it('a backfill started over (or after one finished) is a new run; its filters are in the label', async () => {
    await queue.obliterate({ force: true });
    const before = await backfillRuns();
    const filters = [{ field: 'state', negate: false, value: 'TX' }];
    const state = await backfill({ filters, expected: ACCOUNTS / 2 });
    expect(state).toMatchObject({ done: true, enqueued: ACCOUNTS / 2 });
    const again = await backfill({ filters, expected: ACCOUNTS / 2, restart: true });
    const runs = await backfillRuns();
    expect(runs).toHaveLength(before.length + 2);
    expect(new Set([state.storeRunId, again.storeRunId, ...before.map((r) => r.id)]).size).toBe(runs.length);
    expect(runs.find((r) => r.id === again.storeRunId)).toMatchObject({
      label: `backfill of ${ACCOUNTS / 2} accounts (In-memory CRM ${crm.workspace}, state=TX)`,
      counts: { queued: ACCOUNTS / 2 },
    });
  });

  it('queues chunks of BACKFILL_ACCOUNTS_PER_JOB within each page; pages queued again are no-ops', async () => {
    await queue.obliterate({ force: true });
    const state = await backfill({ restart: true, accountsPerJob: 30 });
    // Pages of 100, 100 and 50: 30+30+30+10 twice and 30+20, every account once.
    const jobs = await queued();
    const sizes = jobs.map((j) => (isChunk(j) ? j.accountIds.length : 1)).sort((a, b) => a - b);
    expect(sizes).toEqual([10, 10, 20, ...Array(7).fill(30)]);
    expect(jobs).toHaveLength(10);
    expect(new Set(accounts(jobs)).size).toBe(ACCOUNTS);
    // Killed before any cursor was saved: the same run queues every page again, as the same jobs.
    const key = backfillStateKey(prefix, connector, []);
    await redis.set(key, JSON.stringify({ ...state, cursor: null, scanned: 0, enqueued: 0, done: false }));
    expect(await backfill({ accountsPerJob: 30 })).toMatchObject({ runId: state.runId, enqueued: ACCOUNTS });
    expect(await queued()).toHaveLength(10);
    // One account per job: today's job of each account.
    await queue.obliterate({ force: true });
    const single = await backfill({ restart: true, accountsPerJob: 1 });
    const singles = await queued();
    expect(singles).toHaveLength(ACCOUNTS);
    expect(singles.every((j) => !isChunk(j))).toBe(true);
    const jobIds = (await queue.getJobs(['prioritized', 'waiting'])).map((j) => j.id);
    expect(jobIds).toContain(backfillJobId(connector, ids[0] ?? '', single.runId));
  });

  it('queues nothing when the store cannot record the run', async () => {
    await queue.obliterate({ force: true });
    const failed = await backfill({
      restart: true,
      store: { open: () => Promise.reject(new Error('the database is down')) },
    }).catch((err: Error) => err);
    expect(failed).toBeInstanceOf(Error);
    expect((failed as Error).message).toBe('the database is down');
    expect(await queue.count()).toBe(0);
  });
});
