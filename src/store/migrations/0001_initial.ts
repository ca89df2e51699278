// The system of record's first schema. A migration is frozen once released: its value lists are
// spelled out here, not imported, so a later change to the code cannot rewrite history.
//
// Indexes follow the reads the review queue makes over ~250,000 accounts: counts per cohort per
// tenant, a cohort sorted by confidence or by date with keyset paging, a name search (pg_trgm: in
// PostgreSQL's contrib, trusted since PostgreSQL 13, and in PGlite), and duplicates (accounts of one
// tenant resolved to one buyer).
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`create extension if not exists pg_trgm`.execute(db);

  await db.schema
    .createTable('runs')
    .addColumn('id', 'bigint', (c) => c.generatedByDefaultAsIdentity().primaryKey())
    .addColumn('kind', 'text', (c) =>
      c
        .notNull()
        .check(sql`kind in ('webhook', 'refresh', 'backfill', 'reenrich', 'confirm', 'review', 'undo')`),
    )
    .addColumn('key', 'text', (c) => c.unique())
    .addColumn('label', 'text', (c) => c.notNull())
    .addColumn('actor', 'text')
    .addColumn('started_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('finished_at', 'timestamptz')
    .addColumn('counts', 'jsonb', (c) => c.notNull().defaultTo(sql`'{}'::jsonb`))
    .execute();
  await db.schema.createIndex('runs_recent').on('runs').columns(['started_at desc', 'id desc']).execute();

  await db.schema
    .createTable('account_outcomes')
    .addColumn('id', 'bigint', (c) => c.generatedByDefaultAsIdentity().notNull().unique())
    .addColumn('crm', 'text', (c) => c.notNull())
    .addColumn('tenant', 'text', (c) => c.notNull())
    .addColumn('account_id', 'text', (c) => c.notNull())
    .addColumn('account_name', 'text')
    .addColumn('state', 'text')
    .addColumn('status', 'text', (c) =>
      c.notNull().check(sql`status in ('enriched', 'needs_review', 'no_match', 'error')`),
    )
    .addColumn('cohort', 'text', (c) =>
      c
        .notNull()
        .check(sql`cohort in ('matched_by_id', 'matched_by_name', 'needs_review', 'no_match', 'error')`),
    )
    .addColumn('matched_by', 'text', (c) => c.check(sql`matched_by in ('id', 'name')`))
    .addColumn('buyer_id', 'text')
    .addColumn('buyer_name', 'text')
    .addColumn('buyer_type', 'text')
    .addColumn('confidence', sql`numeric(4, 3)`)
    .addColumn('reason', 'text')
    .addColumn('candidates', 'jsonb', (c) => c.notNull().defaultTo(sql`'[]'::jsonb`))
    .addColumn('detail', 'jsonb')
    .addColumn('trigger', 'text')
    .addColumn('error', 'text')
    .addColumn('pinned', 'boolean', (c) => c.notNull().defaultTo(false))
    .addColumn('run_id', 'bigint')
    .addColumn('job_id', 'text')
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addPrimaryKeyConstraint('account_outcomes_pk', ['crm', 'tenant', 'account_id'])
    .execute();
  // Counts per cohort for a tenant: an index-only scan.
  await db.schema
    .createIndex('account_outcomes_counts')
    .on('account_outcomes')
    .columns(['crm', 'tenant', 'cohort'])
    .execute();
  // A cohort by confidence, keyset on (confidence, id); no confidence (no match) sorts as -1.
  await db.schema
    .createIndex('account_outcomes_by_confidence')
    .on('account_outcomes')
    .expression(sql`cohort, coalesce(confidence, -1), id`)
    .execute();
  // A cohort by date, keyset on (updated_at, id).
  await db.schema
    .createIndex('account_outcomes_by_date')
    .on('account_outcomes')
    .columns(['cohort', 'updated_at', 'id'])
    .execute();
  // Every cohort by date: the admin page's recent list.
  await db.schema
    .createIndex('account_outcomes_recent')
    .on('account_outcomes')
    .columns(['updated_at', 'id'])
    .execute();
  await db.schema
    .createIndex('account_outcomes_name_trgm')
    .on('account_outcomes')
    .using('gin')
    .expression(sql`account_name gin_trgm_ops`)
    .execute();
  await db.schema
    .createIndex('account_outcomes_duplicates')
    .on('account_outcomes')
    .columns(['crm', 'tenant', 'buyer_id'])
    .where(sql.ref('buyer_id'), 'is not', null)
    .execute();

  await db.schema
    .createTable('decisions')
    .addColumn('id', 'bigint', (c) => c.generatedByDefaultAsIdentity().primaryKey())
    .addColumn('crm', 'text', (c) => c.notNull())
    .addColumn('tenant', 'text', (c) => c.notNull())
    .addColumn('account_id', 'text', (c) => c.notNull())
    .addColumn('action', 'text', (c) =>
      c.notNull().check(sql`action in ('confirm', 'reject', 'research', 'approve', 'clear')`),
    )
    .addColumn('buyer_id', 'text')
    .addColumn('params', 'jsonb', (c) => c.notNull().defaultTo(sql`'{}'::jsonb`))
    .addColumn('actor_kind', 'text', (c) =>
      c.notNull().check(sql`actor_kind in ('api-key', 'crm-user', 'cli', 'admin')`),
    )
    .addColumn('actor', 'text', (c) => c.notNull())
    .addColumn('run_id', 'bigint')
    .addColumn('at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
  await db.schema
    .createIndex('decisions_account')
    .on('decisions')
    .columns(['crm', 'tenant', 'account_id', 'at desc'])
    .execute();
  await db.schema.createIndex('decisions_run').on('decisions').column('run_id').execute();

  // For the field-history issue (written there, created here so it adds no migration of its own).
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

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of ['notes_created', 'field_writes', 'decisions', 'account_outcomes', 'runs'])
    await db.schema.dropTable(table).ifExists().execute();
}
