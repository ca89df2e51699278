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
const replyPrefix = `${base}:reply:`;
const slot = { ttlMs: 10_000, maxInFlight: 2, maxBatch: 2, slotId: 's1', queueTtlMs: 60_000, replyPrefix };

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
    const args = { ttlMs: 10_000, maxBatch: 2, slotId: 's1', replyTtlMs: 60_000, stop: false, replyPrefix };
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

describe('a sender that dies with a batch popped', () => {
  it('its items are answered as lost (transient) once its slot expires, not at their deadline', async () => {
    const q = `${base}:dead:q`;
    const sl = `${base}:dead:slots`;
    const item = (p: string, i: string) => JSON.stringify({ p, i, d: Date.now() + 60_000, v: 'note' });
    // The sender (slot 'dead', 300 ms without a heartbeat) pops the items of two processes, then dies.
    const dead = { ...slot, slotId: 'dead', ttlMs: 300, maxBatch: 10, callId: 'd1' };
    const popped = await scripts.push(q, sl, dead, false, [
      item('w1', '1'),
      item('w2', '7'),
      item('w1', '2'),
    ]);
    expect(popped).toHaveLength(3);
    expect(await redis.llen(`${replyPrefix}w1`)).toBe(0);

    // Another process's retake, after the slot's expiry, answers them.
    let n = 0;
    for (;;) {
      await scripts.push(q, sl, { ...slot, slotId: 'live', callId: `r${++n}` }, false, []);
      if ((await redis.llen(`${replyPrefix}w1`)) > 0 || n > 200) break;
      await new Promise((r) => setTimeout(r, 20));
    }
    const replies = async (p: string) =>
      (await redis.lrange(`${replyPrefix}${p}`, 0, -1)).flatMap((r) => JSON.parse(r) as unknown[]);
    expect(await replies('w1')).toEqual([
      ['1', 0, expect.objectContaining({ permanent: false, name: 'SharedBatchSenderLost' })],
      ['2', 0, expect.objectContaining({ permanent: false })],
    ]);
    expect(await replies('w2')).toEqual([['7', 0, expect.objectContaining({ permanent: false })]]);
  });

  it('a sender that answers its batch leaves nothing to answer as lost', async () => {
    const q = `${base}:ok:q`;
    const sl = `${base}:ok:slots`;
    const item = JSON.stringify({ p: 'w3', i: '1', d: Date.now() + 60_000, v: 'note' });
    const sender = { ...slot, slotId: 'ok', ttlMs: 300, maxBatch: 10 };
    expect(await scripts.push(q, sl, { ...sender, callId: 'o1' }, false, [item])).toHaveLength(1);
    const args = { ttlMs: 300, maxBatch: 10, slotId: 'ok', replyTtlMs: 60_000, stop: false, replyPrefix };
    expect(
      await scripts.next(q, sl, { ...args, callId: 'o2' }, [[`${replyPrefix}w3`, 'answers']]),
    ).toBeNull();
    await new Promise((r) => setTimeout(r, 400)); // past the slot's TTL: nothing of it is left to reap
    await scripts.push(q, sl, { ...slot, slotId: 'live', callId: 'o3' }, false, []);
    expect(await redis.lrange(`${replyPrefix}w3`, 0, -1)).toEqual(['answers']);
  });
});
