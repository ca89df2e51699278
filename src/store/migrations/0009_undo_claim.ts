// One runner per undo run: the process running it claims its row for a while and renews the claim;
// another process of the same undo finds it held (and says by whom) until it is released or lapses (a
// killed runner frees it once `claimed_until` passes).
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('undo_runs').addColumn('holder', 'text').execute();
  await db.schema.alterTable('undo_runs').addColumn('claimed_until', 'timestamptz').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('undo_runs').dropColumn('claimed_until').execute();
  await db.schema.alterTable('undo_runs').dropColumn('holder').execute();
}
