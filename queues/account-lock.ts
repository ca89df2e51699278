// The enrich worker's per-account lock: one job per account at a time, so a creation job and a change
// job never write the same notes at once. A free key is the usual case: one SET NX each (pipelined for
// a chunk's accounts); only a held key asks the script whether it is ours (the same job re-run after a
// stall). Released only by its owner: the keys a chunk's accounts give back at the same moment in one
// script call (one MGET, one DEL; the keys share the prefix's hash tag, so one slot on a Cluster). The
// scripts go by SHA (defineCommand: EVALSHA, the text only to a server that lacks it), not as text.
import type { ChainableCommander, Redis } from 'ioredis';
import type { EnrichJobData } from './enrich-queue.ts';

export interface ExclusiveOptions {
  redis: Redis;
  keyOf: (data: EnrichJobData) => string;
  ttlMs: number;
  /** A job (or a chunk's account) that finds its account's key held runs again after this. */
  retryDelayMs: number;
}

const ACQUIRE = `local v = redis.call('GET', KEYS[1])
if v == false or v == ARGV[1] then return redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2]) end
return false`;
const RELEASE = `local held = redis.call('MGET', unpack(KEYS))
local mine = {}
for i = 1, #KEYS do
  if held[i] == ARGV[1] then mine[#mine + 1] = KEYS[i] end
end
if #mine == 0 then return 0 end
return redis.call('DEL', unpack(mine))`;

type Scripted = ChainableCommander & {
  bisLockAcquire(key: string, owner: string, ttlMs: string): ChainableCommander;
};
type Releasing = Redis & { bisLockRelease(...keysThenOwner: string[]): Promise<unknown> };

function scripted(redis: Redis): Redis {
  if (typeof (redis as unknown as { bisLockAcquire?: unknown }).bisLockAcquire !== 'function') {
    redis.defineCommand('bisLockAcquire', { numberOfKeys: 1, lua: ACQUIRE });
    redis.defineCommand('bisLockRelease', { lua: RELEASE });
  }
  return redis;
}

/** Takes each key that is free or already `owner`'s; says which it holds, in order. */
export async function takeLocks(
  redis: Redis,
  keys: readonly string[],
  owner: string,
  ttlMs: number,
): Promise<boolean[]> {
  const set = redis.pipeline();
  for (const key of keys) set.set(key, owner, 'PX', ttlMs, 'NX');
  const taken = ((await set.exec()) ?? []).map((r) => r[1] === 'OK');
  const held = keys.flatMap((key, i) => (taken[i] ? [] : [key]));
  if (!held.length) return taken;
  const ask = scripted(redis).pipeline() as Scripted;
  for (const key of held) ask.bisLockAcquire(key, owner, String(ttlMs));
  const ours = ((await ask.exec()) ?? []).map((r) => r[1] === 'OK');
  let j = 0;
  return taken.map((t) => t || ours[j++] === true);
}

/** Gives back the keys still `owner`'s, in one call. Never rejects: an unreleased key lapses by its TTL. */
export async function releaseLocks(redis: Redis, keys: readonly string[], owner: string): Promise<void> {
  if (!keys.length) return;
  await (scripted(redis) as Releasing)
    .bisLockRelease(String(keys.length), ...keys, owner)
    .catch(() => undefined);
}

/** A released key is given back this much later, with the others of its chunk released meanwhile. */
const RELEASE_LINGER_MS = 25;

/**
 * One owner's releases, those asked for within RELEASE_LINGER_MS (a chunk's accounts finish close
 * together, not in the same turn of the event loop) in one call. A key held those few ms longer only
 * delays another job of its account by as much.
 */
export function lockReleaser(redis: Redis, owner: string): (key: string) => Promise<void> {
  let keys: string[] = [];
  let flush: Promise<void> | undefined;
  return (key) => {
    keys.push(key);
    flush ??= new Promise<void>((later) => setTimeout(later, RELEASE_LINGER_MS)).then(() => {
      const batch = keys;
      keys = [];
      flush = undefined;
      return releaseLocks(redis, batch, owner);
    });
    return flush;
  };
}
