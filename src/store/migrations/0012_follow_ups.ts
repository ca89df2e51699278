// Follow-up tasks assigned to account owners, and what closed the loop back to the provider. A task we
// create is watched (`follow_ups`) until a person completes or dismisses it; the sweep then claims the
// row's new status (`closing`, so a retry after a failed provider call sends the same one) and, once
// the provider took it, appends the closure to the write history (`follow_up_closures`, numbered from
// `write_history_seq` like every other history row). One closure per task: the primary key says so.
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('follow_ups')
    .addColumn('crm', 'text', (c) => c.notNull())
    .addColumn('tenant', 'text', (c) => c.notNull())
    .addColumn('task_id', 'text', (c) => c.notNull())
    .addColumn('account_id', 'text', (c) => c.notNull())
    .addColumn('dedupe_key', 'text', (c) => c.notNull())
    .addColumn('buyer_id', 'text')
    .addColumn('owner_id', 'text', (c) => c.notNull())
    .addColumn('bridge_id', 'text', (c) => c.notNull())
    .addColumn('row_id', 'text', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('closing', 'text', (c) => c.check(sql`closing in ('Actioned', 'NotInterested')`))
    .addColumn('crm_state', 'text')
    .addColumn('closed_at', 'timestamptz')
    .addPrimaryKeyConstraint('follow_ups_pk', ['crm', 'tenant', 'task_id'])
    .execute();
  // The sweep reads the open ones of a tenant, oldest first.
  await sql`create index follow_ups_open on follow_ups (crm, tenant, created_at) where closed_at is null`.execute(
    db,
  );

  await db.schema
    .createTable('follow_up_closures')
    .addColumn('id', 'bigint', (c) => c.primaryKey().defaultTo(sql`nextval('write_history_seq')`))
    .addColumn('crm', 'text', (c) => c.notNull())
    .addColumn('tenant', 'text', (c) => c.notNull())
    .addColumn('task_id', 'text', (c) => c.notNull())
    .addColumn('account_id', 'text', (c) => c.notNull())
    .addColumn('buyer_id', 'text')
    .addColumn('dedupe_key', 'text', (c) => c.notNull())
    .addColumn('bridge_id', 'text', (c) => c.notNull())
    .addColumn('row_id', 'text', (c) => c.notNull())
    .addColumn('row_status', 'text', (c) => c.notNull())
    .addColumn('crm_state', 'text', (c) => c.notNull())
    /** Null: the provider took the status; else why it was not sent (set already, row gone). */
    .addColumn('note', 'text')
    .addColumn('at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addUniqueConstraint('follow_up_closures_task', ['crm', 'tenant', 'task_id'])
    .execute();
  await db.schema
    .createIndex('follow_up_closures_account')
    .on('follow_up_closures')
    .expression(sql`crm, account_id, tenant, id desc`)
    .execute();
  await db.schema
    .createIndex('follow_up_closures_row')
    .on('follow_up_closures')
    .columns(['bridge_id', 'row_id'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('follow_up_closures').execute();
  await db.schema.dropTable('follow_ups').execute();
}
