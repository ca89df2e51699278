// How many other accounts of its tenant share each account's buyer, read from buyer_accounts (the
// per-buyer counters migration 0004's triggers keep) by its full key. Counted from account_outcomes,
// the planner had to pick between the tenant's buyer index and its primary key, and on statistics
// older than the tenant (a first backfill, autovacuum off) it took the primary key: every account of
// the tenant read per account recorded (issue 42: 5,999 rows filtered per account at 6,000). A
// counter's primary key is the only index the lookup can use, whatever the statistics say, and a
// scalar subquery per account keeps it a probe per account: never a join that could read the table.
import { type Kysely, sql } from 'kysely';
import { jsonRecordset } from './json-rows.ts';
import type { Database } from './schema.ts';

export interface WrittenRow {
  crm: string;
  tenant: string;
  account_id: string;
  buyer_id: string | null;
}

/**
 * Per account written, the other accounts of its tenant on its buyer as committed now (0 without a
 * buyer): one statement, run after the outcomes' own, so it also sees what other jobs committed
 * meanwhile (two jobs recording one buyer's accounts at the same moment: the later count sees both).
 */
export async function othersOnBuyer(
  db: Kysely<Database>,
  written: readonly WrittenRow[],
): Promise<Map<string, number>> {
  const sharing = new Map(written.map((r) => [r.account_id, 0]));
  const keyed = written.filter((r) => r.buyer_id !== null);
  if (!keyed.length) return sharing;
  const { rows } = await sql<{ account_id: string; n: string | null }>`
    select k.account_id, (select b.n from buyer_accounts b
      where b.crm = k.crm and b.tenant = k.tenant and b.buyer_id = k.buyer_id) as n
    from ${jsonRecordset(keyed, { crm: 'text', tenant: 'text', account_id: 'text', buyer_id: 'text' }, 'k')}`.execute(
    db,
  );
  // The counter counts the account itself.
  for (const r of rows) sharing.set(r.account_id, Math.max(0, Number(r.n ?? 0) - 1));
  return sharing;
}
