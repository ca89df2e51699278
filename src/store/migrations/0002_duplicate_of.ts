// The review queue's duplicates: which account of a duplicates group an account was last marked a
// duplicate of in its CRM (`buyer_intel_duplicate_of`), so that a group changing writes only the
// accounts whose mark changes. Frozen once released.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('account_outcomes').addColumn('duplicate_of', 'text').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('account_outcomes').dropColumn('duplicate_of').execute();
}
