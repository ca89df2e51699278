// Size: one class for what a job reads and records of its own writes, so that each account's keys are
// named in one place (#key); the match index's batched script is in record-matches.ts.
// The last value we wrote per CRM field (so the `ours` policy can tell our value from a person's edit)
// is read from the store's write history, the system of record — a chunk's accounts in one statement —
// and kept nowhere else: a copy in Redis cost two commands per account and could disagree with the
// history (an undo, a write settled later). Kept in Redis: the note keys we know to be on an account
// (in front of asking the CRM, which stays the source of truth: only a set marked complete, with no
// note pending, answers alone), and which buyer each enriched account matched, both ways (digests walk
// the accounts; a provider webhook names a buyer and needs its accounts) — an index of the store's
// outcomes, rebuilt from them when Redis lost it.

import type { Redis } from 'ioredis';
import { isCrmKind } from '../../connectors/registry.ts';
import type { AccountRef, CrmKind } from '../../connectors/types.ts';
import { noteClaimKey } from './note-claims.ts';
import { type MatchRecord, matchRecorder } from './record-matches.ts';

/** The store's memory of what we wrote (src/store/write-history.ts): one statement per account. */
export interface WrittenFieldsSource {
  lastWritten(account: AccountRef): Promise<Record<string, string>>;
  /** The same for several accounts of one tenant in one statement; absent accounts hold nothing. */
  lastWrittenMany?(
    crm: CrmKind,
    tenant: string,
    accountIds: readonly string[],
  ): Promise<Map<string, Record<string, string>>>;
}

/**
 * Marks an account's notes set as holding every key the CRM has (no note key starts with '#'): read
 * from the CRM once, and every note we create recorded since. Redis losing the set loses the mark too.
 */
const COMPLETE = '#complete';
/** A note about to be created and not yet recorded: its key is not known either way. */
const pendingOf = (noteKey: string) => `#pending:${noteKey}`;

export interface NoteKnowledge {
  /** The keys asked about that are on the account. */
  known: Set<string>;
  /** The others are not on the account: no need to ask the CRM. */
  complete: boolean;
}

/** The store's record of each matched account's buyer, a page at a time (src/store/matched.ts). */
export type MatchesSource = () => AsyncIterable<{ account: AccountRef; buyerId: string }[]>;

/** Marks the matches hash as rebuilt from the store (no `crm|tenant|id` member starts with '#'). */
const REBUILT = '#from-store';

export class Ledgers {
  readonly #redis: Redis;
  readonly #prefix: string;
  readonly #history: WrittenFieldsSource | undefined;
  readonly #matches: MatchesSource | undefined;
  #rebuilding: Promise<void> | undefined;
  readonly #recordMatch: (record: MatchRecord) => Promise<void>;
  /** What a chunk's accounts wrote, by account member, read ahead in one statement; each taken once. */
  readonly #ahead = new Map<string, Promise<Record<string, string> | undefined>>();

  constructor(
    redis: Redis,
    prefix: string,
    options: { history?: WrittenFieldsSource | undefined; matches?: MatchesSource | undefined } = {},
  ) {
    this.#redis = redis;
    this.#prefix = prefix;
    this.#recordMatch = matchRecorder(redis, this.#matchesKey, this.#buyerKey(''));
    this.#history = options.history;
    this.#matches = options.matches;
  }

  /**
   * The index of matched accounts is a cache of the store's outcomes: when Redis lost it (no marker),
   * it is filled from the store before it is read, so a flushed Redis skips no digest or signal.
   */
  async #ensureMatches(): Promise<void> {
    const source = this.#matches;
    if (!source || (await this.#redis.hexists(this.#matchesKey, REBUILT))) return;
    this.#rebuilding ??= (async () => {
      for await (const page of source()) {
        const fill = this.#redis.pipeline();
        for (const { account, buyerId } of page) {
          fill.hset(this.#matchesKey, accountMember(account), buyerId);
          fill.sadd(this.#buyerKey(buyerId), accountMember(account));
        }
        await fill.exec();
      }
      await this.#redis.hset(this.#matchesKey, REBUILT, new Date().toISOString());
    })().finally(() => {
      this.#rebuilding = undefined;
    });
    await this.#rebuilding;
  }

  #key(kind: string, a: AccountRef): string {
    return `${this.#prefix}:${kind}:${a.crm}:${a.tenant}:${a.accountId}`;
  }

  /** The last value we wrote per field, as the history holds it (none without a history). */
  async writtenFields(account: AccountRef): Promise<Record<string, string>> {
    const key = accountMember(account);
    const ahead = this.#ahead.get(key);
    if (ahead) {
      this.#ahead.delete(key);
      const loaded = await ahead;
      if (loaded) return { ...loaded };
    }
    return (await this.#history?.lastWritten(account)) ?? {};
  }

  /**
   * Reads what we wrote on several accounts of one tenant at once (the accounts of a chunk that start
   * together, their locks held: no other job writes them meanwhile) in one statement; each account's
   * `writtenFields` then takes its values from here, once. Never rejects: an account whose read
   * failed reads alone.
   */
  async preloadWrittenFields(crm: CrmKind, tenant: string, accountIds: readonly string[]): Promise<void> {
    const history = this.#history;
    if (!accountIds.length || !history) return;
    const loading = history.lastWrittenMany
      ? history.lastWrittenMany(crm, tenant, accountIds)
      : Promise.all(
          accountIds.map(
            async (id) => [id, await history.lastWritten({ crm, tenant, accountId: id })] as const,
          ),
        ).then((pairs) => new Map(pairs));
    // A long-lived worker's accounts that never read theirs (handed off) do not pile up.
    if (this.#ahead.size > 10_000) this.#ahead.clear();
    for (const accountId of accountIds)
      this.#ahead.set(
        accountMember({ crm, tenant, accountId }),
        loading.then((m) => m.get(accountId) ?? {}).catch(() => undefined),
      );
    await loading.catch(() => undefined);
  }

  /** Drops what `preloadWrittenFields` read for the account and its job did not take. */
  forgetPreloaded(account: AccountRef): void {
    this.#ahead.delete(accountMember(account));
  }

  /** The subset of `keys` known to be on the account already. */
  async knownNotes(account: AccountRef, keys: readonly string[]): Promise<Set<string>> {
    return (await this.noteKnowledge(account, keys)).known;
  }

  /**
   * The subset of `keys` known to be on the account, and whether the set answers for the others too:
   * `complete` when the CRM's keys were recorded in full and none of the others may have been created
   * unrecorded (a pending marker). One command.
   */
  async noteKnowledge(account: AccountRef, keys: readonly string[]): Promise<NoteKnowledge> {
    if (!keys.length) return { known: new Set(), complete: true };
    const flags = await this.#redis.smismember(
      this.#key('notes', account),
      COMPLETE,
      ...keys,
      ...keys.map(pendingOf),
    );
    const known = new Set(keys.filter((_, i) => flags[i + 1] === 1));
    const pending = keys.some((k, i) => !known.has(k) && flags[i + 1 + keys.length] === 1);
    return { known, complete: flags[0] === 1 && !pending };
  }

  /** Whether the account's note keys were read from the CRM in full (no key asked about: one command). */
  async notesComplete(account: AccountRef): Promise<boolean> {
    return (await this.#redis.sismember(this.#key('notes', account), COMPLETE)) === 1;
  }

  /**
   * The CRM's keys for the account, read in full: recorded, and the set marked complete. `creating`:
   * keys about to be created (their pending markers, write-ahead); `settled`: keys the CRM answered for
   * whose pending markers can go. One round trip.
   */
  async recordCrmNotes(
    account: AccountRef,
    crmKeys: readonly string[],
    options: { creating?: readonly string[]; settled?: readonly string[] } = {},
  ): Promise<void> {
    const key = this.#key('notes', account);
    const creating = options.creating ?? [];
    const settled = (options.settled ?? []).filter((k) => !creating.includes(k));
    const added = [...crmKeys, COMPLETE, ...creating.map(pendingOf)];
    if (!settled.length) {
      await this.#redis.sadd(key, ...added);
      return;
    }
    await this.#redis
      .pipeline()
      .sadd(key, ...added)
      .srem(key, ...settled.map(pendingOf))
      .exec();
  }

  /**
   * Write-ahead: these notes are about to be created. Until `recordNotes` records them, the set does not
   * answer for them alone (a crash in between sends the next job to the CRM, not into a duplicate).
   */
  async notesPending(account: AccountRef, keys: readonly string[]): Promise<void> {
    if (keys.length) await this.#redis.sadd(this.#key('notes', account), ...keys.map(pendingOf));
  }

  /** The notes are on the account. A key recorded outweighs its pending marker (no removal needed). */
  async recordNotes(account: AccountRef, keys: readonly string[]): Promise<void> {
    if (keys.length) await this.#redis.sadd(this.#key('notes', account), ...keys);
  }

  /**
   * The notes are gone from the account (an undo removed them): an enrichment may create them again.
   * The set stays complete: those notes are not on the CRM any more.
   */
  async forgetNotes(account: AccountRef, keys: readonly string[]): Promise<void> {
    if (!keys.length) return;
    // Their claims go too (note-claims.ts): a note made minutes ago and undone may be made again now.
    const claims = keys.map((dedupeKey) =>
      noteClaimKey(this.#prefix, account.crm, account.tenant, { accountId: account.accountId, dedupeKey }),
    );
    await this.#redis
      .pipeline()
      .srem(this.#key('notes', account), ...keys, ...keys.map(pendingOf))
      .del(...claims)
      .exec();
  }

  get #matchesKey(): string {
    return `${this.#prefix}:matches`;
  }

  #buyerKey(buyerId: string): string {
    return `${this.#prefix}:buyer-accounts:${buyerId}`;
  }

  /**
   * Records the account's buyer (null: it matches none now), moving it off a previous buyer. A job ends
   * with this; jobs ending at the same moment share one script call (record-matches.ts).
   */
  async recordMatch(account: AccountRef, buyerId: string | null): Promise<void> {
    this.#ahead.delete(accountMember(account));
    await this.#recordMatch({ member: accountMember(account), buyerId });
  }

  async buyerOf(account: AccountRef): Promise<string | null> {
    await this.#ensureMatches();
    return this.#redis.hget(this.#matchesKey, accountMember(account));
  }

  /** The accounts matched to a buyer, across CRMs and tenants. */
  async accountsOfBuyer(buyerId: string): Promise<AccountRef[]> {
    await this.#ensureMatches();
    const members = await this.#redis.smembers(this.#buyerKey(buyerId));
    return members.flatMap((m) => parseAccountMember(m) ?? []);
  }

  /** Every matched account with its buyer, a page at a time (HSCAN: safe on a large install). */
  async *matchedAccounts(count = 500): AsyncGenerator<{ account: AccountRef; buyerId: string }[]> {
    await this.#ensureMatches();
    let cursor = '0';
    do {
      const [next, flat] = await this.#redis.hscan(this.#matchesKey, cursor, 'COUNT', count);
      cursor = next;
      const page: { account: AccountRef; buyerId: string }[] = [];
      for (let i = 0; i + 1 < flat.length; i += 2) {
        const account = parseAccountMember(flat[i] ?? '');
        if (account) page.push({ account, buyerId: flat[i + 1] ?? '' });
      }
      if (page.length) yield page;
    } while (cursor !== '0');
  }
}

/** `crm|tenant|accountId`: none of the three ever holds a `|`. */
function accountMember(a: AccountRef): string {
  return `${a.crm}|${a.tenant}|${a.accountId}`;
}

function parseAccountMember(member: string): AccountRef | null {
  const [crm, tenant, accountId] = member.split('|');
  if (!crm || !tenant || !accountId || !isCrmKind(crm)) return null;
  return { crm, tenant, accountId };
}
