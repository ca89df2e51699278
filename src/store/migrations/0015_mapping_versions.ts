// The mapping and match thresholds edited in the admin console (issue 47): each save is a version, the
// whole mapping document (validated by the mapping file's schema before it is stored) and the
// thresholds (null: the configuration's), who saved it, when and why, and the version it reverts when
// it is a revert. Global, as the mapping is: one mapping serves every CRM and tenant. The newest
// version is the one in force. Frozen once released.
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`create table mapping_versions (
    version integer primary key check (version >= 1),
    document jsonb not null,
    thresholds jsonb,
    actor text not null,
    reason text,
    reverts integer references mapping_versions (version),
    created_at timestamptz not null default now()
  )`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop table if exists mapping_versions`.execute(db);
}
