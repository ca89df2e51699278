// One writer per CRM account at a time. The enrich worker holds `${prefix}:lock:<crm>:<tenant>:<id>`
// while it runs an account; a real-time note for the same account takes the same lock (or the two could
// both find a note missing and both write it), and so does an undo's batch (or an enrichment could
// write between the undo's read of the CRM and its restore). Same protocol as queues/enrich-worker.ts: SET PX with a
// unique owner, released only by its owner.

import { randomUUID } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';
import type { Redis } from 'ioredis';
import type { AccountRef } from '../../connectors/types.ts';
import { IntegrationError } from '../shared/errors.ts';

export type AccountLock = <T>(account: AccountRef, fn: () => Promise<T>) => Promise<T>;

/** The enrich worker's lock key of an account. */
export const accountLockKey = (prefix: string, a: AccountRef): string =>
  `${prefix}:lock:${a.crm}:${a.tenant}:${a.accountId}`;

/**
 * Many accounts at once (an undo's batch): `take` waits up to `waitMs` for each to be free (or already
 * `owner`'s: a resumed undo run takes back the locks its killed process left) and hands back those it
 * holds — an account still being enriched after that is left out, for the caller to do later;
 * `release` frees what it took.
 */
export interface AccountLocks {
  take<A extends AccountRef>(
    accounts: readonly A[],
    owner: string,
  ): Promise<{ held: A[]; release(): Promise<void> }>;
}

const ACQUIRE = `local v = redis.call('GET', KEYS[1])
if v == false or v == ARGV[1] then return redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2]) end
return false`;
const RELEASE = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0`;

/** The account is busy for longer than we wait: the job retries later. */
export class AccountBusyError extends IntegrationError {
  constructor(message: string) {
    super(message, { permanent: false });
  }
}

export function redisAccountLock(options: {
  redis: Redis;
  /** The enrich worker's key, e.g. `${prefix}:lock:${crm}:${tenant}:${accountId}`. */
  keyOf: (account: AccountRef) => string;
  ttlMs?: number;
  waitMs?: number;
  pollMs?: number;
}): AccountLock {
  const ttlMs = options.ttlMs ?? 60_000;
  const waitMs = options.waitMs ?? 30_000;
  const pollMs = options.pollMs ?? 250;
  return async (account, fn) => {
    const key = options.keyOf(account);
    const owner = `signal:${randomUUID()}`;
    const deadline = Date.now() + waitMs;
    while ((await options.redis.eval(ACQUIRE, 1, key, owner, String(ttlMs))) !== 'OK') {
      if (Date.now() >= deadline) throw new AccountBusyError(`account ${account.accountId} stayed locked`);
      await delay(pollMs);
    }
    try {
      return await fn();
    } finally {
      await options.redis.eval(RELEASE, 1, key, owner).catch(() => undefined);
    }
  };
}

export function redisAccountLocks(options: {
  redis: Redis;
  keyOf: (account: AccountRef) => string;
  ttlMs?: number;
  waitMs?: number;
  pollMs?: number;
}): AccountLocks {
  const ttlMs = options.ttlMs ?? 120_000;
  const waitMs = options.waitMs ?? 30_000;
  const pollMs = options.pollMs ?? 250;
  return {
    async take(accounts, owner) {
      const held: (typeof accounts)[number][] = [];
      let waiting = [...accounts];
      const deadline = Date.now() + waitMs;
      for (;;) {
        const pipe = options.redis.pipeline();
        for (const a of waiting) pipe.eval(ACQUIRE, 1, options.keyOf(a), owner, String(ttlMs));
        const answers = (await pipe.exec()) ?? [];
        const still: typeof waiting = [];
        waiting.forEach((a, i) => {
          (answers[i]?.[1] === 'OK' ? held : still).push(a);
        });
        waiting = still;
        if (!waiting.length || Date.now() >= deadline) break;
        await delay(pollMs);
      }
      return {
        held,
        async release() {
          const pipe = options.redis.pipeline();
          for (const a of held) pipe.eval(RELEASE, 1, options.keyOf(a), owner);
          await pipe.exec().catch(() => undefined);
        },
      };
    },
  };
}
