// Outcomes of the run's own tenant put in the store before a backfill: the account_outcomes table as
// the end of a long backfill leaves it (20,000 accounts where the run adds 1,000), so a short run shows
// whether the store's cost per account grows with the table — the duplicates queries read the tenant's
// accounts by buyer. Other accounts and other buyers than the run's (3 accounts a buyer, the bench's
// ratio), so the run's duplicates groups and CRM writes stay its own. One statement.
import { sql } from 'kysely';
import { type DatabaseSettings, openDatabase } from '../src/store/db.ts';

export async function preloadOutcomes(
  settings: DatabaseSettings,
  target: { crm: string; tenant: string },
  n: number,
): Promise<number> {
  const handle = openDatabase(settings);
  try {
    await sql`insert into account_outcomes (crm, tenant, account_id, account_name, state, status, cohort,
        matched_by, buyer_id, buyer_name, buyer_type, confidence, reason, candidates, detail, trigger, updated_at)
      select ${target.crm}, ${target.tenant}, 'preloaded-' || i, 'Preloaded account ' || i, 'TX',
        'enriched', 'matched_by_name', 'name', 'preloaded-buyer-' || (i / 3), 'Preloaded buyer ' || (i / 3),
        'City', 0.9, 'preloaded by the bench', '[]'::jsonb, '{}'::jsonb, 'backfill',
        now() - interval '1 day'
      from generate_series(1, ${n}::int) as i`.execute(handle.db);
    return n;
  } finally {
    await handle.close();
  }
}
