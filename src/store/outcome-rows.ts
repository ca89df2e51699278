// Outcomes as rows of account_outcomes: the upsert of any number of accounts in one statement (one
// JSON parameter read as rows, json-rows.ts, as field-rows.ts does for field writes), the same SQL for
// one account's job and a backfill chunk's accounts.
import { type Kysely, sql } from 'kysely';
import type { AccountRef } from '../../connectors/types.ts';
import { jsonRecordset } from './json-rows.ts';
import type { Cohort, Database, OutcomeCandidate, OutcomeDetail, OutcomeRow } from './schema.ts';

/** What one job found: the columns of its outcome (cohort derived by `cohortOf`). */
export interface OutcomeRecord extends AccountRef {
  accountName: string | null;
  state: string | null;
  status: 'enriched' | 'needs_review' | 'no_match';
  matchedBy: 'id' | 'name' | null;
  buyerId: string | null;
  buyerName: string | null;
  buyerType: string | null;
  confidence: number | null;
  reason: string;
  candidates: OutcomeCandidate[];
  detail: OutcomeDetail;
  trigger?: string | undefined;
  /**
   * The job applied a person's pin (a rejection; true) or saw none (undefined). The outcome replaces
   * the account's only if its pin is still as the job saw it: a rejection made or cleared while the
   * job ran is a person's later decision, which the job queued with it applies.
   */
  pinned?: boolean | undefined;
  runId?: string | undefined;
  jobId?: string | undefined;
  at?: Date | undefined;
}

export function cohortOf(status: OutcomeRow['status'], matchedBy: 'id' | 'name' | null): Cohort {
  if (status === 'enriched') return matchedBy === 'id' ? 'matched_by_id' : 'matched_by_name';
  return status;
}

/** A run pinned to the buyer already matched (our own id on the account) keeps how it was first matched. */
const sameMatch = sql<boolean>`(excluded.matched_by = 'id' and account_outcomes.matched_by is not null and account_outcomes.buyer_id = excluded.buyer_id)`;
const sameBuyer = sql<boolean>`(account_outcomes.buyer_id = excluded.buyer_id)`;

/** The columns an outcome's upsert fills, each with its SQL type. */
const TYPED = {
  crm: 'text',
  tenant: 'text',
  account_id: 'text',
  account_name: 'text',
  state: 'text',
  status: 'text',
  cohort: 'text',
  matched_by: 'text',
  buyer_id: 'text',
  buyer_name: 'text',
  buyer_type: 'text',
  confidence: 'numeric',
  reason: 'text',
  candidates: 'jsonb',
  detail: 'jsonb',
  trigger: 'text',
  run_id: 'bigint',
  job_id: 'text',
  updated_at: 'timestamptz',
  pinned: 'boolean',
} as const;
const COLUMNS = Object.keys(TYPED) as (keyof typeof TYPED)[];

function rowsOf(records: readonly OutcomeRecord[], now: Date) {
  const rows = records.map((r) => ({
    crm: r.crm,
    tenant: r.tenant,
    account_id: r.accountId,
    account_name: r.accountName,
    state: r.state,
    status: r.status,
    cohort: cohortOf(r.status, r.matchedBy),
    matched_by: r.matchedBy,
    buyer_id: r.buyerId,
    buyer_name: r.buyerName,
    buyer_type: r.buyerType,
    confidence: r.confidence,
    reason: r.reason,
    candidates: r.candidates,
    detail: r.detail,
    trigger: r.trigger ?? null,
    run_id: r.runId ?? null,
    job_id: r.jobId ?? null,
    updated_at: (r.at ?? now).toISOString(),
    pinned: r.pinned ?? false,
  }));
  return sql`select ${sql.raw(COLUMNS.join(', '))} from ${jsonRecordset(rows, TYPED)}`;
}

/**
 * Inserts each account's outcome, or replaces the one it had unless a person pinned or unpinned it
 * meanwhile (the row's pin is not as the job saw it; with `onlyIfNewer`, also unless it is newer:
 * imports never undo a newer outcome). Returns the keys and buyers of the rows written. One account
 * may appear once.
 */
export function upsertMany(
  db: Kysely<Database>,
  records: readonly OutcomeRecord[],
  options: { onlyIfNewer?: boolean } = {},
) {
  return db
    .insertInto('account_outcomes')
    .columns(COLUMNS)
    .expression(rowsOf(records, new Date()))
    .onConflict((oc) => {
      const update = oc.columns(['crm', 'tenant', 'account_id']).doUpdateSet({
        account_name: (eb) => eb.ref('excluded.account_name'),
        state: (eb) => eb.ref('excluded.state'),
        status: (eb) => eb.ref('excluded.status'),
        cohort: sql`case when ${sameMatch} and excluded.status = 'enriched' then (case account_outcomes.matched_by when 'id' then 'matched_by_id' else 'matched_by_name' end) else excluded.cohort end`,
        matched_by: sql`case when ${sameMatch} then account_outcomes.matched_by else excluded.matched_by end`,
        confidence: sql`case when ${sameMatch} then account_outcomes.confidence else excluded.confidence end`,
        reason: sql`case when ${sameMatch} then account_outcomes.reason else excluded.reason end`,
        buyer_id: (eb) => eb.ref('excluded.buyer_id'),
        // A pinned run does not search, so it learns the name and type of the buyer only by fetching.
        buyer_name: sql`coalesce(excluded.buyer_name, case when ${sameBuyer} then account_outcomes.buyer_name end)`,
        buyer_type: sql`coalesce(excluded.buyer_type, case when ${sameBuyer} then account_outcomes.buyer_type end)`,
        candidates: (eb) => eb.ref('excluded.candidates'),
        detail: (eb) => eb.ref('excluded.detail'),
        trigger: (eb) => eb.ref('excluded.trigger'),
        error: null,
        run_id: (eb) => eb.ref('excluded.run_id'),
        job_id: (eb) => eb.ref('excluded.job_id'),
        updated_at: (eb) => eb.ref('excluded.updated_at'),
      });
      // The pin inserted is the pin the job saw.
      const asSeen = update.where('account_outcomes.pinned', '=', (eb) => eb.ref('excluded.pinned'));
      return options.onlyIfNewer
        ? asSeen.where('account_outcomes.updated_at', '<', (eb) => eb.ref('excluded.updated_at'))
        : asSeen;
    })
    .returning(['crm', 'tenant', 'account_id', 'buyer_id']);
}
