// A note's settlement asks whether the CRM's note is on the record already (notes_created by crm,
// tenant and the CRM's note id: src/store/pending-writes.ts). No index answered it: a scan of every
// note recorded, 0.13 ms on an empty table, 4.3 ms at 20,000 notes, 48 ms at 200,000 (issue 42).
//
// A plain CREATE INDEX, not CONCURRENTLY: Kysely's migrator runs the pending migrations in one
// transaction, where CONCURRENTLY is refused. The build holds off writes to notes_created while it
// reads the table (seconds for millions of notes); migrations run with the service stopped (it refuses
// a database with a pending migration: store.ts), so nothing waits on it. IF NOT EXISTS: an operator
// who built it by hand beforehand (CONCURRENTLY, on a live database) keeps theirs. Frozen once released.
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`create index if not exists notes_created_note on notes_created (crm, tenant, note_id)`.execute(
    db,
  );
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop index if exists notes_created_note`.execute(db);
}
