// A note is recorded `pending` before its CRM call, as a field write is (0010): a row per note about to
// be created, with its dedupe key, moved to notes_created (same id, so the history keeps its order)
// once the CRM answers with the note's id, or dropped when the CRM refused it. A row left behind (the
// store or the process went away between the call and its record) is settled later against the notes
// the CRM holds. Its id comes from the history's sequence.
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('notes_pending')
    .addColumn('id', 'bigint', (c) => c.primaryKey().defaultTo(sql`nextval('write_history_seq')`))
    .addColumn('run_id', 'bigint')
    .addColumn('job_id', 'text')
    .addColumn('trigger', 'text')
    .addColumn('crm', 'text', (c) => c.notNull())
    .addColumn('tenant', 'text', (c) => c.notNull())
    .addColumn('account_id', 'text', (c) => c.notNull())
    .addColumn('buyer_id', 'text')
    .addColumn('dedupe_key', 'text', (c) => c.notNull())
    .addColumn('title', 'text')
    .addColumn('at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
  await db.schema
    .createIndex('notes_pending_account')
    .on('notes_pending')
    .columns(['crm', 'tenant', 'account_id'])
    .execute();
  // The sweep finds pending rows by age, of both kinds.
  await db.schema.createIndex('notes_pending_at').on('notes_pending').column('at').execute();
  await sql`create index field_writes_pending_at on field_writes (at) where crm_result = 'pending'`.execute(
    db,
  );
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop index field_writes_pending_at`.execute(db);
  await db.schema.dropTable('notes_pending').execute();
}
