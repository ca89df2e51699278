// Undo (src/undo/): the notes an undo removed, on the write history beside the notes we created (same
// sequence, so they read back in order with the rest); which undo run is still open for a target (one at
// a time: a second undo of the same run while the first is under way resumes it rather than racing it);
// and each undo run's accounts, `started` before their CRM writes and `done` once those are recorded,
// so a run resumed after a kill skips what is done and can tell its own earlier writes. Frozen once
// released.
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('notes_removed')
    .addColumn('id', 'bigint', (c) => c.primaryKey().defaultTo(sql`nextval('write_history_seq')`))
    .addColumn('run_id', 'bigint')
    .addColumn('job_id', 'text')
    .addColumn('trigger', 'text')
    .addColumn('crm', 'text', (c) => c.notNull())
    .addColumn('tenant', 'text', (c) => c.notNull())
    .addColumn('account_id', 'text', (c) => c.notNull())
    .addColumn('buyer_id', 'text')
    .addColumn('note_id', 'text', (c) => c.notNull())
    .addColumn('dedupe_key', 'text')
    .addColumn('title', 'text')
    .addColumn('outcome', 'text', (c) => c.notNull().check(sql`outcome in ('removed', 'already_gone')`))
    .addColumn('at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
  // Whether a note we created was removed since (one lookup per note an undo plans).
  await db.schema
    .createIndex('notes_removed_note')
    .on('notes_removed')
    .columns(['crm', 'tenant', 'note_id'])
    .execute();
  await db.schema
    .createIndex('notes_removed_account')
    .on('notes_removed')
    .expression(sql`crm, account_id, tenant, id desc`)
    .execute();
  await db.schema
    .createIndex('notes_removed_run')
    .on('notes_removed')
    .columns(['run_id', 'id'])
    .where(sql.ref('run_id'), 'is not', null)
    .execute();
  await db.schema.createIndex('notes_removed_at').on('notes_removed').using('brin').column('at').execute();

  await db.schema
    .createTable('undo_runs')
    .addColumn('run_id', 'bigint', (c) => c.primaryKey().references('runs.id'))
    /** `run:<id>`, `job:<id>` or `change:<crm>:<tenant>:<account>:<last id>`: what it takes back. */
    .addColumn('target', 'text', (c) => c.notNull())
    .addColumn('finished', 'boolean', (c) => c.notNull().defaultTo(false))
    .execute();
  await db.schema
    .createIndex('undo_runs_open')
    .on('undo_runs')
    .column('target')
    .unique()
    .where(sql.ref('finished'), '=', false)
    .execute();

  await db.schema
    .createTable('undo_accounts')
    .addColumn('run_id', 'bigint', (c) => c.notNull())
    .addColumn('crm', 'text', (c) => c.notNull())
    .addColumn('tenant', 'text', (c) => c.notNull())
    .addColumn('account_id', 'text', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull().check(sql`state in ('started', 'done')`))
    .addColumn('at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addPrimaryKeyConstraint('undo_accounts_pk', ['run_id', 'crm', 'tenant', 'account_id'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('undo_accounts').execute();
  await db.schema.dropTable('undo_runs').execute();
  await db.schema.dropTable('notes_removed').execute();
}
