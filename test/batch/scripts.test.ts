// The shared batch channel's two Redis steps are safe to run twice: ioredis re-sends a command whose
// answer a dropped connection lost (a Redis restart), and the second run must neither push the items
// again (a note sent twice) nor pop a second batch while the first one's answer is gone (items never
// sent, their jobs held until the deadline).
// @redis-cluster: also runs on a 3-master Redis Cluster (npm run test:cluster).
import { afterAll, describe, expect, it } from 'vitest';
import { batchScripts } from '../../src/batch/scripts.ts';
import { deleteKeysOf, testPrefix, testRedis } from '../helpers/redis.ts';

const redis = testRedis();
const base = testPrefix('test-batch-scripts');
const queue = `${base}:q`;
const slots = `${base}:slots`;
const scripts = batchScripts(redis);
const slot = { ttlMs: 10_000, maxInFlight: 2, maxBatch: 2, slotId: 's1', queueTtlMs: 60_000 };

afterAll(async () => {
  await deleteKeysOf(redis, base);
  await redis.quit();
});

describe('shared batch scripts, run twice by a re-sent command', () => {
  it('push: the same call answers the same batch and queues its items once', async () => {
    const first = await scripts.push(queue, slots, { ...slot, callId: 'p1' }, false, ['a', 'b', 'c']);
    const again = await scripts.push(queue, slots, { ...slot, callId: 'p1' }, false, ['a', 'b', 'c']);
    expect(first).toEqual(['a', 'b']);
    expect(again).toEqual(['a', 'b']);
    expect(await redis.lrange(queue, 0, -1)).toEqual(['c']);
  });

  it('next: the same call answers the same batch and pops nothing more; its answers go once', async () => {
    await redis.rpush(queue, 'd', 'e');
    const args = { ttlMs: 10_000, maxBatch: 2, slotId: 's1', replyTtlMs: 60_000, stop: false };
    const reply: [string, string][] = [[`${base}:reply:p`, 'answers']];
    const first = await scripts.next(queue, slots, { ...args, callId: 'n1' }, reply);
    const again = await scripts.next(queue, slots, { ...args, callId: 'n1' }, reply);
    expect(first).toEqual(['c', 'd']);
    expect(again).toEqual(['c', 'd']);
    expect(await redis.lrange(queue, 0, -1)).toEqual(['e']);
    expect(await redis.lrange(`${base}:reply:p`, 0, -1)).toEqual(['answers']);
    // A new call goes on where the first left off.
    expect(await scripts.next(queue, slots, { ...args, callId: 'n2' }, [])).toEqual(['e']);
    const last = await scripts.next(queue, slots, { ...args, callId: 'n3' }, []);
    expect(last).toBeNull();
    expect(await scripts.next(queue, slots, { ...args, callId: 'n3' }, [])).toBeNull();
  });
});
