// What we wrote, kept in Redis: the last value we wrote per CRM field (so the `ours` policy can tell
// our value from a person's edit) and the note keys we know to be on an account (a fast path in front
// of asking the CRM, which stays the source of truth for notes).
import type { Redis } from 'ioredis';
import type { CrmKind } from '../../connectors/types.ts';

export interface AccountKey {
  crm: CrmKind;
  tenant: string;
  accountId: string;
}

export class Ledgers {
  readonly #redis: Redis;
  readonly #prefix: string;

  constructor(redis: Redis, prefix: string) {
    this.#redis = redis;
    this.#prefix = prefix;
  }

  #key(kind: string, a: AccountKey): string {
    return `${this.#prefix}:${kind}:${a.crm}:${a.tenant}:${a.accountId}`;
  }

  async writtenFields(account: AccountKey): Promise<Record<string, string>> {
    return this.#redis.hgetall(this.#key('fields', account));
  }

  async recordWrittenFields(account: AccountKey, values: Record<string, string>): Promise<void> {
    if (Object.keys(values).length) await this.#redis.hset(this.#key('fields', account), values);
  }

  /** The subset of `keys` known to be on the account already. */
  async knownNotes(account: AccountKey, keys: readonly string[]): Promise<Set<string>> {
    if (!keys.length) return new Set();
    const flags = await this.#redis.smismember(this.#key('notes', account), ...keys);
    return new Set(keys.filter((_, i) => flags[i] === 1));
  }

  async recordNotes(account: AccountKey, keys: readonly string[]): Promise<void> {
    if (keys.length) await this.#redis.sadd(this.#key('notes', account), ...keys);
  }
}
