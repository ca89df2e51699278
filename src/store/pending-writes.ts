// The write-ahead half of the write history: what a CRM batch is about to write, recorded before its
// call and settled with the CRM's answer after (src/write/batched-writes.ts). Field writes are rows of
// field_writes whose result is `pending` (migration 0010); notes wait in notes_pending (0011) until the
// CRM names their id. A row never settled (the store or the process went away between the call and its
// record) is settled against what the CRM holds: by the account's next job, or by the sweep
// (src/undo/settle-pending.ts).
import { type Kysely, sql } from 'kysely';
import type {
  FieldWriteEntry,
  NoteSettlement,
  PendingNoteEntry,
  PendingSettlement,
} from '../write/journal.ts';
import { insertFieldWrites, ORIGIN_TYPES, originRow } from './field-rows.ts';
import { jsonRecordset } from './json-rows.ts';
import { CRM_RESULTS, type Database } from './schema.ts';

/** The columns of a note's row (about to be created, or created), each with its SQL type. */
export const NOTE_TYPES = {
  ...ORIGIN_TYPES,
  dedupe_key: 'text',
  title: 'text',
  at: 'timestamptz',
} as const;

/** A note's row as NOTE_TYPES names its columns. */
export function noteRow(e: PendingNoteEntry) {
  return {
    ...originRow(e),
    dedupe_key: e.dedupeKey,
    title: e.title,
    at: e.at.toISOString(),
  };
}

export interface PendingAccount {
  crm: string;
  tenant: string;
  accountId: string;
}

/** Records the entries as pending (one statement); their ids, in the entries' order. */
export async function recordPendingFields(
  db: Kysely<Database>,
  entries: readonly FieldWriteEntry[],
): Promise<string[]> {
  if (!entries.length) return [];
  const pending = entries.map((e) => ({ ...e, result: 'pending' as const }));
  const rows = await insertFieldWrites(db, pending).returning(['id', 'account_id', 'field']).execute();
  const ids = new Map<string, string[]>();
  for (const r of rows) {
    const key = `${r.account_id}\u0000${r.field}`;
    ids.set(key, [...(ids.get(key) ?? []), String(r.id)]);
  }
  return entries.map((e) => {
    const id = ids.get(`${e.accountId}\u0000${e.field}`)?.shift();
    if (id === undefined) throw new Error(`no pending row recorded for ${e.accountId} ${e.field}`);
    return id;
  });
}

/**
 * Settles pending field rows with the CRM's answers (one statement). Each row is found by its id in
 * the primary key. "Still pending" is spelled as "none of the settled results" (the same, by the
 * table's check): spelled `= 'pending'`, it lets the planner read field_writes_pending_at, the index
 * of every row pending — which, autovacuum off, keeps an entry for every field write ever settled.
 */
export async function settlePendingFields(
  db: Kysely<Database>,
  settled: readonly PendingSettlement[],
): Promise<void> {
  if (!settled.length) return;
  const rows = settled.map((s) => ({ id: s.id, result: s.result, error: s.error }));
  const done = sql.join(CRM_RESULTS.filter((r) => r !== 'pending').map((r) => sql.lit(r)));
  await sql`update field_writes f set crm_result = s.result, crm_error = s.error
    from ${jsonRecordset(rows, { id: 'bigint', result: 'text', error: 'text' }, 's')}
    where f.id = any(${settled.map((s) => s.id)}::bigint[]) and f.id = s.id
      and f.crm_result not in (${done})`.execute(db);
}

/** Records notes about to be created (one statement); their ids, in the entries' order. */
export async function recordPendingNotes(
  db: Kysely<Database>,
  entries: readonly PendingNoteEntry[],
): Promise<string[]> {
  if (!entries.length) return [];
  // `n` keeps the ids in the entries' order whatever order the insert returns them in.
  const rows = entries.map((e, n) => ({ ...noteRow(e), n }));
  const { rows: ids } = await sql<{ id: string; n: string }>`
    with v as (
      select * from ${jsonRecordset(rows, { ...NOTE_TYPES, n: 'bigint' })}
    ), ids as (select v.*, nextval('write_history_seq') as id from v),
    ins as (
      insert into notes_pending (id, run_id, job_id, trigger, crm, tenant, account_id, buyer_id,
                                 dedupe_key, title, at)
      select id, run_id, job_id, trigger, crm, tenant, account_id, buyer_id, dedupe_key, title, at from ids
      returning id
    )
    select ids.id::text as id, ids.n::text as n from ids join ins on ins.id = ids.id order by ids.n`.execute(
    db,
  );
  return ids.map((r) => String(r.id));
}

/**
 * Settles pending notes (one statement): one the CRM created goes on notes_created under the same id
 * with the CRM's note id (unless that note is on the record already); one it did not create is dropped
 * (a refused note leaves nothing to record).
 *
 * Each pending row is found by its id in the primary key (`= any`: joined to the batch's rows instead,
 * the planner may scan notes_pending, whose settled rows stay behind as dead rows until a vacuum), and
 * each note's "already recorded?" is a probe of notes_created_note (migration 0013): a scalar subquery
 * per note, which PostgreSQL runs as such, where `not exists` may become a join reading every note.
 */
export async function settlePendingNotes(
  db: Kysely<Database>,
  settled: readonly NoteSettlement[],
): Promise<void> {
  if (!settled.length) return;
  await sql`with s as (
      select * from ${jsonRecordset(
        settled.map((s) => ({ id: s.id, note_id: s.noteId })),
        { id: 'bigint', note_id: 'text' },
        's',
      )}
    ), gone as (
      delete from notes_pending p where p.id = any(${settled.map((s) => s.id)}::bigint[])
      returning p.*
    )
    insert into notes_created (id, run_id, job_id, trigger, crm, tenant, account_id, buyer_id, note_id,
                               dedupe_key, title, at)
    select gone.id, run_id, job_id, trigger, crm, tenant, account_id, buyer_id, s.note_id, dedupe_key, title, at
    from gone join s on s.id = gone.id
    where s.note_id is not null and (
      select c.id from notes_created c
      where c.crm = gone.crm and c.tenant = gone.tenant and c.note_id = s.note_id limit 1
    ) is null`.execute(db);
}

export type PendingRows = Awaited<ReturnType<typeof pendingOfAccount>>;

/** The account's rows still pending: field writes and notes whose CRM answer was never recorded. */
export async function pendingOfAccount(db: Kysely<Database>, account: PendingAccount) {
  const rows = await pendingOfAccounts(db, account.crm, account.tenant, [account.accountId]);
  return rows.get(account.accountId) ?? { fields: [], notes: [] };
}

/** `pendingOfAccount` for several accounts of one tenant (a backfill chunk's): by account id. */
export async function pendingOfAccounts(
  db: Kysely<Database>,
  crm: string,
  tenant: string,
  accountIds: readonly string[],
) {
  const out = new Map<
    string,
    {
      fields: { id: string; field: string; wrote: string | null }[];
      notes: { id: string; dedupeKey: string }[];
    }
  >();
  if (!accountIds.length) return out;
  const [fields, notes] = await Promise.all([
    db
      .selectFrom('field_writes')
      .select(['id', 'account_id', 'field', 'new_value'])
      .where('crm', '=', crm)
      .where('tenant', '=', tenant)
      .where('account_id', 'in', [...accountIds])
      .where('crm_result', '=', 'pending')
      .orderBy('id')
      .execute(),
    db
      .selectFrom('notes_pending')
      .select(['id', 'account_id', 'dedupe_key'])
      .where('crm', '=', crm)
      .where('tenant', '=', tenant)
      .where('account_id', 'in', [...accountIds])
      .orderBy('id')
      .execute(),
  ]);
  const of = (accountId: string) => {
    const rows = out.get(accountId) ?? { fields: [], notes: [] };
    out.set(accountId, rows);
    return rows;
  };
  for (const r of fields)
    of(r.account_id).fields.push({ id: String(r.id), field: r.field, wrote: r.new_value });
  for (const r of notes) of(r.account_id).notes.push({ id: String(r.id), dedupeKey: r.dedupe_key });
  return out;
}

/** Accounts with a row pending since before `before` (the sweep's), at most `limit`. */
export async function accountsPendingSince(
  db: Kysely<Database>,
  before: Date,
  limit: number,
): Promise<PendingAccount[]> {
  const { rows } = await sql<{ crm: string; tenant: string; account_id: string }>`
    select crm, tenant, account_id from field_writes where crm_result = 'pending' and at < ${before}
    union
    select crm, tenant, account_id from notes_pending where at < ${before}
    limit ${limit}`.execute(db);
  return rows.map((r) => ({ crm: r.crm, tenant: r.tenant, accountId: r.account_id }));
}
