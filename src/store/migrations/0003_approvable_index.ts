// The bulk-approve preview ("approve 312 accounts?") counts the undecided accounts of a filter whose
// best candidate scores at least a floor. Over 250,000 accounts that was a scan of the whole table
// (~150 ms on PostgreSQL, see bench/review.ts); this partial index holds only those accounts, keyed by
// score, with the columns the review page filters by, so the count is an index-only range scan (~5 ms).
// Raw SQL: Kysely's index builder has no INCLUDE.
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create index account_outcomes_approvable on account_outcomes (confidence)
    include (crm, tenant, state, buyer_type, updated_at)
    where cohort = 'needs_review' and jsonb_array_length(candidates) > 0
  `.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('account_outcomes_approvable').ifExists().execute();
}
