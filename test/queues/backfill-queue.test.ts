// The backfill's chunks on their own queue (issue 42), on real Redis with a prefix per test.
// - A webhook's account queued while a backfill fills the worker: on one queue BullMQ fetches it only
//   when one of the worker's jobs ends, so it waits for the whole chunk; with backfill on a queue of its
//   own (BACKFILL_QUEUE) and both workers sharing the process's slots, it is fetched at once and takes
//   the next free slot ahead of the chunk's accounts.
// - A deploy's SIGTERM while a worker holds a chunk (the drain took over 90 s at the provider's pace):
//   the worker stops starting the chunk's accounts, hands those not started to jobs of their own, and
//   closes once the accounts in flight end; the next worker runs the rest, every account once.
import { randomUUID } from 'node:crypto';
import type { Job, Queue, Worker } from 'bullmq';
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { ChunkResult } from '../../queues/chunk-result.ts';
import {
  BACKFILL_QUEUE,
  chunkJobIdOf,
  createEnrichQueue,
  type EnrichJobData,
  type EnrichQueueData,
  enrichJobOptions,
  jobIdOf,
} from '../../queues/enrich-queue.ts';
import { startEnrichWorker } from '../../queues/enrich-worker.ts';
import { WorkerLoad } from '../../queues/worker-load.ts';
import { eventually } from '../helpers/poll.ts';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const SLOTS = 4;
const CHUNK = 30;
/** One backfill account's time: the chunk, on the 3 slots it takes of 4, takes CHUNK / 3 × this (3 s). */
const ACCOUNT_MS = 300;

let redis: Redis;
const queues: Queue<EnrichQueueData>[] = [];
const workers: Worker[] = [];

beforeAll(() => {
  redis = new Redis(REDIS_URL, { maxRetriesPerRequest: null });
});
afterEach(async () => {
  await Promise.all(workers.splice(0).map((w) => w.close()));
  for (const q of queues.splice(0)) {
    await q.obliterate({ force: true });
    await q.close();
  }
});
afterAll(() => redis.disconnect());

const enrichOne = async (data: EnrichJobData) => {
  if (data.trigger === 'backfill') await new Promise((r) => setTimeout(r, ACCOUNT_MS));
  return data.accountId;
};

function start(
  queue: Queue<EnrichQueueData>,
  prefix: string,
  options: { load?: WorkerLoad; process?: (data: EnrichJobData) => Promise<string> } = {},
) {
  const worker = startEnrichWorker({
    connection: redis,
    queue,
    name: queue.name,
    prefix,
    concurrency: SLOTS,
    process: options.process ?? enrichOne,
    ...(options.load ? { load: options.load } : {}),
  });
  workers.push(worker);
  return worker;
}

/** Queues a backfill chunk, waits for it to start, then queues a webhook's job; both jobs once done. */
async function webhookDuringBackfill(backfill: Queue<EnrichQueueData>, enrich: Queue<EnrichQueueData>) {
  const accountIds = Array.from({ length: CHUNK }, (_, i) => `b${i}`);
  const chunkId = chunkJobIdOf('hubspot', '1', accountIds, 'run1');
  await backfill.add(
    'enrich',
    { crm: 'hubspot', tenant: '1', accountIds, trigger: 'backfill', run: 'run1' },
    enrichJobOptions('backfill', 1, chunkId),
  );
  await eventually(async () => (await backfill.getJobState(chunkId)) === 'active', 'the chunk running');
  const hookId = jobIdOf('hubspot', '1', 'new-account', 'creation', 'e1');
  await enrich.add(
    'enrich',
    { crm: 'hubspot', tenant: '1', accountId: 'new-account', trigger: 'webhook' },
    enrichJobOptions('webhook', 1, hookId),
  );
  await eventually(
    async () =>
      (await backfill.getJobState(chunkId)) === 'completed' &&
      (await enrich.getJobState(hookId)) === 'completed',
    'both jobs',
    { timeoutMs: 30_000 },
  );
  const [chunk, hook] = (await Promise.all([backfill.getJob(chunkId), enrich.getJob(hookId)])) as Job[];
  return { chunk: chunk as Job, hook: hook as Job };
}

describe('a webhook queued while a backfill fills the worker', () => {
  it('on a queue of its own, runs at once, long before the chunk ends', async () => {
    const prefix = `test-people-${randomUUID()}`;
    const enrich = createEnrichQueue(redis, { prefix });
    const backfill = createEnrichQueue(redis, { prefix, name: BACKFILL_QUEUE });
    queues.push(enrich, backfill);
    const load = new WorkerLoad(SLOTS);
    start(enrich, prefix, { load });
    start(backfill, prefix, { load });
    const { chunk, hook } = await webhookDuringBackfill(backfill, enrich);
    // It took the slot the chunk leaves free and ended while the chunk still ran accounts.
    expect(hook.finishedOn ?? Number.POSITIVE_INFINITY).toBeLessThan(chunk.finishedOn ?? 0);
    // The chunk still ran every account.
    expect((chunk.returnvalue as { accounts: unknown[] }).accounts).toHaveLength(CHUNK);
  }, 40_000);

  it('on the backfill’s queue (as before), waits for the chunk to end', async () => {
    const prefix = `test-people-${randomUUID()}`;
    const enrich = createEnrichQueue(redis, { prefix });
    queues.push(enrich);
    start(enrich, prefix);
    const { chunk, hook } = await webhookDuringBackfill(enrich, enrich);
    expect(hook.processedOn ?? 0).toBeGreaterThanOrEqual(chunk.finishedOn ?? Number.POSITIVE_INFINITY);
  }, 40_000);
});

const DRAIN_ACCOUNTS = 40;
const DRAIN_ACCOUNT_MS = 200;

describe('a worker stopping while it holds a backfill chunk', () => {
  it('hands off the accounts not started, closes after those in flight, and the next worker runs them', async () => {
    const prefix = `test-drain-${randomUUID()}`;
    const queue = createEnrichQueue(redis, { prefix, name: BACKFILL_QUEUE });
    queues.push(queue);
    const runs = new Map<string, number>();
    const process = async (data: EnrichJobData) => {
      runs.set(data.accountId, (runs.get(data.accountId) ?? 0) + 1);
      await new Promise((r) => setTimeout(r, DRAIN_ACCOUNT_MS));
      return data.accountId;
    };
    const first = start(queue, prefix, { process });
    const accountIds = Array.from({ length: DRAIN_ACCOUNTS }, (_, i) => `a${i}`);
    const chunkId = chunkJobIdOf('hubspot', '1', accountIds, 'run1');
    await queue.add(
      'enrich',
      { crm: 'hubspot', tenant: '1', accountIds, trigger: 'backfill', run: 'run1' },
      enrichJobOptions('backfill', 1, chunkId),
    );
    await eventually(async () => runs.size >= 3, 'the chunk’s first accounts running');

    // Stopping starts no account after the close begins: at most the group in flight (3 of the 4
    // slots, one left for a person) finishes; before, the close ran the whole chunk.
    const startedBefore = runs.size;
    await first.close();
    expect(runs.size).toBeLessThanOrEqual(startedBefore + SLOTS);
    const chunk = await queue.getJob(chunkId);
    const entries = (chunk?.returnvalue as ChunkResult<string> | undefined)?.accounts ?? [];
    const handedOff = entries.filter((e) => 'handedOff' in e && e.handedOff);
    expect(handedOff.length).toBeGreaterThan(DRAIN_ACCOUNTS / 2);
    expect(runs.size).toBeLessThan(DRAIN_ACCOUNTS);

    start(queue, prefix, { process });
    await eventually(async () => runs.size === DRAIN_ACCOUNTS, 'every account run', { timeoutMs: 20_000 });
    await eventually(
      async () => (await queue.getJobCounts('completed')).completed === 1 + handedOff.length,
      'every handed-off job completed',
    );
    expect([...runs.values()].every((n) => n === 1)).toBe(true);
  }, 40_000);
});
