// What we wrote, kept in Redis: the last value we wrote per CRM field (so the `ours` policy can tell
// our value from a person's edit) — a cache of the store's write history, rebuilt from it when Redis
// lost it, so losing Redis loses no decision about what is ours —, the note keys we know to be on an account (a fast path in front
// of asking the CRM, which stays the source of truth for notes), and which buyer each enriched account
// matched, both ways (digests walk the accounts; a provider webhook names a buyer and needs its accounts).

import type { Redis } from 'ioredis';
import { isCrmKind } from '../../connectors/registry.ts';
import type { CrmKind } from '../../connectors/types.ts';

export interface AccountKey {
  crm: CrmKind;
  tenant: string;
  accountId: string;
}

/** The store's memory of what we wrote (src/store/write-history.ts): one statement per account. */
export interface WrittenFieldsSource {
  lastWritten(account: AccountKey): Promise<Record<string, string>>;
}

// The written values first; then the account's buyer, when it changed: off the previous buyer's set,
// onto the new one's. A buyer's set key is ARGV[3] .. buyer id (ids are known only here).
const RECORD_MATCH = `if #ARGV > 3 then redis.call('HSET', KEYS[1], unpack(ARGV, 4)) end
local previous = redis.call('HGET', KEYS[2], ARGV[1])
if (previous or '') == ARGV[2] then return 0 end
if previous then redis.call('SREM', ARGV[3] .. previous, ARGV[1]) end
if ARGV[2] == '' then redis.call('HDEL', KEYS[2], ARGV[1])
else
  redis.call('HSET', KEYS[2], ARGV[1], ARGV[2])
  redis.call('SADD', ARGV[3] .. ARGV[2], ARGV[1])
end
return 1`;

/** Marks a cached hash as loaded from the history (no CRM field name holds a '#'). */
const LOADED = '#from-history';

export class Ledgers {
  readonly #redis: Redis;
  readonly #prefix: string;
  readonly #history: WrittenFieldsSource | undefined;

  constructor(redis: Redis, prefix: string, options: { history?: WrittenFieldsSource | undefined } = {}) {
    this.#redis = redis;
    this.#prefix = prefix;
    this.#history = options.history;
  }

  #key(kind: string, a: AccountKey): string {
    return `${this.#prefix}:${kind}:${a.crm}:${a.tenant}:${a.accountId}`;
  }

  /**
   * The last value we wrote per field. From Redis when it holds the account's hash as loaded from the
   * history; otherwise from the history (one query), cached for the next job. Values only Redis knows
   * (written before the history existed) are kept under the history's.
   */
  async writtenFields(account: AccountKey): Promise<Record<string, string>> {
    const key = this.#key('fields', account);
    const cached = await this.#redis.hgetall(key);
    const loaded = cached[LOADED] !== undefined;
    delete cached[LOADED];
    if (loaded || !this.#history) return cached;
    const written = { ...cached, ...(await this.#history.lastWritten(account)) };
    await this.#redis.hset(key, { ...written, [LOADED]: '1' });
    return written;
  }

  /** Drops the cached values (after the history changed behind them, e.g. an undo): rebuilt on next read. */
  async forgetWrittenFields(account: AccountKey): Promise<void> {
    await this.#redis.del(this.#key('fields', account));
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

  /** The notes are gone from the account (an undo removed them): an enrichment may create them again. */
  async forgetNotes(account: AccountKey, keys: readonly string[]): Promise<void> {
    if (keys.length) await this.#redis.srem(this.#key('notes', account), ...keys);
  }

  get #matchesKey(): string {
    return `${this.#prefix}:matches`;
  }

  #buyerKey(buyerId: string): string {
    return `${this.#prefix}:buyer-accounts:${buyerId}`;
  }

  /**
   * Records the account's buyer (null: it matches none now), moving it off a previous buyer; with
   * `written`, also the values a job just wrote (as recordWrittenFields). One round trip: a job ends
   * with this.
   */
  async recordMatch(
    account: AccountKey,
    buyerId: string | null,
    written: Record<string, string> = {},
  ): Promise<void> {
    await this.#redis.eval(
      RECORD_MATCH,
      2,
      this.#key('fields', account),
      this.#matchesKey,
      accountMember(account),
      buyerId ?? '',
      this.#buyerKey(''),
      ...Object.entries(written).flat(),
    );
  }

  async buyerOf(account: AccountKey): Promise<string | null> {
    return this.#redis.hget(this.#matchesKey, accountMember(account));
  }

  /** The accounts matched to a buyer, across CRMs and tenants. */
  async accountsOfBuyer(buyerId: string): Promise<AccountKey[]> {
    const members = await this.#redis.smembers(this.#buyerKey(buyerId));
    return members.flatMap((m) => parseAccountMember(m) ?? []);
  }

  /** Every matched account with its buyer, a page at a time (HSCAN: safe on a large install). */
  async *matchedAccounts(count = 500): AsyncGenerator<{ account: AccountKey; buyerId: string }[]> {
    let cursor = '0';
    do {
      const [next, flat] = await this.#redis.hscan(this.#matchesKey, cursor, 'COUNT', count);
      cursor = next;
      const page: { account: AccountKey; buyerId: string }[] = [];
      for (let i = 0; i + 1 < flat.length; i += 2) {
        const account = parseAccountMember(flat[i] ?? '');
        if (account) page.push({ account, buyerId: flat[i + 1] ?? '' });
      }
      if (page.length) yield page;
    } while (cursor !== '0');
  }
}

/** `crm|tenant|accountId`: none of the three ever holds a `|`. */
function accountMember(a: AccountKey): string {
  return `${a.crm}|${a.tenant}|${a.accountId}`;
}

function parseAccountMember(member: string): AccountKey | null {
  const [crm, tenant, accountId] = member.split('|');
  if (!crm || !tenant || !accountId || !isCrmKind(crm)) return null;
  return { crm, tenant, accountId };
}
