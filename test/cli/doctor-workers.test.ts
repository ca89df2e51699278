// doctor's workers check against a real Redis: a worker on the enrich queue passes; none with a job
// waiting fails (webhooks queue and nothing runs them); none and nothing waiting warns.
import { randomUUID } from 'node:crypto';
import { Worker } from 'bullmq';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { createEnrichQueue, ENRICH_QUEUE } from '../../queues/enrich-queue.ts';
import { checkWorkers } from '../../src/doctor/workers.ts';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const prefix = `test-doctor-workers-${randomUUID().slice(0, 8)}`;
const redis = new Redis(REDIS_URL, { maxRetriesPerRequest: null });

afterAll(async () => {
  const keys = await redis.keys(`${prefix}:*`);
  if (keys.length) await redis.del(...keys);
  redis.disconnect();
});

describe('doctor: workers', () => {
  it('warns with no worker and nothing waiting, fails with a job waiting, passes with a worker', async () => {
    expect(await checkWorkers(REDIS_URL, prefix, 5_000)).toMatchObject({ status: 'warn' });

    const queue = createEnrichQueue(redis, { prefix });
    await queue.add('enrich', { crm: 'hubspot', tenant: '1', accountId: '1', trigger: 'test' } as never);
    const none = await checkWorkers(REDIS_URL, prefix, 5_000);
    expect(none).toMatchObject({ status: 'fail', detail: expect.stringContaining('1 job waiting') });
    expect(none.detail).toContain('buyer-intel-sync worker');

    const worker = new Worker(ENRICH_QUEUE, async () => undefined, {
      connection: redis.duplicate(),
      prefix,
      autorun: false,
    });
    await worker.waitUntilReady();
    try {
      const one = await checkWorkers(REDIS_URL, prefix, 5_000);
      expect(one).toMatchObject({ status: 'pass', detail: expect.stringContaining('1 on enrich') });
    } finally {
      await worker.close();
      await queue.close();
    }
  });
});
