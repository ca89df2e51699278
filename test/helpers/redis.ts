// The Redis of the tests, as the service reads it: REDIS_URL may name a Redis Cluster (`?cluster=true`,
// the cluster-tagged part of the suite: `npm run test:cluster`). A test's prefix is a hash tag, so its
// keys share one slot as the product's do (REDIS_PREFIX `{bis}`), and it cleans up on every master.
import { randomUUID } from 'node:crypto';
import type { Redis, RedisOptions } from 'ioredis';
import { nodesOf, redisClient, redisTarget } from '../../queues/redis-url.ts';
import { onRelease } from './release.ts';

export const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
export const ON_CLUSTER = redisTarget(REDIS_URL).cluster;

/** The prefixes handed out to the running file, whose keys go after it. */
const handedOut = new Set<string>();

/**
 * `{<name>-<8 hex>}`: unique to the test file, one slot on a cluster. Its keys are deleted after the
 * file (test/helpers/release.ts), whether or not the file deletes them itself: files that did not
 * left ~880 keys in a developer's Redis over a day of runs.
 */
export const testPrefix = (name: string): string => {
  const prefix = `{${name}-${randomUUID().slice(0, 8)}}`;
  if (handedOut.size === 0) onRelease(deleteHandedOut);
  handedOut.add(prefix);
  return prefix;
};

/**
 * Deletes the keys of every prefix handed out, on a client that gives up at once where no Redis
 * answers (a unit file's REDIS_URL names nowhere): a cleanup must not hold the run.
 */
async function deleteHandedOut(): Promise<void> {
  const prefixes = [...handedOut];
  handedOut.clear();
  const redis = testRedis({ maxRetriesPerRequest: 1, connectTimeout: 2_000, retryStrategy: () => null });
  try {
    for (const prefix of prefixes) await deleteKeysOf(redis, prefix);
  } catch {
    // Nothing to delete where nothing answers; a Redis that went away took the keys with it.
  } finally {
    redis.disconnect();
  }
}

/** A client of REDIS_URL (a cluster's, typed as a Redis), never giving up on a command by default. */
export function testRedis(options: RedisOptions = {}): Redis {
  const redis = redisClient(REDIS_URL, { maxRetriesPerRequest: null, ...options });
  // A failure shows in the command that met it; the event alone would be an unhandled 'error'.
  redis.on('error', () => undefined);
  return redis;
}

/** Every key under `prefix`, from every master (KEYS on a cluster client asks one node only). */
export async function keysOf(redis: Redis, prefix: string): Promise<string[]> {
  const pattern = `${prefix.replace(/[{}[\]*?\\]/g, '\\$&')}:*`;
  await redis.ping(); // a cluster client lists its nodes once it has connected
  return (await Promise.all(nodesOf(redis).map((node) => node.keys(pattern)))).flat();
}

/** Deletes every key under `prefix` (a hash-tagged prefix keeps them in one slot: one DEL). */
export async function deleteKeysOf(redis: Redis, prefix: string): Promise<void> {
  const keys = await keysOf(redis, prefix);
  for (let i = 0; i < keys.length; i += 500) await redis.del(...keys.slice(i, i + 500));
}

/** The URL of the node that holds `prefix`'s keys (REDIS_URL itself unless on a cluster), e.g. for MONITOR. */
export async function nodeUrlOf(prefix: string): Promise<string> {
  if (!ON_CLUSTER) return REDIS_URL;
  const redis = testRedis();
  try {
    const slot = Number(await redis.call('CLUSTER', 'KEYSLOT', `${prefix}:x`));
    const ranges = (await redis.call('CLUSTER', 'SLOTS')) as [number, number, [string, number]][];
    const [, , [host, port]] = ranges.find(([from, to]) => slot >= from && slot <= to) ?? [0, 0, ['', 0]];
    const url = new URL(REDIS_URL);
    url.hostname = host;
    url.port = String(port);
    url.search = '';
    return url.toString();
  } finally {
    redis.disconnect();
  }
}
