// What `backfill` counts as finished from BullMQ (beside the store's outcomes: run-progress.ts) counts
// one run's accounts only: not another run's, not another tenant's, not a webhook's; a chunk's one by
// one; and each poll adds what finished since the last.
import { randomUUID } from 'node:crypto';
import { type Job, Queue, UnrecoverableError, Worker } from 'bullmq';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, expect, it } from 'vitest';
import {
  chunkJobIdOf,
  type EnrichQueueData,
  enrichJobOptions,
  isChunk,
  jobIdOf,
} from '../../queues/enrich-queue.ts';
import { backfillJobId } from '../../src/backfill/backfill.ts';
import { trackBackfillOutcomes } from '../../src/backfill/outcomes.ts';
import { eventually } from '../helpers/poll.ts';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const prefix = `test-outcomes-${randomUUID().slice(0, 8)}`;
const portal = { kind: 'hubspot', tenant: '111' } as const;
const other = { kind: 'hubspot', tenant: '222' } as const;

let redis: Redis;
let queue: Queue<EnrichQueueData>;
let worker: Worker<EnrichQueueData>;
let workerRedis: Redis;

/** The outcome each account's job ends with, as the enrich worker would return or throw it. */
const OUTCOME: Record<string, string> = {
  a1: 'enriched',
  a2: 'needs_review',
  a3: 'failed',
  a4: 'no_match',
  a5: 'enriched',
  b1: 'enriched',
  b2: 'enriched',
  w1: 'enriched',
  c3: 'needs_review',
};

beforeAll(async () => {
  redis = new Redis(REDIS_URL, { maxRetriesPerRequest: null });
  workerRedis = redis.duplicate();
  queue = new Queue<EnrichQueueData>('enrich', { connection: redis, prefix });
  worker = new Worker<EnrichQueueData>(
    'enrich',
    async (job: Job<EnrichQueueData>) => {
      // A chunk as the enrich worker returns it: one account enriched, one recorded before a stall,
      // one handed off to its own job (counted when that job ends).
      if (isChunk(job.data))
        return {
          accounts: [
            { accountId: 'c1', result: { status: 'enriched' } },
            { accountId: 'c2', recorded: 'no_match' },
            { accountId: 'c3', handedOff: backfillJobId(portal, 'c3', 'runA'), reason: 'a 500' },
          ],
        };
      const outcome = OUTCOME[job.data.accountId];
      if (outcome === 'failed') throw new UnrecoverableError('refused');
      return { status: outcome };
    },
    { connection: workerRedis, prefix },
  );
});
afterAll(async () => {
  await worker.close();
  await workerRedis.quit();
  await queue.obliterate({ force: true });
  await queue.close();
  await redis.quit();
});

const add = (connector: typeof portal | typeof other, accountId: string, jobId: string) =>
  queue.add(
    'enrich',
    { crm: connector.kind, tenant: connector.tenant, accountId, trigger: 'backfill' },
    enrichJobOptions('backfill', 1, jobId),
  );

async function allFinished(count: number) {
  await eventually(
    async () => {
      const c = await queue.getJobCounts('completed', 'failed');
      return (c.completed ?? 0) + (c.failed ?? 0) >= count;
    },
    `${count} jobs finishing`,
    { timeoutMs: 10_000, intervalMs: 50 },
  );
}

it('counts the finished jobs of one run by outcome, and what finished since on the next poll', async () => {
  const startedAt = new Date().toISOString();
  for (const id of ['a1', 'a2', 'a3', 'a4']) await add(portal, id, backfillJobId(portal, id, 'runA'));
  await add(portal, 'b1', backfillJobId(portal, 'b1', 'runB'));
  await add(other, 'b2', backfillJobId(other, 'b2', 'runA'));
  await add(portal, 'w1', jobIdOf('hubspot', '111', 'w1', 'event', 'runA'));
  await allFinished(7);

  const tracker = trackBackfillOutcomes({ queue, redis, connector: portal, runId: 'runA', startedAt });
  expect(await tracker.poll()).toEqual({ finished: 4, enriched: 1, needs_review: 1, no_match: 1, failed: 1 });

  await add(portal, 'a5', backfillJobId(portal, 'a5', 'runA'));
  await allFinished(8);
  expect(await tracker.poll()).toEqual({ finished: 5, enriched: 2, needs_review: 1, no_match: 1, failed: 1 });
  // Polling again without anything new finished changes nothing.
  expect(await tracker.poll()).toEqual({ finished: 5, enriched: 2, needs_review: 1, no_match: 1, failed: 1 });

  // A job stamped by a worker whose clock is 5 s behind lands behind what was read: still counted.
  const late = backfillJobId(portal, 'a6', 'runA');
  await redis.hset(queue.toKey(late), 'returnvalue', JSON.stringify({ status: 'no_match' }));
  await redis.zadd(queue.toKey('completed'), Date.now() - 5_000, late);
  expect(await tracker.poll()).toEqual({ finished: 6, enriched: 2, needs_review: 1, no_match: 2, failed: 1 });

  // A chunk counts its accounts one by one; the one it handed off counts when its own job ends.
  await queue.add(
    'enrich',
    { crm: 'hubspot', tenant: '111', accountIds: ['c1', 'c2', 'c3'], trigger: 'backfill', run: 'runA' },
    enrichJobOptions('backfill', 1, chunkJobIdOf('hubspot', '111', ['c1', 'c2', 'c3'], 'runA')),
  );
  await allFinished(10); // (the late job above is in the completed set too)
  expect(await tracker.poll()).toEqual({ finished: 8, enriched: 3, needs_review: 1, no_match: 3, failed: 1 });
  await add(portal, 'c3', backfillJobId(portal, 'c3', 'runA'));
  await allFinished(11);
  expect(await tracker.poll()).toEqual({ finished: 9, enriched: 3, needs_review: 2, no_match: 3, failed: 1 });
});
