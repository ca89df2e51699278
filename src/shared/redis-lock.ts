// The one Redis lock of the project: a key held by a unique owner with a TTL, taken when free or
// already the owner's (the same job run again after a stall, a resumed undo taking back what its
// killed process left), released only by its owner. The enrich worker's per-account lock, a real-time
// note's and an undo batch's lock on the same accounts, one digest run at a time, one token refresh
// at a time and the provider cache's leases all take and give back keys here.
// A free key is the usual case: one SET NX each (pipelined for many); only a held key asks the script
// whether it is ours. The keys given back at the same moment go in one script call (one MGET, one
// DEL; keys that share a prefix's hash tag are one slot on a Cluster). The scripts go by SHA
// (defineCommand: EVALSHA, the text only to a server that lacks it), not as text per call.
import { setTimeout as delay } from 'node:timers/promises';
import type { ChainableCommander, Redis } from 'ioredis';

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

/** Takes one key (free or already `owner`'s): whether it holds it now. */
export async function takeLock(redis: Redis, key: string, owner: string, ttlMs: number): Promise<boolean> {
  return (await takeLocks(redis, [key], owner, ttlMs))[0] === true;
}

/**
 * Takes what it can of `keys`, asking again every `pollMs` for those held by others until all are
 * held or `waitMs` has passed; says which it holds, in order. A poll, not a retry: nothing failed.
 */
export async function waitForLocks(
  redis: Redis,
  keys: readonly string[],
  owner: string,
  ttlMs: number,
  wait: { waitMs: number; pollMs: number },
): Promise<boolean[]> {
  const held = keys.map(() => false);
  const deadline = Date.now() + wait.waitMs;
  let waiting = keys.map((_, i) => i);
  while (waiting.length) {
    const taken = await takeLocks(
      redis,
      waiting.map((i) => keys[i] as string),
      owner,
      ttlMs,
    );
    for (const [j, i] of waiting.entries()) if (taken[j]) held[i] = true;
    waiting = waiting.filter((i) => !held[i]);
    if (!waiting.length || Date.now() >= deadline) break;
    await delay(wait.pollMs);
  }
  return held;
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
