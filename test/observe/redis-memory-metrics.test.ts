// /metrics carries Redis's memory as INFO says it (used, maxmemory, evictions), read over the queues'
// own connection at scrape time: the "Redis memory" alert of docs/operations.md needs them, and a managed
// Redis rarely has an exporter beside it.
import { randomUUID } from 'node:crypto';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Metrics } from '../../src/observe/metrics.ts';
import { infoFields, memoryOf } from '../../src/observe/redis-memory.ts';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const prefix = `test-redis-memory-${randomUUID().slice(0, 8)}`;

let connection: Redis;
let queue: Queue;
let metrics: Metrics;

beforeAll(async () => {
  connection = new Redis(REDIS_URL, { maxRetriesPerRequest: null });
  queue = new Queue('enrich', { connection, prefix });
  metrics = new Metrics(() => [queue]);
});

afterAll(async () => {
  await queue.close();
  // Reading job counts writes nothing, but a key under the prefix would outlive the file otherwise.
  const keys = await connection.keys(`${prefix}:*`);
  if (keys.length) await connection.del(...keys);
  connection.disconnect();
});

/** The one value of an unlabelled metric, as a scrape would read it (undefined: no sample). */
async function scraped(name: string): Promise<number | undefined> {
  const metric = metrics.registry.getSingleMetric(name);
  if (!metric) throw new Error(`${name} is not registered`);
  return (await metric.get()).values[0]?.value;
}

describe('Redis memory on /metrics', () => {
  it('reports what INFO says of the Redis the queues use', async () => {
    const before = memoryOf(await connection.info());
    const used = await scraped('bis_redis_used_memory_bytes');
    const max = await scraped('bis_redis_maxmemory_bytes');
    const evicted = await scraped('bis_redis_evicted_keys_total');
    const after = memoryOf(await connection.info());
    expect(before).toBeDefined();
    // Used memory moves between two INFO calls; the scrape's figure lies between the two readings' range.
    expect(used).toBeGreaterThan(0);
    expect(used).toBeGreaterThanOrEqual(Math.min(before?.usedBytes ?? 0, after?.usedBytes ?? 0) * 0.5);
    expect(used).toBeLessThanOrEqual(Math.max(before?.usedBytes ?? 0, after?.usedBytes ?? 0) * 2);
    expect(max).toBe(after?.maxBytes);
    expect(evicted).toBe(after?.evictedKeys);
    // In the text a scrape returns, with the names the example alert rules use.
    const text = await metrics.registry.metrics();
    expect(text).toMatch(/^bis_redis_used_memory_bytes \d+$/m);
    expect(text).toMatch(/^bis_redis_maxmemory_bytes \d+$/m);
    expect(text).toMatch(/^bis_redis_evicted_keys_total \d+$/m);
  });

  it('reads used_memory, maxmemory and evicted_keys from an INFO answer, and nothing from none', () => {
    const info = [
      '# Memory',
      'used_memory:1048576',
      'used_memory_human:1.00M',
      'maxmemory:805306368',
      'maxmemory_policy:noeviction',
      '# Stats',
      'evicted_keys:3',
      '',
    ].join('\r\n');
    expect(memoryOf(info)).toEqual({ usedBytes: 1_048_576, maxBytes: 805_306_368, evictedKeys: 3 });
    expect(infoFields(info).get('maxmemory_policy')).toBe('noeviction');
    // No limit configured: 0, which the alert rule leaves out (it divides only by a maxmemory > 0).
    expect(memoryOf('used_memory:10\r\n')).toEqual({ usedBytes: 10, maxBytes: 0, evictedKeys: 0 });
    expect(memoryOf('')).toBeUndefined();
  });
});
