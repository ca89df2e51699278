// One writer of notes per CRM account at a time. The enrich worker holds `${prefix}:lock:<crm>:<tenant>:<id>`
// while it runs an account; a real-time note for the same account takes the same lock, or the two could
// both find a note missing and both write it. Same protocol as queues/enrich-worker.ts: SET PX with a
// unique owner, released only by its owner.
import { randomUUID } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';
import type { Redis } from 'ioredis';
import { IntegrationError } from '../shared/errors.ts';
import type { AccountKey } from '../write/ledgers.ts';

export type AccountLock = <T>(account: AccountKey, fn: () => Promise<T>) => Promise<T>;

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
  keyOf: (account: AccountKey) => string;
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
