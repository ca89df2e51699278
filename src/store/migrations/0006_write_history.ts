// The write history: every field we write (or a policy keeps from us) and every note we create, kept
// until a person prunes it. 0001 created `field_writes` and `notes_created` ahead of time, but no release
// ever wrote them, so they are replaced rather than altered: the shape they need was only known once
// something wrote them — the field's mapped attribute and policy, provenance apart from mapped fields,
// what asked for a write when no run names it (a webhook, the CLI), the CRM's error, and a note
// recorded again when it is created again after an undo (0001's primary key forbade that).
//
// One sequence numbers both tables, so an account's (or a run's) writes and notes read back in the
// order they were recorded with one keyset. Frozen once released.
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('notes_created').execute();
  await db.schema.dropTable('field_writes').execute();
  await sql`create sequence write_history_seq`.execute(db);

  await db.schema
    .createTable('field_writes')
    .addColumn('id', 'bigint', (c) => c.primaryKey().defaultTo(sql`nextval('write_history_seq')`))
    .addColumn('run_id', 'bigint')
    .addColumn('job_id', 'text')
    .addColumn('trigger', 'text')
    .addColumn('crm', 'text', (c) => c.notNull())
    .addColumn('tenant', 'text', (c) => c.notNull())
    .addColumn('account_id', 'text', (c) => c.notNull())
    .addColumn('buyer_id', 'text')
    .addColumn('field', 'text', (c) => c.notNull())
    .addColumn('attribute', 'text')
    .addColumn('kind', 'text', (c) => c.notNull().check(sql`kind in ('mapped', 'provenance')`))
    .addColumn('policy', 'text')
    .addColumn('old_value', 'text')
    .addColumn('new_value', 'text')
    .addColumn('decision', 'text', (c) => c.notNull())
    .addColumn('crm_result', 'text', (c) => c.notNull().check(sql`crm_result in ('ok', 'error', 'not_sent')`))
    .addColumn('crm_error', 'text')
    .addColumn('at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
  // An account's history, newest first (with or without its tenant: the CLI may not know it).
  await db.schema
    .createIndex('field_writes_account')
    .on('field_writes')
    .expression(sql`crm, account_id, tenant, id desc`)
    .execute();
  // The last row per field of an account: what we last wrote (the `ours` policy) and whether a kept
  // value was already recorded.
  await db.schema
    .createIndex('field_writes_account_field')
    .on('field_writes')
    .expression(sql`crm, tenant, account_id, field, id desc`)
    .execute();
  await db.schema
    .createIndex('field_writes_run')
    .on('field_writes')
    .columns(['run_id', 'id'])
    .where(sql.ref('run_id'), 'is not', null)
    .execute();
  // Pruning by date: rows are appended in time order, so a block range index is a few pages.
  await db.schema.createIndex('field_writes_at').on('field_writes').using('brin').column('at').execute();

  await db.schema
    .createTable('notes_created')
    .addColumn('id', 'bigint', (c) => c.primaryKey().defaultTo(sql`nextval('write_history_seq')`))
    .addColumn('run_id', 'bigint')
    .addColumn('job_id', 'text')
    .addColumn('trigger', 'text')
    .addColumn('crm', 'text', (c) => c.notNull())
    .addColumn('tenant', 'text', (c) => c.notNull())
    .addColumn('account_id', 'text', (c) => c.notNull())
    .addColumn('buyer_id', 'text')
    .addColumn('note_id', 'text', (c) => c.notNull())
    .addColumn('dedupe_key', 'text', (c) => c.notNull())
    .addColumn('title', 'text')
    .addColumn('at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
  await db.schema
    .createIndex('notes_created_account')
    .on('notes_created')
    .expression(sql`crm, account_id, tenant, id desc`)
    .execute();
  await db.schema
    .createIndex('notes_created_run')
    .on('notes_created')
    .columns(['run_id', 'id'])
    .where(sql.ref('run_id'), 'is not', null)
    .execute();
  await db.schema.createIndex('notes_created_at').on('notes_created').using('brin').column('at').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('notes_created').execute();
  await db.schema.dropTable('field_writes').execute();
  await sql`drop sequence write_history_seq`.execute(db);
  // 0001's shape, as it was.
  await db.schema
    .createTable('field_writes')
    .addColumn('id', 'bigint', (c) => c.generatedByDefaultAsIdentity().primaryKey())
    .addColumn('run_id', 'bigint')
    .addColumn('job_id', 'text')
    .addColumn('crm', 'text', (c) => c.notNull())
    .addColumn('tenant', 'text', (c) => c.notNull())
    .addColumn('account_id', 'text', (c) => c.notNull())
    .addColumn('buyer_id', 'text')
    .addColumn('field', 'text', (c) => c.notNull())
    .addColumn('old_value', 'text')
    .addColumn('new_value', 'text')
    .addColumn('policy_decision', 'text', (c) => c.notNull())
    .addColumn('crm_result', 'text', (c) => c.notNull())
    .addColumn('at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
  await db.schema
    .createIndex('field_writes_account')
    .on('field_writes')
    .columns(['crm', 'tenant', 'account_id', 'at desc'])
    .execute();
  await db.schema.createIndex('field_writes_run').on('field_writes').column('run_id').execute();
  await db.schema
    .createTable('notes_created')
    .addColumn('crm', 'text', (c) => c.notNull())
    .addColumn('tenant', 'text', (c) => c.notNull())
    .addColumn('account_id', 'text', (c) => c.notNull())
    .addColumn('note_id', 'text', (c) => c.notNull())
    .addColumn('dedupe_key', 'text', (c) => c.notNull())
    .addColumn('run_id', 'bigint')
    .addColumn('job_id', 'text')
    .addColumn('at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addPrimaryKeyConstraint('notes_created_pk', ['crm', 'tenant', 'account_id', 'dedupe_key'])
    .execute();
  await db.schema.createIndex('notes_created_run').on('notes_created').column('run_id').execute();
}
