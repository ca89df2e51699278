// Size: the outcomes table is the review queue: one upsert, filters, keyset pages, counts, search and previews.
// Each account's latest outcome: recorded in one statement per job (an upsert), read one at a time,
// listed by cohort with filters and keyset paging, and counted per cohort. The review queue reads it.

import { type ExpressionBuilder, type Kysely, type SelectQueryBuilder, sql } from 'kysely';
import type { AccountRef } from '../../connectors/types.ts';
import type { FieldWriteEntry } from '../write/journal.ts';
import { othersOnBuyer } from './buyer-counts.ts';
import { insertFieldWrites } from './field-rows.ts';
import { type OutcomeRecord, upsertMany } from './outcome-rows.ts';
import type { Cohort, Database, OutcomeCandidate, OutcomeDetail, OutcomeRow } from './schema.ts';
import { StatisticsRefresh } from './statistics.ts';

export interface Outcome extends AccountRef {
  id: string;
  accountName: string | null;
  state: string | null;
  status: OutcomeRow['status'];
  cohort: Cohort;
  matchedBy: 'id' | 'name' | null;
  buyerId: string | null;
  buyerName: string | null;
  buyerType: string | null;
  confidence: number | null;
  reason: string | null;
  candidates: OutcomeCandidate[];
  detail: OutcomeDetail | null;
  trigger: string | null;
  error: string | null;
  pinned: boolean;
  duplicateOf: string | null;
  runId: string | null;
  jobId: string | null;
  updatedAt: Date;
}

export interface OutcomeFilter {
  cohort?: Cohort | undefined;
  crm?: string | undefined;
  tenant?: string | undefined;
  state?: string | undefined;
  buyerType?: string | undefined;
  minConfidence?: number | undefined;
  maxConfidence?: number | undefined;
  updatedFrom?: Date | undefined;
  updatedTo?: Date | undefined;
  /** Part of the account's name, any case. */
  name?: string | undefined;
  /** Only accounts that share their buyer with another account of the same tenant. */
  duplicates?: boolean | undefined;
}

/** Whether a filter narrows by nothing but what outcome_counts is keyed by (crm, tenant, cohort). */
function onlyCounted(f: OutcomeFilter): boolean {
  const { cohort: _cohort, crm: _crm, tenant: _tenant, name, duplicates, ...rest } = f;
  return !name?.trim() && !duplicates && Object.values(rest).every((v) => v === undefined);
}

export interface PageRequest {
  sort: 'confidence' | 'date';
  direction: 'asc' | 'desc';
  limit: number;
  /** The `next` of the previous page. */
  after?: string | undefined;
}

export type CohortCounts = Record<Cohort | 'duplicates', number>;

// The sort keys, as the indexes hold them (no confidence sorts as -1).
const confidenceKey = sql<number>`coalesce(confidence, -1)`;

const toNumber = (v: string | number | null): number | null => (v === null ? null : Number(v));

export function outcomeOf(row: OutcomeRow): Outcome {
  return {
    id: String(row.id),
    crm: row.crm,
    tenant: row.tenant,
    accountId: row.account_id,
    accountName: row.account_name,
    state: row.state,
    status: row.status,
    cohort: row.cohort,
    matchedBy: row.matched_by,
    buyerId: row.buyer_id,
    buyerName: row.buyer_name,
    buyerType: row.buyer_type,
    confidence: toNumber(row.confidence),
    reason: row.reason,
    candidates: row.candidates,
    detail: row.detail,
    trigger: row.trigger,
    error: row.error,
    pinned: row.pinned,
    duplicateOf: row.duplicate_of,
    runId: row.run_id === null ? null : String(row.run_id),
    jobId: row.job_id,
    updatedAt: new Date(row.updated_at),
  };
}

function encodeCursor(key: number | string, id: string): string {
  return Buffer.from(JSON.stringify([key, id])).toString('base64url');
}

const ISO_INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,6})?(Z|[+-]\d{2}:\d{2})$/;

function decodeCursor(cursor: string, sort: PageRequest['sort']): [number | string, string] {
  try {
    const [key, id] = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as unknown[];
    // A crafted cursor is refused here, not by PostgreSQL (a 500): ids fit a bigint (18 digits), a
    // confidence is a finite number, a date is an ISO instant of years 0000–9999 as ours are
    // (Date.parse takes ±275,760 years; PostgreSQL's timestamps start in 4713 BC).
    const keyOk =
      sort === 'confidence'
        ? typeof key === 'number' && Number.isFinite(key)
        : typeof key === 'string' && ISO_INSTANT.test(key) && Number.isFinite(Date.parse(key));
    if (keyOk && typeof id === 'string' && /^\d{1,18}$/.test(id)) return [key as number | string, id];
  } catch {}
  throw new RangeError('not a cursor of this listing');
}

export class Outcomes {
  readonly #db: Kysely<Database>;
  /** Refreshed as a tenant's outcomes grow (statistics.ts). */
  readonly #statistics: StatisticsRefresh;

  constructor(db: Kysely<Database>) {
    this.#db = db;
    this.#statistics = new StatisticsRefresh(db);
  }

  /**
   * One statement: insert the account's outcome, or replace the one it had unless a person pinned or
   * unpinned it meanwhile (see `pinned`; with `onlyIfNewer`, only an older one: imports never undo a
   * newer outcome). Resolves with whether the row was written.
   */
  async record(r: OutcomeRecord, options: { onlyIfNewer?: boolean } = {}): Promise<boolean> {
    const written = await upsertMany(this.#db, [r], options).execute();
    return written.length > 0;
  }

  /**
   * `record`, then a count of the other accounts of the tenant that share the recorded buyer: a job
   * learns whether it joined a duplicates group (recordManyCountingShared). `kept` (the values a policy
   * kept from the job's writes) goes on the write history in the outcome's statement.
   */
  async recordCountingShared(
    r: OutcomeRecord,
    options: { kept?: readonly FieldWriteEntry[] } = {},
  ): Promise<{ sharing: number }> {
    const sharing = await this.recordManyCountingShared([{ record: r, kept: options.kept ?? [] }]);
    return { sharing: sharing.get(r.accountId) ?? 0 };
  }

  /**
   * `recordCountingShared` for several accounts of one tenant (a backfill chunk's), whatever their
   * number: their outcomes (and the values kept) in one statement, then in one more the sharing of
   * each written account (by account id; an account whose row was not written — its pin changed
   * meanwhile — is absent): the other accounts of the tenant on its buyer once the outcomes are
   * committed, the batch's own included (buyer-counts.ts). Counted after the commit, two jobs
   * recording one buyer's accounts at the same moment do not both count none: the later count sees
   * both. The accounts must differ.
   */
  async recordManyCountingShared(
    batch: readonly { record: OutcomeRecord; kept: readonly FieldWriteEntry[] }[],
  ): Promise<Map<string, number>> {
    if (!batch.length) return new Map();
    const kept = batch.flatMap((b) => b.kept);
    const upsert = () =>
      upsertMany(
        this.#db,
        batch.map((b) => b.record),
      );
    const written = kept.length
      ? await this.#db
          .with('up', upsert)
          .with('kept', (db) => insertFieldWrites(db, kept))
          .selectFrom('up')
          .selectAll()
          .execute()
      : await upsert().execute();
    const sharing = await othersOnBuyer(this.#db, written);
    const first = batch[0]?.record;
    if (first) await this.#statistics.recorded(first.crm, first.tenant, written.length);
    return sharing;
  }

  /** One statement: the job failed for good. The last match stays, for a person to see what it was. */
  async recordError(
    key: AccountRef,
    error: string,
    meta: {
      trigger?: string | undefined;
      runId?: string | undefined;
      jobId?: string | undefined;
      at?: Date | undefined;
      onlyIfNewer?: boolean | undefined;
    } = {},
  ): Promise<boolean> {
    const result = await this.#db
      .insertInto('account_outcomes')
      .values({
        crm: key.crm,
        tenant: key.tenant,
        account_id: key.accountId,
        status: 'error',
        cohort: 'error',
        candidates: '[]',
        error,
        trigger: meta.trigger ?? null,
        run_id: meta.runId ?? null,
        job_id: meta.jobId ?? null,
        updated_at: meta.at ?? new Date(),
      })
      .onConflict((oc) => {
        const update = oc.columns(['crm', 'tenant', 'account_id']).doUpdateSet({
          status: 'error',
          cohort: 'error',
          error: (eb) => eb.ref('excluded.error'),
          trigger: (eb) => eb.ref('excluded.trigger'),
          run_id: (eb) => eb.ref('excluded.run_id'),
          job_id: (eb) => eb.ref('excluded.job_id'),
          updated_at: (eb) => eb.ref('excluded.updated_at'),
        });
        return meta.onlyIfNewer
          ? update.where('account_outcomes.updated_at', '<', (eb) => eb.ref('excluded.updated_at'))
          : update;
      })
      .executeTakeFirst();
    return Number(result.numInsertedOrUpdatedRows ?? 0) > 0;
  }

  async get(key: AccountRef): Promise<Outcome | null> {
    const row = await this.#db
      .selectFrom('account_outcomes')
      .selectAll()
      .where('crm', '=', key.crm)
      .where('tenant', '=', key.tenant)
      .where('account_id', '=', key.accountId)
      .executeTakeFirst();
    return row ? outcomeOf(row) : null;
  }

  /** Several accounts of one tenant in one round trip (a backfill chunk's): by account id. */
  async getMany(crm: string, tenant: string, accountIds: readonly string[]): Promise<Map<string, Outcome>> {
    if (!accountIds.length) return new Map();
    const rows = await this.#db
      .selectFrom('account_outcomes')
      .selectAll()
      .where('crm', '=', crm)
      .where('tenant', '=', tenant)
      .where('account_id', 'in', [...accountIds])
      .execute();
    return new Map(rows.map((row) => [row.account_id, outcomeOf(row)]));
  }

  /** One page in the order asked, and the cursor of the next one (null on the last page). */
  async list(filter: OutcomeFilter, page: PageRequest): Promise<{ rows: Outcome[]; next: string | null }> {
    const limit = Math.max(1, Math.min(500, Math.floor(page.limit)));
    const desc = page.direction === 'desc';
    const key = page.sort === 'confidence' ? confidenceKey : sql<Date>`updated_at`;
    let query = this.#filtered(filter);
    if (page.after) {
      const [value, id] = decodeCursor(page.after, page.sort);
      // The instant as written in the cursor, to the microsecond PostgreSQL keeps: a JavaScript Date
      // would cut it to the millisecond, and rows within that millisecond would be skipped or repeated.
      const at = page.sort === 'confidence' ? value : sql`${String(value)}::timestamptz`;
      // A row comparison is an index bound: paging stays as fast on the last page as on the first.
      query = query.where(
        desc ? sql<boolean>`(${key}, id) < (${at}, ${id})` : sql<boolean>`(${key}, id) > (${at}, ${id})`,
      );
    }
    const dir = desc ? 'desc' : 'asc';
    const rows = await query
      .selectAll()
      .select(
        sql<string>`to_char(updated_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`.as('cursor_at'),
      )
      .orderBy(key, dir)
      .orderBy('id', dir)
      .limit(limit + 1)
      .execute();
    const outcomes = rows.slice(0, limit).map(outcomeOf);
    const last = outcomes.at(-1);
    const lastAt = rows[limit - 1]?.cursor_at;
    const next =
      rows.length > limit && last && lastAt
        ? encodeCursor(page.sort === 'confidence' ? (last.confidence ?? -1) : lastAt, last.id)
        : null;
    return { rows: outcomes, next };
  }

  /** How many accounts the filter shows (what a bulk action over it would act on). */
  async count(filter: OutcomeFilter): Promise<number> {
    // A filter of CRM, tenant and cohort alone (the console's first pages: all accounts, a cohort, the
    // review queue) is summed from the counters migration 0004's triggers keep in each change's own
    // transaction: as exact as counting, but a few rows however many accounts (counting 250,000 took
    // ~200 ms of the accounts page's first render, bench/README.md).
    if (onlyCounted(filter)) {
      let q = this.#db.selectFrom('outcome_counts').select((eb) => eb.fn.sum<string>('n').as('n'));
      if (filter.cohort !== undefined) q = q.where('cohort', '=', filter.cohort);
      if (filter.crm !== undefined) q = q.where('crm', '=', filter.crm);
      if (filter.tenant !== undefined) q = q.where('tenant', '=', filter.tenant);
      const counted = await q.executeTakeFirst();
      return Number(counted?.n ?? 0);
    }
    const row = await this.#filtered(filter)
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .executeTakeFirst();
    return Number(row?.n ?? 0);
  }

  /**
   * The bulk-approve preview: how many accounts of the filter a bulk approve above `floor` would
   * touch — undecided (needs review), with a candidate to approve, their best score at least `floor`.
   */
  async countApprovable(filter: OutcomeFilter, floor: number): Promise<number> {
    if (!Number.isFinite(floor) || floor < 0 || floor > 1)
      throw new RangeError('the score floor is a number from 0 to 1');
    // The predicate of the index `account_outcomes_approvable` (migration 0003), spelled as it is there
    // so the planner can prove the index applies: the count is then an index-only range scan.
    const row = await this.#filtered(filter)
      .where('cohort', '=', 'needs_review')
      .where(sql<boolean>`jsonb_array_length(candidates) > 0`)
      .where('confidence', '>=', floor)
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  /**
   * Accounts per cohort, and how many share their buyer with another account of their tenant: read
   * from the counters the triggers of migration 0004 keep, in one statement (one snapshot).
   */
  async counts(
    filter: { crm?: string | undefined; tenant?: string | undefined } = {},
  ): Promise<CohortCounts> {
    const scope = <QB extends SelectQueryBuilder<Database, 'outcome_counts' | 'buyer_accounts', object>>(
      q: QB,
    ): QB => {
      let out = q;
      if (filter.crm !== undefined) out = out.where('crm', '=', filter.crm) as QB;
      if (filter.tenant !== undefined) out = out.where('tenant', '=', filter.tenant) as QB;
      return out;
    };
    const rows = await scope(this.#db.selectFrom('outcome_counts'))
      .select((eb) => [sql<string>`${eb.ref('cohort')}`.as('key'), eb.fn.sum<string>('n').as('n')])
      .groupBy('cohort')
      .unionAll(
        scope(this.#db.selectFrom('buyer_accounts'))
          .where('n', '>', sql<string>`1`)
          .select((eb) => [
            sql<string>`'duplicates'`.as('key'),
            eb.fn.coalesce(eb.fn.sum<string>('n'), sql<string>`0`).as('n'),
          ]),
      )
      .execute();
    const counts: CohortCounts = {
      matched_by_id: 0,
      matched_by_name: 0,
      needs_review: 0,
      no_match: 0,
      error: 0,
      duplicates: 0,
    };
    for (const { key, n } of rows) counts[key as keyof CohortCounts] = Number(n);
    return counts;
  }

  #filtered(f: OutcomeFilter) {
    let q = this.#db.selectFrom('account_outcomes');
    if (f.cohort !== undefined) q = q.where('cohort', '=', f.cohort);
    if (f.crm !== undefined) q = q.where('crm', '=', f.crm);
    if (f.tenant !== undefined) q = q.where('tenant', '=', f.tenant);
    if (f.state !== undefined) q = q.where('state', '=', f.state);
    if (f.buyerType !== undefined) q = q.where('buyer_type', '=', f.buyerType);
    if (f.minConfidence !== undefined) q = q.where('confidence', '>=', f.minConfidence);
    if (f.maxConfidence !== undefined) q = q.where('confidence', '<=', f.maxConfidence);
    if (f.updatedFrom !== undefined) q = q.where('updated_at', '>=', f.updatedFrom);
    if (f.updatedTo !== undefined) q = q.where('updated_at', '<', f.updatedTo);
    if (f.name?.trim()) q = q.where('account_name', 'ilike', `%${likeEscape(f.name.trim())}%`);
    if (f.duplicates)
      q = q.where((eb: ExpressionBuilder<Database, 'account_outcomes'>) =>
        eb.exists(
          eb
            .selectFrom('account_outcomes as other')
            .select(sql`1`.as('one'))
            .whereRef('other.crm', '=', 'account_outcomes.crm')
            .whereRef('other.tenant', '=', 'account_outcomes.tenant')
            .whereRef('other.buyer_id', '=', 'account_outcomes.buyer_id')
            .whereRef('other.id', '<>', 'account_outcomes.id'),
        ),
      );
    return q;
  }
}

/** `%` and `_` in a search are letters, not wildcards. */
function likeEscape(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`);
}
