// A run's page (GET /api/runs/:id) counts the latest outcomes that name the run, by status. Without an
// index that is a scan of every account (~250,000) per look at a run; this one holds only outcomes
// that name a run. Frozen once released.
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createIndex('account_outcomes_by_run')
    .on('account_outcomes')
    .columns(['run_id', 'status'])
    .where(sql.ref('run_id'), 'is not', null)
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('account_outcomes_by_run').ifExists().execute();
}
