// Follow-up tasks we created and how each closed the loop (migration 0012). A task is recorded with
// its note's history row (WriteHistory.recordNotes), watched while open, claimed with the row status
// its state decided, and closed once the provider took that status: one closure per task, ever.
import { type Kysely, sql } from 'kysely';
import type { FollowUpRecords, OpenFollowUp, RowOutcome } from '../follow-ups/records.ts';
import type { NoteEntry } from '../write/journal.ts';
import type { Database } from './schema.ts';

export interface FollowUpClosure {
  id: string;
  crm: string;
  tenant: string;
  taskId: string;
  accountId: string;
  bridgeId: string;
  rowId: string;
  rowStatus: RowOutcome;
  crmState: string;
  /** Null: the provider took the status; else why nothing was sent. */
  note: string | null;
  at: Date;
}

export class FollowUps implements FollowUpRecords {
  readonly #db: Kysely<Database>;

  constructor(db: Kysely<Database>) {
    this.#db = db;
  }

  /** The follow-up tasks among a batch's history entries, watched from now on (one statement). */
  async record(entries: readonly NoteEntry[]): Promise<void> {
    const rows = entries.flatMap((e) =>
      e.followUp
        ? [
            {
              crm: e.crm,
              tenant: e.tenant,
              task_id: e.noteId,
              account_id: e.accountId,
              dedupe_key: e.dedupeKey,
              buyer_id: e.buyerId,
              owner_id: e.followUp.ownerId,
              bridge_id: e.followUp.bridgeId,
              row_id: e.followUp.rowId,
              created_at: e.at,
            },
          ]
        : [],
    );
    if (!rows.length) return;
    await this.#db
      .insertInto('follow_ups')
      .values(rows)
      .onConflict((oc) => oc.columns(['crm', 'tenant', 'task_id']).doNothing())
      .execute();
  }

  /** The tenants with open follow-ups. */
  async tenants(): Promise<{ crm: string; tenant: string }[]> {
    return this.#db
      .selectFrom('follow_ups')
      .select(['crm', 'tenant'])
      .distinct()
      .where('closed_at', 'is', null)
      .execute();
  }

  /**
   * A tenant's open follow-ups, oldest first, a page at a time (`after`: the last task id of the page
   * before). A task an undo removed is ours to remove, not a person's dismissal: it is left out.
   */
  async open(crm: string, tenant: string, limit: number, after?: string): Promise<OpenFollowUp[]> {
    const rows = await sql<{
      task_id: string;
      account_id: string;
      dedupe_key: string;
      buyer_id: string | null;
      bridge_id: string;
      row_id: string;
      closing: RowOutcome | null;
      crm_state: string | null;
    }>`select task_id, account_id, dedupe_key, buyer_id, bridge_id, row_id, closing, crm_state
      from follow_ups f
      where crm = ${crm} and tenant = ${tenant} and closed_at is null
        ${after === undefined ? sql`` : sql`and task_id > ${after}`}
        and not exists (select 1 from notes_removed r
          where r.crm = f.crm and r.tenant = f.tenant and r.note_id = f.task_id)
      order by task_id limit ${limit}`.execute(this.#db);
    return rows.rows.map((r) => ({
      crm,
      tenant,
      taskId: r.task_id,
      accountId: r.account_id,
      dedupeKey: r.dedupe_key,
      buyerId: r.buyer_id,
      bridgeId: r.bridge_id,
      rowId: r.row_id,
      closing: r.closing,
      crmState: r.crm_state,
    }));
  }

  /** Claims the row status a task's state decided; false when it is closed or claimed otherwise. */
  async claim(f: OpenFollowUp, outcome: RowOutcome, crmState: string): Promise<boolean> {
    const result = await this.#db
      .updateTable('follow_ups')
      .set({ closing: outcome, crm_state: crmState })
      .where('crm', '=', f.crm)
      .where('tenant', '=', f.tenant)
      .where('task_id', '=', f.taskId)
      .where('closed_at', 'is', null)
      .where((eb) => eb.or([eb('closing', 'is', null), eb('closing', '=', outcome)]))
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }

  /** Whether another task of the same provider row already set it to this status. */
  async rowAlreadySet(bridgeId: string, rowId: string, outcome: RowOutcome): Promise<boolean> {
    const row = await this.#db
      .selectFrom('follow_up_closures')
      .select('id')
      .where('bridge_id', '=', bridgeId)
      .where('row_id', '=', rowId)
      .where('row_status', '=', outcome)
      .executeTakeFirst();
    return row !== undefined;
  }

  /** The loop is closed for this task: its closure goes on the history, the task is no longer watched. */
  async close(f: OpenFollowUp, outcome: RowOutcome, crmState: string, note: string | null): Promise<void> {
    await this.#db.transaction().execute(async (tx) => {
      await tx
        .insertInto('follow_up_closures')
        .values({
          crm: f.crm,
          tenant: f.tenant,
          task_id: f.taskId,
          account_id: f.accountId,
          buyer_id: f.buyerId,
          dedupe_key: f.dedupeKey,
          bridge_id: f.bridgeId,
          row_id: f.rowId,
          row_status: outcome,
          crm_state: crmState,
          note,
        })
        .onConflict((oc) => oc.columns(['crm', 'tenant', 'task_id']).doNothing())
        .execute();
      await tx
        .updateTable('follow_ups')
        .set({ closed_at: new Date() })
        .where('crm', '=', f.crm)
        .where('tenant', '=', f.tenant)
        .where('task_id', '=', f.taskId)
        .execute();
    });
  }

  /** A task deleted where deletion is no dismissal: no longer watched, its row left alone. */
  async forget(f: OpenFollowUp): Promise<void> {
    await this.#db
      .updateTable('follow_ups')
      .set({ closed_at: new Date(), crm_state: 'deleted' })
      .where('crm', '=', f.crm)
      .where('tenant', '=', f.tenant)
      .where('task_id', '=', f.taskId)
      .where('closed_at', 'is', null)
      .execute();
  }

  /** The closures, newest first (tests, the demo). */
  async closures(limit = 100): Promise<FollowUpClosure[]> {
    const rows = await this.#db
      .selectFrom('follow_up_closures')
      .selectAll()
      .orderBy('id', 'desc')
      .limit(limit)
      .execute();
    return rows.map((r) => ({
      id: String(r.id),
      crm: r.crm,
      tenant: r.tenant,
      taskId: r.task_id,
      accountId: r.account_id,
      bridgeId: r.bridge_id,
      rowId: r.row_id,
      rowStatus: r.row_status,
      crmState: r.crm_state,
      note: r.note,
      at: r.at,
    }));
  }
}
