// One writer per CRM account at a time. The enrich worker holds `${prefix}:lock:<crm>:<tenant>:<id>`
// while it runs an account; a real-time note for the same account takes the same lock (or the two could
// both find a note missing and both write it), and so does an undo's batch (or an enrichment could
// write between the undo's read of the CRM and its restore). The lock is the project's one
// (src/shared/redis-lock.ts), the enrich worker's too: a unique owner, released only by its owner.

import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { AccountRef } from '../../connectors/types.ts';
import { IntegrationError } from '../shared/errors.ts';
import { releaseLocks, waitForLocks } from '../shared/redis-lock.ts';

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
  const wait = { waitMs: options.waitMs ?? 30_000, pollMs: options.pollMs ?? 250 };
  return async (account, fn) => {
    const key = options.keyOf(account);
    const owner = `signal:${randomUUID()}`;
    const [held] = await waitForLocks(options.redis, [key], owner, ttlMs, wait);
    if (!held) throw new AccountBusyError(`account ${account.accountId} stayed locked`);
    try {
      return await fn();
    } finally {
      await releaseLocks(options.redis, [key], owner);
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
  const wait = { waitMs: options.waitMs ?? 30_000, pollMs: options.pollMs ?? 250 };
  return {
    async take(accounts, owner) {
      const keys = accounts.map(options.keyOf);
      const taken = await waitForLocks(options.redis, keys, owner, ttlMs, wait);
      const held = accounts.filter((_, i) => taken[i]);
      return {
        held,
        release: () =>
          releaseLocks(
            options.redis,
            keys.filter((_, i) => taken[i]),
            owner,
          ),
      };
    },
  };
}
