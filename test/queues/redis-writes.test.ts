// The service's Redis connections write the commands of one turn of the event loop together: one
// socket write for a chunk's dozens of commands instead of one each, every command still answered as
// its own and in order, on every connection the client opens (a reconnect's, each cluster node's).
// @redis-cluster: a cluster client's node connections are joined as it opens them.
import type { Duplex } from 'node:stream';
import type { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { createRedis } from '../../queues/redis.ts';
import { nodesOf } from '../../queues/redis-url.ts';
import { deleteKeysOf, ON_CLUSTER, REDIS_URL, testPrefix } from '../helpers/redis.ts';

const prefix = testPrefix('test-redis-writes');
const redis = createRedis(REDIS_URL, 'worker');
afterAll(async () => {
  await deleteKeysOf(redis, prefix);
  redis.disconnect();
});

/** Counts the socket writes of every connection the client has open (a node's, on a cluster). */
function countWrites(client: Redis): { writes: () => number } {
  let writes = 0;
  for (const node of nodesOf(client)) {
    const stream = node.stream as (Duplex & { _write: Duplex['_write'] }) | undefined;
    if (!stream) continue;
    const write = stream._write;
    const writev = stream._writev;
    stream._write = function (...args) {
      writes++;
      return write.apply(this, args);
    };
    if (writev)
      stream._writev = function (...args) {
        writes++;
        return writev.apply(this, args);
      };
  }
  return { writes: () => writes };
}

/** Forty commands in one turn: SETs, each followed by a GET of what it set. */
async function oneTurn(client: Redis, tag: string) {
  const keys = Array.from({ length: 20 }, (_, i) => `${prefix}:${tag}:${i}`);
  const answers = keys.flatMap((key, i) => [client.set(key, `v${i}`, 'PX', 60_000), client.get(key)]);
  return { keys, answers: await Promise.all(answers) };
}

describe('Redis writes of one turn', () => {
  it('leave in one socket write, each command answered as its own, in order', async () => {
    // The connection that holds the prefix's slot is open (a cluster opens a node's on its first command).
    await redis.get(`${prefix}:open`);
    const counted = countWrites(redis);
    const { keys, answers } = await oneTurn(redis, 'a');
    expect(answers).toEqual(keys.flatMap((_, i) => ['OK', `v${i}`]));
    expect(counted.writes()).toBe(1);
    // The next turn's commands are written in the next turn, not held back.
    expect(await redis.get(keys[3] as string)).toBe('v3');
    expect(counted.writes()).toBe(2);
  });

  it('of callbacks that run in the same turn (immediates here; replies and timers alike) leave in one write', async () => {
    await redis.get(`${prefix}:open`);
    const counted = countWrites(redis);
    // Both immediates run one after the other in the same check phase of the loop.
    const fire = (tag: string) =>
      new Promise<Awaited<ReturnType<typeof oneTurn>>>((resolve, reject) => {
        setImmediate(() => oneTurn(redis, tag).then(resolve, reject));
      });
    const [c, d] = await Promise.all([fire('c'), fire('d')]);
    expect(c.answers).toEqual(c.keys.flatMap((_, i) => ['OK', `v${i}`]));
    expect(d.answers).toEqual(d.keys.flatMap((_, i) => ['OK', `v${i}`]));
    expect(counted.writes()).toBe(1);
  });

  it.skipIf(ON_CLUSTER)('on the connection a reconnect opens too', async () => {
    const before = redis.stream;
    const ready = new Promise((resolve) => redis.once('ready', resolve));
    redis.disconnect(true);
    await ready;
    await redis.get(`${prefix}:open`);
    expect(redis.stream).not.toBe(before);
    const counted = countWrites(redis);
    const { answers } = await oneTurn(redis, 'b');
    expect(answers.filter((a) => a === 'OK')).toHaveLength(20);
    expect(counted.writes()).toBe(1);
  });
});
