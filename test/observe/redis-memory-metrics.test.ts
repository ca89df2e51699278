// /metrics carries Redis's memory as INFO says it (used, maxmemory, evictions), read over the queues'
// own connection at scrape time: the "Redis memory" alert of docs/operations.md needs them, and a managed
// Redis rarely has an exporter beside it.
// @redis-cluster: every master is read, the fullest reported, the evictions summed.
import { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nodesOf } from '../../queues/redis-url.ts';
import { Metrics } from '../../src/observe/metrics.ts';
import { infoFields, memoryOf, type RedisMemory } from '../../src/observe/redis-memory.ts';
import { deleteKeysOf, testPrefix, testRedis } from '../helpers/redis.ts';

const prefix = testPrefix('test-redis-memory');

let connection: Redis;
let queue: Queue;
let metrics: Metrics;

beforeAll(async () => {
  connection = testRedis();
  await connection.ping(); // a cluster client lists its nodes once connected
  queue = new Queue('enrich', { connection, prefix });
  metrics = new Metrics(() => [queue]);
});

afterAll(async () => {
  await queue.close();
  // Reading job counts writes nothing, but a key under the prefix would outlive the file otherwise.
  await deleteKeysOf(connection, prefix);
  connection.disconnect();
});

/** What each master's INFO says now. */
const readings = async (): Promise<RedisMemory[]> =>
  (await Promise.all(nodesOf(connection).map(async (node) => memoryOf(await node.info())))).filter(
    (m): m is RedisMemory => m !== undefined,
  );

/** The one value of an unlabelled metric, as a scrape would read it (undefined: no sample). */
async function scraped(name: string): Promise<number | undefined> {
  const metric = metrics.registry.getSingleMetric(name);
  if (!metric) throw new Error(`${name} is not registered`);
  return (await metric.get()).values[0]?.value;
}

describe('Redis memory on /metrics', () => {
  it('reports what INFO says of the Redis the queues use', async () => {
    const before = await readings();
    const used = await scraped('bis_redis_used_memory_bytes');
    const max = await scraped('bis_redis_maxmemory_bytes');
    const evicted = await scraped('bis_redis_evicted_keys_total');
    const after = await readings();
    expect(before.length).toBeGreaterThan(0);
    // Used memory moves between two INFO calls: the scrape's figure is one node's, within their range.
    const all = [...before, ...after].map((m) => m.usedBytes);
    expect(used).toBeGreaterThan(0);
    expect(used).toBeGreaterThanOrEqual(Math.min(...all) * 0.5);
    expect(used).toBeLessThanOrEqual(Math.max(...all) * 2);
    expect(after.map((m) => m.maxBytes)).toContain(max);
    expect(evicted).toBe(after.reduce((n, m) => n + m.evictedKeys, 0));
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
