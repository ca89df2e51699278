// The enrich worker on real Redis with a unique queue prefix per file.
import { randomUUID } from 'node:crypto';
import type { Queue, Worker } from 'bullmq';
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { AccountNotFoundError, CrmRateLimitError } from '../../connectors/types.ts';
import {
  createEnrichQueue,
  type EnrichJobData,
  type EnrichQueueData,
  enrichJobOptions,
} from '../../queues/enrich-queue.ts';
import { startEnrichWorker } from '../../queues/enrich-worker.ts';
import { RateLimitError } from '../../src/buyer-intel/errors.ts';
import { eventually } from '../helpers/poll.ts';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
let redis: Redis;
let queue: Queue<EnrichQueueData>;
let worker: Worker | undefined;
let prefix: string;

beforeAll(() => {
  redis = new Redis(REDIS_URL, { maxRetriesPerRequest: null });
});
afterEach(async () => {
  await worker?.close();
  worker = undefined;
  await queue.obliterate({ force: true });
  await queue.close();
});
afterAll(() => redis.disconnect());

function setup(process: (data: EnrichJobData) => Promise<string>, opts: { exclusive?: boolean } = {}) {
  prefix = `test-worker-${randomUUID()}`;
  queue = createEnrichQueue(redis, { prefix });
  worker = startEnrichWorker({
    connection: redis,
    queue,
    prefix,
    concurrency: 5,
    process: (data) => process(data),
    ...(opts.exclusive
      ? {
          exclusive: {
            redis,
            keyOf: (d: EnrichJobData) => `${prefix}:lock:${d.accountId}`,
            ttlMs: 10_000,
            retryDelayMs: 50,
          },
        }
      : {}),
  });
}

const data = (accountId: string): EnrichJobData => ({
  crm: 'hubspot',
  tenant: '1',
  accountId,
  trigger: 'webhook',
});

async function settle(count: number, timeoutMs = 15_000) {
  await eventually(
    async () => (await queue.getJobs(['completed', 'failed'])).length >= count,
    `${count} jobs`,
    {
      timeoutMs,
    },
  );
  return queue.getJobs(['completed', 'failed']);
}

describe('enrich worker', () => {
  it('never runs two jobs of one account at once, and runs both', async () => {
    const active = new Map<string, number>();
    let overlap = false;
    setup(
      async (d) => {
        const n = (active.get(d.accountId) ?? 0) + 1;
        active.set(d.accountId, n);
        if (n > 1) overlap = true;
        await new Promise((r) => setTimeout(r, 30));
        active.set(d.accountId, (active.get(d.accountId) ?? 1) - 1);
        return 'ok';
      },
      { exclusive: true },
    );
    await queue.addBulk(
      ['a', 'a', 'a', 'b'].map((id, i) => ({
        name: 'enrich',
        data: data(id),
        opts: enrichJobOptions('webhook', 1, `job-${id}-${i}`),
      })),
    );
    const done = await settle(4);
    expect(done.map((j) => j.returnvalue)).toEqual(['ok', 'ok', 'ok', 'ok']);
    expect(overlap).toBe(false);
  });

  it('an upstream 429 parks the queue without spending the only attempt', async () => {
    let calls = 0;
    setup(async () => {
      calls++;
      if (calls === 1)
        throw new RateLimitError('429', { operation: 'getBuyerAttributesBulk', retryAfterMs: 100 });
      return 'ok';
    });
    await queue.add('enrich', data('c'), enrichJobOptions('webhook', 1, 'job-c'));
    const [job] = await settle(1);
    expect(job?.returnvalue).toBe('ok');
    expect(calls).toBe(2);
  });

  it('a CRM tenant’s 429 delays only that job: another tenant’s job runs meanwhile', async () => {
    let limited = 0;
    let otherSawLimitedDelayed = false;
    setup(async (d) => {
      if (d.tenant === 'A' && limited++ === 0)
        throw new CrmRateLimitError('429', 1_500, 'TEN_SECONDLY_ROLLING');
      if (d.tenant === 'B') otherSawLimitedDelayed = (await queue.getJobState('job-a')) === 'delayed';
      return 'ok';
    });
    await queue.add('enrich', { ...data('a'), tenant: 'A' }, enrichJobOptions('webhook', 1, 'job-a'));
    await eventually(async () => (await queue.getJobState('job-a')) === 'delayed', 'job-a delayed', {
      intervalMs: 10,
    });
    await queue.add('enrich', { ...data('b'), tenant: 'B' }, enrichJobOptions('webhook', 1, 'job-b'));
    const done = await settle(2);
    expect(done.map((j) => j.returnvalue)).toEqual(['ok', 'ok']);
    expect(otherSawLimitedDelayed).toBe(true);
    expect(limited).toBe(2);
  });

  it('a permanent failure fails at once with its reason, and stays in the failed set', async () => {
    let calls = 0;
    setup(async () => {
      calls++;
      throw new AccountNotFoundError('404');
    });
    await queue.add('enrich', data('d'), enrichJobOptions('webhook', 5, 'job-d'));
    const [job] = await settle(1);
    expect(calls).toBe(1);
    expect(job?.failedReason).toContain('CRM account not found');
    expect(await queue.getFailedCount()).toBe(1);
  });

  it('a transient failure is retried', async () => {
    let calls = 0;
    setup(async () => {
      calls++;
      if (calls === 1) throw new Error('socket hang up');
      return 'ok';
    });
    await queue.add('enrich', data('e'), enrichJobOptions('webhook', 3, 'job-e'));
    const [job] = await settle(1);
    expect(job?.returnvalue).toBe('ok');
    expect(job?.attemptsMade).toBeGreaterThanOrEqual(1);
  });

  it('a job whose lock was lost twice (Redis away longer than the lock) runs again, not failed for good', async () => {
    let runs = 0;
    const held: (() => void)[] = [];
    setup(async () => {
      runs++;
      // The first two runs hang until their lock is gone and the job was taken back, as a worker
      // cut off from Redis would; the third finishes.
      if (runs <= 2) await new Promise<void>((resolve) => held.push(resolve));
      return 'ok';
    });
    await queue.add('enrich', data('stalls'), enrichJobOptions('webhook', 1, 'stalls'));
    try {
      for (let stall = 1; stall <= 2; stall++) {
        await eventually(() => runs === stall, `run ${stall} started`, { timeoutMs: 15_000 });
        await redis.del(`${prefix}:${queue.name}:stalls:lock`);
        await eventually(() => runs > stall, `run ${stall + 1} after the stall`, { timeoutMs: 30_000 });
      }
    } finally {
      for (const release of held) release();
    }
    const [job] = await settle(1, 30_000);
    expect(job?.failedReason).toBeUndefined();
    expect(job?.returnvalue).toBe('ok');
  }, 90_000);
});
