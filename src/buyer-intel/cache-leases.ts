// The shared cache's leases (cache.ts): a process about to call upstream for a key takes a lease in the
// answer's own key, and the other processes wait for its answer instead of calling too.
//
// A lease must lapse when its holder dies, and a call may wait long in the provider's pace (at 10
// requests/s with a worker's 200 accounts in flight, ~20 s). Renewing each lease while its call waits
// cost a command per lease per second: at that pace 20 Redis commands per account of a backfill, a
// third of all it sent. So a lease says who holds it, lasts as long as a waiter would wait on it anyway,
// and the holder's liveness is one key per process (`~alive:<holder>`), set while it holds any lease
// and renewed every `leaseMs / 2` (a lease taken within a half lease of the last renewal sets nothing):
// one command per 3 s per process with the cache's default, whatever it holds. A waiter that
// finds the holder's key gone (its process died, or it ran a version without it) drops the lease and
// takes it.
import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import { releaseLocks } from '../shared/redis-lock.ts';

/** A key holding this, then the holder's id and a token, is a lease: that process is calling upstream. */
export const LEASE = '~lease:';

/** Deletes the lease only when it is still the one given. */

export interface CacheLeases {
  /** Takes the lease in `key` (SET NX): its value when this process holds it now, else null. */
  take(key: string): Promise<string | null>;
  /** The call is over: the answer replaced the lease (`stored`), or the lease goes now. */
  done(key: string, lease: string, stored: boolean): Promise<void>;
  /** The key of the process holding `lease` (read with the lease's key in one MGET). */
  holderKeyOf(lease: string): string;
  /** The holder's key was gone: drops its lease (only while it is still that one). */
  drop(key: string, lease: string): Promise<void>;
}

export function cacheLeases(options: {
  client: Redis;
  prefix: string;
  /** How long the holder's key lasts without a renewal (renewed every half of it). */
  leaseMs: number;
  /** How long a lease lasts in its key: as long as a waiter would wait on it. */
  holdMs: number;
}): CacheLeases {
  const { client, prefix, leaseMs, holdMs } = options;
  const holder = randomUUID();
  const aliveKey = (id: string) => `${prefix}~alive:${id}`;
  let held = 0;
  let beat: NodeJS.Timeout | undefined;
  const every = Math.max(10, Math.floor(leaseMs / 2));
  /** When the key was last set (sent); it lives leaseMs from then. */
  let renewedAt = Number.NEGATIVE_INFINITY;
  const renew = () => {
    renewedAt = performance.now();
    return client.set(aliveKey(holder), '1', 'PX', leaseMs).catch(() => {
      renewedAt = Number.NEGATIVE_INFINITY;
    });
  };
  // A process blocked longer than leaseMs (a long pause on a loaded machine) may lose its key: a
  // waiter then calls upstream itself, a call more and nothing worse.
  const hold = () => {
    if (held++ > 0) return;
    // A key set within the last half lease still lives that long: a process whose leases come and go
    // (a miss now and then) sets it once per half lease, not once per first lease. Otherwise it is
    // sent before the lease, on the same connection: a waiter that sees the lease finds the key.
    const since = performance.now() - renewedAt;
    if (since >= every) void renew();
    // Then every half lease from the last renewal (clearInterval clears either timer).
    beat = setTimeout(
      () => {
        void renew();
        beat = setInterval(renew, every);
        beat.unref();
      },
      since >= every ? every : every - since,
    );
    beat.unref();
  };
  const unhold = () => {
    if (--held > 0) return;
    clearInterval(beat);
    beat = undefined;
  };
  return {
    async take(key) {
      const lease = `${LEASE}${holder}:${randomUUID().slice(0, 8)}`;
      hold();
      // A failed Redis counts as taken: the call goes upstream, as without Redis.
      const taken = await client.set(key, lease, 'PX', holdMs, 'NX').catch(() => 'OK');
      if (taken === 'OK') return lease;
      unhold();
      return null;
    },
    async done(key, lease, stored) {
      unhold();
      if (!stored) await releaseLocks(client, [key], lease);
    },
    holderKeyOf(lease) {
      const id = lease.slice(LEASE.length, lease.lastIndexOf(':'));
      return aliveKey(id);
    },
    async drop(key, lease) {
      await releaseLocks(client, [key], lease);
    },
  };
}
