// The last outcome of each account's enrichment, and a recent-first index of them, kept in Redis: what
// the CRM cards and the admin page show (candidates, fields old → new, notes) without re-running a job.
import type { Redis } from 'ioredis';
import type { AccountRef, EnrichResult } from './pipeline.ts';

export interface HistoryEntry {
  at: string;
  jobId?: string | undefined;
  /** The job failed for good: why. */
  error?: string;
  result?: EnrichResult;
}

/** Keep this many accounts in the recent index. */
const RECENT_MAX = 10_000;
/** An account's last outcome expires after this long without a new one. */
const TTL_SECONDS = 90 * 24 * 3600;

export class EnrichmentHistory {
  readonly #redis: Redis;
  readonly #prefix: string;

  constructor(redis: Redis, prefix: string) {
    this.#redis = redis;
    this.#prefix = prefix;
  }

  #member(ref: AccountRef): string {
    return `${ref.crm}|${ref.tenant}|${ref.accountId}`;
  }

  #key(member: string): string {
    return `${this.#prefix}:history:${member}`;
  }

  async record(ref: AccountRef, entry: Omit<HistoryEntry, 'at'>, now = new Date()): Promise<void> {
    const member = this.#member(ref);
    const value: HistoryEntry = { at: now.toISOString(), ...entry };
    await this.#redis
      .multi()
      .set(this.#key(member), JSON.stringify(value), 'EX', TTL_SECONDS)
      .zadd(`${this.#prefix}:history:recent`, now.getTime(), member)
      .zremrangebyrank(`${this.#prefix}:history:recent`, 0, -RECENT_MAX - 1)
      .exec();
  }

  async last(ref: AccountRef): Promise<HistoryEntry | null> {
    const raw = await this.#redis.get(this.#key(this.#member(ref)));
    return raw ? (JSON.parse(raw) as HistoryEntry) : null;
  }

  /** The most recently enriched accounts, newest first. */
  async recent(limit = 100): Promise<{ account: AccountRef; entry: HistoryEntry }[]> {
    const members = await this.#redis.zrevrange(`${this.#prefix}:history:recent`, 0, limit - 1);
    if (!members.length) return [];
    const raws = await this.#redis.mget(...members.map((m) => this.#key(m)));
    return members.flatMap((member, i) => {
      const raw = raws[i];
      const [crm, tenant, accountId] = member.split('|');
      if (!raw || !crm || !tenant || !accountId) return [];
      const account = { crm: crm as AccountRef['crm'], tenant, accountId };
      return [{ account, entry: JSON.parse(raw) as HistoryEntry }];
    });
  }
}
