// Size: the write history is one repository: recording (two statements), the `ours` read, pages per account and per run, a run's counts, pruning.
// The write history: every field we wrote (with the policy's decision and the CRM's answer), every
// value a policy kept from us, and every note we created — append-only, kept until a person prunes it.
// Recorded one statement per CRM write batch (src/write/batched-writes.ts) and, for the values a policy
// kept, in the job's outcome statement (outcomes.ts): never a round trip of a job's own.
//
// Both tables draw their ids from one sequence, so a page of an account's or a run's history is one
// keyset (`id`, newest first) over both.
import { type Kysely, sql } from 'kysely';
import type {
  FieldWriteEntry,
  NoteEntry,
  NoteSettlement,
  PendingNoteEntry,
  PendingSettlement,
} from '../write/journal.ts';
import { insertFieldWrites } from './field-rows.ts';
import { FollowUps } from './follow-ups.ts';
import { jsonRecordset } from './json-rows.ts';
import {
  accountsPendingSince,
  NOTE_TYPES,
  noteRow,
  type PendingAccount,
  pendingOfAccount,
  pendingOfAccounts,
  recordPendingFields,
  recordPendingNotes,
  settlePendingFields,
  settlePendingNotes,
} from './pending-writes.ts';
import type { CrmResult, Database, FieldKind, RunKind } from './schema.ts';

export interface HistoryAccount {
  crm: string;
  /** Undefined: every tenant's account of that id (a person at a terminal may not know the tenant). */
  tenant?: string | undefined;
  accountId: string;
}

interface EventBase {
  /** Ordered across both kinds of event: newer is larger. */
  id: string;
  at: Date;
  crm: string;
  tenant: string;
  accountId: string;
  runId: string | null;
  /** The run's kind, label and who started it, when a run names the write. */
  run: { kind: RunKind; label: string; actor: string | null } | null;
  jobId: string | null;
  trigger: string | null;
  buyerId: string | null;
}

export interface FieldEvent extends EventBase {
  type: 'field';
  field: string;
  attribute: string | null;
  kind: FieldKind;
  policy: string | null;
  old: string | null;
  new: string | null;
  decision: string;
  result: CrmResult;
  error: string | null;
}

export interface NoteEvent extends EventBase {
  type: 'note';
  /**
   * `created` by an enrichment (notes_created), `removed` by an undo (notes_removed), or `closed`: a
   * follow-up task a person completed or dismissed set its provider row's status (follow_up_closures;
   * the title says which status).
   */
  action: 'created' | 'removed' | 'closed';
  noteId: string;
  dedupeKey: string;
  title: string | null;
}

export type HistoryEvent = FieldEvent | NoteEvent;

export interface HistoryPage {
  events: HistoryEvent[];
  /** Pass as `after` for the next (older) page; null on the last. */
  next: string | null;
}

export interface PageOptions {
  limit?: number | undefined;
  /** The `next` of the previous page. */
  after?: string | undefined;
}

/** What a run changed, counted from its history. */
export interface RunChanges {
  /** Accounts with at least one field write, kept value or note of the run. */
  accounts: number;
  fieldsWritten: number;
  /** Writes the CRM refused. */
  fieldsFailed: number;
  /** Values a policy kept (a person's edit, a filled field), recorded once until they change. */
  fieldsSkipped: number;
  notesCreated: number;
  /** Notes an undo removed (or found removed already). */
  notesRemoved: number;
}

export const isHistoryCursor = (id: string): boolean => /^\d{1,18}$/.test(id);

const toDate = (v: Date | string) => new Date(v);
const idText = (v: string | number | bigint | null) => (v === null ? null : String(v));

const PRUNE_CHUNK = 10_000;

export class WriteHistory {
  readonly #db: Kysely<Database>;

  constructor(db: Kysely<Database>) {
    this.#db = db;
  }

  /** One statement for the whole batch. */
  async recordFieldWrites(entries: readonly FieldWriteEntry[]): Promise<void> {
    if (entries.length) await insertFieldWrites(this.#db, entries).execute();
  }

  recordPendingFieldWrites(entries: readonly FieldWriteEntry[]): Promise<string[]> {
    return recordPendingFields(this.#db, entries);
  }

  settleFieldWrites(settled: readonly PendingSettlement[]): Promise<void> {
    return settlePendingFields(this.#db, settled);
  }

  recordPendingNotes(entries: readonly PendingNoteEntry[]): Promise<string[]> {
    return recordPendingNotes(this.#db, entries);
  }

  async settleNotes(settled: readonly NoteSettlement[], followUps: readonly NoteEntry[] = []): Promise<void> {
    if (!followUps.some((e) => e.followUp)) return settlePendingNotes(this.#db, settled);
    // One transaction: a task on the record is a task watched (follow-ups.ts), or neither.
    await this.#db.transaction().execute(async (tx) => {
      await settlePendingNotes(tx, settled);
      await new FollowUps(tx).record(followUps);
    });
  }

  /** The account's rows whose CRM answer was never recorded (src/store/pending-writes.ts). */
  pendingOf(account: PendingAccount) {
    return pendingOfAccount(this.#db, account);
  }

  /** `pendingOf` for several accounts of one tenant, by account id (a backfill chunk's, at its start). */
  pendingOfMany(crm: string, tenant: string, accountIds: readonly string[]) {
    return pendingOfAccounts(this.#db, crm, tenant, accountIds);
  }

  /** Accounts with a row pending since before `before`, at most `limit` (the sweep's). */
  accountsPendingSince(before: Date, limit: number): Promise<PendingAccount[]> {
    return accountsPendingSince(this.#db, before, limit);
  }

  /**
   * One statement for the whole batch; a follow-up task among them is also watched from now on
   * (follow-ups.ts), in the same transaction so a retry never records a note twice.
   */
  async recordNotes(entries: readonly NoteEntry[]): Promise<void> {
    if (!entries.length) return;
    if (!entries.some((e) => e.followUp)) return insertNotes(this.#db, entries);
    await this.#db.transaction().execute(async (tx) => {
      await insertNotes(tx, entries);
      await new FollowUps(tx).record(entries);
    });
  }

  /**
   * The last value we wrote into each mapped field of the account (one statement): what the `ours`
   * policy compares the CRM's value with. A field whose last write cleared it is absent.
   */
  async lastWritten(account: {
    crm: string;
    tenant: string;
    accountId: string;
  }): Promise<Record<string, string>> {
    const written = await this.lastWrittenMany(account.crm, account.tenant, [account.accountId]);
    return written.get(account.accountId) ?? {};
  }

  /**
   * `lastWritten` for several accounts of one tenant in one statement (a backfill chunk's): each
   * account id maps to its fields (absent when nothing of ours is written there).
   */
  async lastWrittenMany(
    crm: string,
    tenant: string,
    accountIds: readonly string[],
  ): Promise<Map<string, Record<string, string>>> {
    const out = new Map<string, Record<string, string>>();
    if (!accountIds.length) return out;
    const rows = await this.#db
      .selectFrom('field_writes')
      .distinctOn(['account_id', 'field'])
      .select(['account_id', 'field', 'new_value'])
      .where('crm', '=', crm)
      .where('tenant', '=', tenant)
      .where('account_id', 'in', [...accountIds])
      .where('kind', '=', 'mapped')
      .where('crm_result', '=', 'ok')
      .orderBy('account_id')
      .orderBy('field')
      .orderBy('id', 'desc')
      .execute();
    for (const r of rows) {
      if (r.new_value === null) continue;
      const fields = out.get(r.account_id) ?? {};
      fields[r.field] = r.new_value;
      out.set(r.account_id, fields);
    }
    return out;
  }

  /** An account's history, newest first, a page at a time; with `jobId`, only that job's events. */
  forAccount(
    account: HistoryAccount,
    page: PageOptions & { jobId?: string | undefined } = {},
  ): Promise<HistoryPage> {
    const { crm, tenant, accountId } = account;
    return this.#page({ crm, tenant, accountId, jobId: page.jobId }, page);
  }

  /** Every account's history, newest first, a page at a time (the console's history export). */
  all(page: PageOptions = {}): Promise<HistoryPage> {
    return this.#page({}, page);
  }

  /** A run's history, newest first, a page at a time. */
  ofRun(runId: string, page: PageOptions = {}): Promise<HistoryPage> {
    if (!isHistoryCursor(runId)) return Promise.resolve({ events: [], next: null });
    return this.#page({ runId }, page);
  }

  /** What the run changed (one statement). */
  async runChanges(runId: string): Promise<RunChanges> {
    const none = {
      accounts: 0,
      fieldsWritten: 0,
      fieldsFailed: 0,
      fieldsSkipped: 0,
      notesCreated: 0,
      notesRemoved: 0,
    };
    if (!isHistoryCursor(runId)) return none;
    const row = await sql<Record<keyof RunChanges, string>>`
      select
        (select count(*) from (
          select crm, tenant, account_id from field_writes where run_id = ${runId}
          union select crm, tenant, account_id from notes_created where run_id = ${runId}
          union select crm, tenant, account_id from notes_removed where run_id = ${runId}
        ) as touched) as "accounts",
        count(*) filter (where crm_result = 'ok') as "fieldsWritten",
        count(*) filter (where crm_result = 'error') as "fieldsFailed",
        count(*) filter (where crm_result = 'not_sent') as "fieldsSkipped",
        (select count(*) from notes_created where run_id = ${runId}) as "notesCreated",
        (select count(*) from notes_removed where run_id = ${runId}) as "notesRemoved"
      from field_writes where run_id = ${runId}`.execute(this.#db);
    const r = row.rows[0];
    if (!r) return none;
    return {
      accounts: Number(r.accounts),
      fieldsWritten: Number(r.fieldsWritten),
      fieldsFailed: Number(r.fieldsFailed),
      fieldsSkipped: Number(r.fieldsSkipped),
      notesCreated: Number(r.notesCreated),
      notesRemoved: Number(r.notesRemoved),
    };
  }

  /** How many rows a prune before `before` would delete (notes: created and removed). */
  async countBefore(before: Date): Promise<{ fieldWrites: number; notes: number }> {
    const row = await this.#db
      .selectNoFrom((eb) => [
        eb
          .selectFrom('field_writes')
          .select(eb.fn.countAll<string>().as('n'))
          .where('at', '<', before)
          .as('fieldWrites'),
        eb
          .selectFrom('notes_created')
          .select(eb.fn.countAll<string>().as('n'))
          .where('at', '<', before)
          .as('notes'),
        eb
          .selectFrom('notes_removed')
          .select(eb.fn.countAll<string>().as('n'))
          .where('at', '<', before)
          .as('removals'),
      ])
      .executeTakeFirstOrThrow();
    return { fieldWrites: Number(row.fieldWrites), notes: Number(row.notes) + Number(row.removals) };
  }

  /**
   * Deletes everything recorded before `before`, a chunk at a time (short statements: recording goes
   * on meanwhile). Returns what it deleted.
   */
  async prune(before: Date): Promise<{ fieldWrites: number; notes: number }> {
    const chunks = async (table: 'field_writes' | 'notes_created' | 'notes_removed'): Promise<number> => {
      let total = 0;
      for (;;) {
        const result = await this.#db
          .deleteFrom(table)
          .where('id', 'in', (eb) =>
            eb.selectFrom(table).select('id').where('at', '<', before).limit(PRUNE_CHUNK),
          )
          .executeTakeFirst();
        const n = Number(result.numDeletedRows);
        total += n;
        if (n < PRUNE_CHUNK) return total;
      }
    };
    const fieldWrites = await chunks('field_writes');
    const notes = await chunks('notes_created');
    return { fieldWrites, notes: notes + (await chunks('notes_removed')) };
  }

  async #page(scope: Scope, page: PageOptions): Promise<HistoryPage> {
    const limit = Math.max(1, Math.min(500, Math.floor(page.limit ?? 50)));
    const after = page.after;
    if (after !== undefined && !isHistoryCursor(after))
      throw new RangeError('after: not a cursor of this history');
    const conditions = [
      ...(scope.crm !== undefined ? [sql`crm = ${scope.crm}`] : []),
      ...(scope.accountId !== undefined ? [sql`account_id = ${scope.accountId}`] : []),
      ...(scope.tenant !== undefined ? [sql`tenant = ${scope.tenant}`] : []),
      ...(scope.runId !== undefined ? [sql`run_id = ${scope.runId}`] : []),
      ...(scope.jobId !== undefined ? [sql`job_id = ${scope.jobId}`] : []),
      ...(after !== undefined ? [sql`id < ${after}`] : []),
    ];
    const where = conditions.length ? sql.join(conditions, sql` and `) : sql`true`;
    // A closure belongs to no run or job: a page of one shows none.
    const closureWhere = scope.runId !== undefined || scope.jobId !== undefined ? sql`false` : where;
    // Each side reads its own index newest first and stops at the page's size; the merge keeps a page.
    const { rows } = await sql<EventRow>`
      select h.*, r.kind as run_kind, r.label as run_label, r.actor as run_actor from (
        (select 'field' as type, id, at, crm, tenant, account_id, run_id, job_id, trigger, buyer_id,
                field, attribute, kind, policy, old_value, new_value, decision, crm_result, crm_error,
                null::text as note_id, null::text as dedupe_key, null::text as title
         from field_writes where ${where} order by id desc limit ${limit + 1})
        union all
        (select 'note', id, at, crm, tenant, account_id, run_id, job_id, trigger, buyer_id,
                null, null, null, null, null, null, null, null, null, note_id, dedupe_key, title
         from notes_created where ${where} order by id desc limit ${limit + 1})
        union all
        (select 'note-removed', id, at, crm, tenant, account_id, run_id, job_id, trigger, buyer_id,
                null, null, null, null, null, null, null, null, null, note_id, dedupe_key, title
         from notes_removed where ${where} order by id desc limit ${limit + 1})
        union all
        (select 'note-closed', id, at, crm, tenant, account_id, null, null, 'follow-up-sweep', buyer_id,
                null, null, null, null, null, null, null, null, null, task_id, dedupe_key,
                'provider row ' || row_id || ' set ' || row_status || ' (task ' || crm_state || ')'
                  || coalesce(': ' || note, '')
         from follow_up_closures where ${closureWhere} order by id desc limit ${limit + 1})
      ) as h left join runs r on r.id = h.run_id
      order by h.id desc limit ${limit + 1}`.execute(this.#db);
    const events = rows.slice(0, limit).map(eventOf);
    return { events, next: rows.length > limit ? (events.at(-1)?.id ?? null) : null };
  }
}

interface Scope {
  crm?: string | undefined;
  tenant?: string | undefined;
  accountId?: string | undefined;
  runId?: string | undefined;
  jobId?: string | undefined;
}

interface EventRow {
  type: 'field' | 'note' | 'note-removed' | 'note-closed';
  id: string | number;
  at: Date | string;
  crm: string;
  tenant: string;
  account_id: string;
  run_id: string | number | null;
  job_id: string | null;
  trigger: string | null;
  buyer_id: string | null;
  field: string | null;
  attribute: string | null;
  kind: FieldKind | null;
  policy: string | null;
  old_value: string | null;
  new_value: string | null;
  decision: string | null;
  crm_result: CrmResult | null;
  crm_error: string | null;
  note_id: string | null;
  dedupe_key: string | null;
  title: string | null;
  run_kind: RunKind | null;
  run_label: string | null;
  run_actor: string | null;
}

function eventOf(r: EventRow): HistoryEvent {
  const base: EventBase = {
    id: String(r.id),
    at: toDate(r.at),
    crm: r.crm,
    tenant: r.tenant,
    accountId: r.account_id,
    runId: idText(r.run_id),
    run:
      r.run_kind && r.run_label !== null
        ? { kind: r.run_kind, label: r.run_label, actor: r.run_actor ?? null }
        : null,
    jobId: r.job_id,
    trigger: r.trigger,
    buyerId: r.buyer_id,
  };
  if (r.type !== 'field')
    return {
      ...base,
      type: 'note',
      action: r.type === 'note' ? 'created' : r.type === 'note-closed' ? 'closed' : 'removed',
      noteId: r.note_id ?? '',
      dedupeKey: r.dedupe_key ?? '',
      title: r.title,
    };
  return {
    ...base,
    type: 'field',
    field: r.field ?? '',
    attribute: r.attribute,
    kind: r.kind ?? 'provenance',
    policy: r.policy,
    old: r.old_value,
    new: r.new_value,
    decision: r.decision ?? '',
    result: r.crm_result ?? 'ok',
    error: r.crm_error,
  };
}

const CREATED_NOTE_TYPES = { ...NOTE_TYPES, note_id: 'text' } as const;
const CREATED_NOTE_COLUMNS = Object.keys(CREATED_NOTE_TYPES) as (keyof typeof CREATED_NOTE_TYPES)[];

async function insertNotes(db: Kysely<Database>, entries: readonly NoteEntry[]): Promise<void> {
  const rows = entries.map((e) => ({ ...noteRow(e), note_id: e.noteId }));
  await db
    .insertInto('notes_created')
    .columns(CREATED_NOTE_COLUMNS)
    .expression(
      sql`select ${sql.raw(CREATED_NOTE_COLUMNS.join(', '))} from ${jsonRecordset(rows, CREATED_NOTE_TYPES)}`,
    )
    .execute();
}
