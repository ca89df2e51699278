// A deploy's SIGTERM while a worker holds a backfill chunk (issue 42: the drain took over 90 s at the
// provider's pace): the worker stops starting the chunk's accounts, hands those not started to jobs of
// their own, and closes once the accounts in flight end. The next worker runs the rest: every account
// once. Real Redis, a prefix per test.
import { randomUUID } from 'node:crypto';
import type { Queue, Worker } from 'bullmq';
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
} from '../../queues/enrich-queue.ts';
import { startEnrichWorker } from '../../queues/enrich-worker.ts';
import { eventually } from '../helpers/poll.ts';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const ACCOUNTS = 40;
const ACCOUNT_MS = 200;
const SLOTS = 4;

let redis: Redis;
let queue: Queue<EnrichQueueData>;
const workers: Worker[] = [];

beforeAll(() => {
  redis = new Redis(REDIS_URL, { maxRetriesPerRequest: null });
});
afterEach(async () => {
  await Promise.all(workers.splice(0).map((w) => w.close()));
  await queue.obliterate({ force: true });
  await queue.close();
});
afterAll(() => redis.disconnect());

describe('a worker stopping while it holds a backfill chunk', () => {
  it('hands off the accounts not started, closes after those in flight, and the next worker runs them', async () => {
    const prefix = `test-drain-${randomUUID()}`;
    queue = createEnrichQueue(redis, { prefix, name: BACKFILL_QUEUE });
    const runs = new Map<string, number>();
    const start = () => {
      const worker = startEnrichWorker({
        connection: redis,
        queue,
        name: BACKFILL_QUEUE,
        prefix,
        concurrency: SLOTS,
        process: async (data: EnrichJobData) => {
          runs.set(data.accountId, (runs.get(data.accountId) ?? 0) + 1);
          await new Promise((r) => setTimeout(r, ACCOUNT_MS));
          return data.accountId;
        },
      });
      workers.push(worker);
      return worker;
    };
    const first = start();
    const accountIds = Array.from({ length: ACCOUNTS }, (_, i) => `a${i}`);
    const chunkId = chunkJobIdOf('hubspot', '1', accountIds, 'run1');
    await queue.add(
      'enrich',
      { crm: 'hubspot', tenant: '1', accountIds, trigger: 'backfill', run: 'run1' },
      enrichJobOptions('backfill', 1, chunkId),
    );
    await eventually(async () => runs.size >= 3, 'the chunk’s first accounts running');

    // The whole chunk takes ACCOUNTS / 3 slots × 200 ms ≈ 2.7 s; stopping waits for one group only.
    const stopping = Date.now();
    await first.close();
    const drainMs = Date.now() - stopping;
    expect(drainMs).toBeLessThan(1_500);
    const chunk = await queue.getJob(chunkId);
    const entries = (chunk?.returnvalue as ChunkResult<string> | undefined)?.accounts ?? [];
    const handedOff = entries.filter((e) => 'handedOff' in e && e.handedOff);
    expect(handedOff.length).toBeGreaterThan(ACCOUNTS / 2);
    expect(runs.size).toBeLessThan(ACCOUNTS);

    start();
    await eventually(async () => runs.size === ACCOUNTS, 'every account run', { timeoutMs: 20_000 });
    await eventually(
      async () => (await queue.getJobCounts('completed')).completed === 1 + handedOff.length,
      'every handed-off job completed',
    );
    expect([...runs.values()].every((n) => n === 1)).toBe(true);
  }, 40_000);
});
