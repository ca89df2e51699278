// The enrich worker's per-account locks on a real Redis: a chunk's accounts give back, in one call,
// only the keys still their own; a key another job took after it lapsed stays that job's.
// @redis-cluster: a release is one script over many keys, which share the prefix's hash tag (one slot).
import { afterAll, describe, expect, it } from 'vitest';
import { lockReleaser, takeLocks } from '../../src/shared/redis-lock.ts';
import { deleteKeysOf, testPrefix, testRedis } from '../helpers/redis.ts';

const redis = testRedis();
const prefix = testPrefix('test-account-lock');
afterAll(async () => {
  await deleteKeysOf(redis, prefix);
  redis.disconnect();
});

describe('account locks', () => {
  it('releases the keys a chunk still holds, together, and leaves another job’s key alone', async () => {
    const keys = Array.from({ length: 5 }, (_, i) => `${prefix}:lock:hubspot:1:${i}`);
    expect(await takeLocks(redis, keys, 'job:chunk', 60_000)).toEqual([true, true, true, true, true]);
    // One key lapsed and another job took it.
    await redis.set(keys[4] as string, 'job:other', 'PX', 60_000);
    // The same job run again (after a stall) holds its own keys still; another job does not get them.
    expect(await takeLocks(redis, keys.slice(0, 2), 'job:chunk', 60_000)).toEqual([true, true]);
    expect(await takeLocks(redis, keys.slice(0, 1), 'job:late', 60_000)).toEqual([false]);
    const release = lockReleaser(redis, 'job:chunk');
    await Promise.all(keys.map((key) => release(key)));
    expect(await redis.mget(keys)).toEqual([null, null, null, null, 'job:other']);
    expect(await takeLocks(redis, keys.slice(0, 1), 'job:late', 60_000)).toEqual([true]);
  });
});
