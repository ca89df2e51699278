// The tables of the system of record, as Kysely sees them (migrations/ creates them). Ids are bigint
// identities, read back as strings (neither driver may round them). `numeric` comes back as a string
// from node-postgres: repositories turn it into a number.
import type { ColumnType, Insertable, Selectable } from 'kysely';

export const RUN_KINDS = ['webhook', 'refresh', 'backfill', 'reenrich', 'confirm', 'review', 'undo'] as const;
export type RunKind = (typeof RUN_KINDS)[number];

export const OUTCOME_STATUSES = ['enriched', 'needs_review', 'no_match', 'error'] as const;
export type OutcomeStatus = (typeof OUTCOME_STATUSES)[number];

/** The review queue's tabs. "Duplicates" is not a cohort of its own: it is computed by query. */
export const COHORTS = ['matched_by_id', 'matched_by_name', 'needs_review', 'no_match', 'error'] as const;
export type Cohort = (typeof COHORTS)[number];

export const DECISION_ACTIONS = ['confirm', 'reject', 'research', 'approve', 'clear'] as const;
export type DecisionAction = (typeof DECISION_ACTIONS)[number];

export const ACTOR_KINDS = ['api-key', 'crm-user', 'cli', 'admin'] as const;
export type ActorKind = (typeof ACTOR_KINDS)[number];

type Id = ColumnType<string, never, never>;
type CreatedAt = ColumnType<Date, Date | string | undefined, never>;
type Json<T> = ColumnType<T, string, string>;
type Numeric = ColumnType<string | number, number | null, number | null>;

export interface RunsTable {
  id: Id;
  kind: RunKind;
  /** Makes creating a run idempotent (a retried sweep, a resumed backfill); null for one-offs. */
  key: string | null;
  label: string;
  actor: string | null;
  started_at: CreatedAt;
  finished_at: Date | null;
  counts: Json<Record<string, number>>;
}

export interface AccountOutcomesTable {
  /** A stable tiebreaker for keyset paging and a short handle for the review queue. */
  id: Id;
  crm: string;
  tenant: string;
  account_id: string;
  account_name: string | null;
  /** Two-letter code when the CRM's value names a state, else the value as typed. */
  state: string | null;
  status: OutcomeStatus;
  cohort: Cohort;
  /** How the buyer was found: `id` (a buyer id on the account) or `name` (search, or its cache). */
  matched_by: 'id' | 'name' | null;
  buyer_id: string | null;
  buyer_name: string | null;
  buyer_type: string | null;
  confidence: Numeric | null;
  reason: string | null;
  candidates: Json<OutcomeCandidate[]>;
  /** What the last run did besides the match: fields written old → new, notes, the raw match source. */
  detail: Json<OutcomeDetail> | null;
  trigger: string | null;
  error: string | null;
  /** A person's decision holds (e.g. rejected → no_match) until they clear it. */
  pinned: ColumnType<boolean, boolean | undefined, boolean>;
  /** The CRM account id this account was last marked a duplicate of in its CRM; null when none. */
  duplicate_of: ColumnType<string | null, string | null | undefined, string | null>;
  run_id: string | null;
  job_id: string | null;
  updated_at: ColumnType<Date, Date | string, Date | string>;
}

export interface OutcomeCandidate {
  buyerId: string;
  name: string;
  stateCode: string | null;
  type: string | null;
  score: number;
}

export interface OutcomeDetail {
  source: string | null;
  fields: { property: string; old: string | null; new: string | null; decision: string; policy: string }[];
  written: Record<string, string | null>;
  notes: { created: { key: string; title: string }[]; alreadyPresent: number; overCap: number };
}

export interface DecisionsTable {
  id: Id;
  crm: string;
  tenant: string;
  account_id: string;
  action: DecisionAction;
  buyer_id: string | null;
  params: Json<Record<string, unknown>>;
  actor_kind: ActorKind;
  /** API key fingerprint, CRM user, admin user name or `cli`. */
  actor: string;
  run_id: string | null;
  at: CreatedAt;
}

/** Where a write came from and what the CRM answered (migration 0006; src/store/write-history.ts). */
export const FIELD_KINDS = ['mapped', 'provenance'] as const;
export type FieldKind = (typeof FIELD_KINDS)[number];
export const CRM_RESULTS = ['ok', 'error', 'not_sent', 'pending'] as const;
export type CrmResult = (typeof CRM_RESULTS)[number];

/** One field we wrote (or a policy kept from us: `not_sent`), append-only. */
export interface FieldWritesTable {
  /** From `write_history_seq`, shared with notes_created: the order things were recorded in. */
  id: Id;
  run_id: string | null;
  job_id: string | null;
  /** What asked for the write (webhook, refresh, backfill, cli, signal, digest…), run or not. */
  trigger: string | null;
  crm: string;
  tenant: string;
  account_id: string;
  buyer_id: string | null;
  /** The CRM field (property) name. */
  field: string;
  /** The buyer attribute mapped into it; null for provenance. */
  attribute: string | null;
  kind: FieldKind;
  /** The mapping's write policy; null for provenance. */
  policy: string | null;
  old_value: string | null;
  new_value: string | null;
  decision: string;
  crm_result: CrmResult;
  crm_error: string | null;
  at: CreatedAt;
}

/** One note or Task we created, with the CRM's id and our dedupe key, append-only. */
export interface NotesCreatedTable {
  id: Id;
  run_id: string | null;
  job_id: string | null;
  trigger: string | null;
  crm: string;
  tenant: string;
  account_id: string;
  buyer_id: string | null;
  note_id: string;
  dedupe_key: string;
  title: string | null;
  at: CreatedAt;
}

/**
 * A note about to be created (migration 0011): moved to notes_created with the CRM's id once it
 * answers, dropped when the CRM refused it; one left behind is settled against the CRM's notes.
 */
export interface NotesPendingTable {
  id: Id;
  run_id: string | null;
  job_id: string | null;
  trigger: string | null;
  crm: string;
  tenant: string;
  account_id: string;
  buyer_id: string | null;
  dedupe_key: string;
  title: string | null;
  at: CreatedAt;
}

/** One note an undo removed (or found gone already), append-only beside notes_created (migration 0007). */
export interface NotesRemovedTable {
  /** From `write_history_seq`, shared with field_writes and notes_created. */
  id: Id;
  /** The undo run. */
  run_id: string | null;
  job_id: string | null;
  trigger: string | null;
  crm: string;
  tenant: string;
  account_id: string;
  buyer_id: string | null;
  note_id: string;
  dedupe_key: string | null;
  title: string | null;
  outcome: 'removed' | 'already_gone';
  at: CreatedAt;
}

/** An undo run and what it takes back; one open (unfinished) run per target. */
export interface UndoRunsTable {
  run_id: string;
  target: string;
  finished: ColumnType<boolean, boolean | undefined, boolean>;
  /** Who runs it now (host, pid): one runner per undo run (migration 0008). */
  holder: ColumnType<string | null, string | null | undefined, string | null>;
  claimed_until: ColumnType<Date | null, Date | null | undefined, Date | null>;
}

/** An undo run's accounts: `started` before their CRM writes, `done` once those are recorded. */
export interface UndoAccountsTable {
  run_id: string;
  crm: string;
  tenant: string;
  account_id: string;
  state: 'started' | 'done';
  at: CreatedAt;
}

/** Accounts per cohort per tenant, kept by triggers on account_outcomes (migration 0004). */
export interface OutcomeCountsTable {
  crm: string;
  tenant: string;
  cohort: Cohort;
  n: ColumnType<string, never, never>;
}

/** Notes recorded per tenant and week (Monday, UTC), kept by a trigger on notes_created (0015). */
export interface NotesByWeekTable {
  crm: string;
  tenant: string;
  week: ColumnType<Date | string, never, never>;
  n: ColumnType<string, never, never>;
}

/** Per CRM field of a tenant: our last write and the accounts holding ours, kept by triggers (0018). */
export interface FieldSummaryTable {
  crm: string;
  tenant: string;
  field: string;
  last_written_at: ColumnType<Date | string | null, never, never>;
  holding: ColumnType<string, never, never>;
}

/** Accounts waiting for review per tenant and day (UTC) of their outcome, kept by triggers (0015). */
export interface ReviewWaitingByDayTable {
  crm: string;
  tenant: string;
  day: ColumnType<Date | string, never, never>;
  n: ColumnType<string, never, never>;
}

/** Accounts per buyer per tenant (more than one: a duplicates group), kept by the same triggers. */
export interface BuyerAccountsTable {
  crm: string;
  tenant: string;
  buyer_id: string;
  n: ColumnType<string, never, never>;
}

/** A CRM connection added at run time; `record` is encrypted (src/tenants/store.ts). */
export interface CrmTenantsTable {
  crm: string;
  tenant: string;
  record: string;
  updated_at: ColumnType<Date, Date | string | undefined, Date | string>;
}

/** A digest's state: `watermark`, `period`, `pendingPeriod`/`pendingEnd`, `slack:<period>` marks. */
export interface DigestStateTable {
  scope: string;
  state: ColumnType<Record<string, string>, string, string>;
  updated_at: ColumnType<Date, Date | string | undefined, Date | string>;
}

/** A follow-up task we created, watched until it closes the loop (migration 0012). */
export interface FollowUpsTable {
  crm: string;
  tenant: string;
  task_id: string;
  account_id: string;
  dedupe_key: string;
  buyer_id: string | null;
  owner_id: string;
  bridge_id: string;
  row_id: string;
  created_at: CreatedAt;
  /** The row status the task's state decided, claimed before the provider call. */
  closing: 'Actioned' | 'NotInterested' | null;
  crm_state: string | null;
  closed_at: Date | null;
}

/** The provider row status a follow-up task set, append-only, numbered with the write history. */
export interface FollowUpClosuresTable {
  id: Id;
  crm: string;
  tenant: string;
  task_id: string;
  account_id: string;
  buyer_id: string | null;
  dedupe_key: string;
  bridge_id: string;
  row_id: string;
  row_status: 'Actioned' | 'NotInterested';
  crm_state: string;
  note: string | null;
  at: CreatedAt;
}

export interface Database {
  runs: RunsTable;
  account_outcomes: AccountOutcomesTable;
  outcome_counts: OutcomeCountsTable;
  buyer_accounts: BuyerAccountsTable;
  decisions: DecisionsTable;
  field_writes: FieldWritesTable;
  notes_created: NotesCreatedTable;
  notes_by_week: NotesByWeekTable;
  field_summary: FieldSummaryTable;
  review_waiting_by_day: ReviewWaitingByDayTable;
  notes_pending: NotesPendingTable;
  notes_removed: NotesRemovedTable;
  undo_runs: UndoRunsTable;
  undo_accounts: UndoAccountsTable;
  crm_tenants: CrmTenantsTable;
  digest_state: DigestStateTable;
  follow_ups: FollowUpsTable;
  follow_up_closures: FollowUpClosuresTable;
}

export type RunRow = Selectable<RunsTable>;
export type OutcomeRow = Selectable<AccountOutcomesTable>;
export type NewOutcome = Insertable<AccountOutcomesTable>;
export type DecisionRow = Selectable<DecisionsTable>;
