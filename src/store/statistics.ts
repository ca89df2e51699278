// Table statistics while a tenant grows. PostgreSQL plans a tenant's lookups (a chunk's outcomes by
// account id, its pending rows, what we last wrote, its duplicates groups) from its statistics of the
// tenant's size; taken before the tenant had rows (a first backfill on a new tenant, autovacuum off or
// behind) they say "one row", and the planner reads the tenant's whole range of an index with a filter
// instead of looking each account up: a cost per account that grows with the tenant (issue 42). No
// shape of those statements is safe from that — every index of the tables starts with (crm, tenant) —
// so the store refreshes the statistics itself when they are far off, cheaply and boundedly:
//
// - every CHECK_EVERY outcomes a process records for a tenant, it compares the planner's estimate of
//   the tenant's accounts (EXPLAIN of a count) with their number (outcome_counts: exact, one row per
//   cohort): two small statements, never one per statement recorded;
// - when the tenant has at least MIN_ROWS accounts and more than FAR_OFF times the estimate, ANALYZE
//   the tables a run grows. ANALYZE samples a bounded number of rows (about 0.1–0.3 s here whatever
//   the size), and the estimate only falls that far behind each time the tenant doubles or so: about
//   log2(accounts / MIN_ROWS) times in a first backfill (9 for 250,000), shared by every process (one
//   process's ANALYZE corrects every process's estimate). SKIP_LOCKED: a table another process is
//   analysing is left to it rather than waited for.
import { type Kysely, sql } from 'kysely';
import type { Database } from './schema.ts';

const CHECK_EVERY = 500;
const MIN_ROWS = 500;
const FAR_OFF = 2;

/** ANALYZE of the tables a run grows (skipping one another session is analysing). */
export async function analyzeGrowingTables(db: Kysely<Database>): Promise<void> {
  await sql`analyze (skip_locked) account_outcomes, field_writes, notes_created, buyer_accounts`.execute(db);
}

/** The planner's estimate of the tenant's accounts, and their number. */
async function tenantRows(db: Kysely<Database>, crm: string, tenant: string) {
  const plan = await sql<{ 'QUERY PLAN': [{ Plan: { 'Plan Rows': number } }] }>`explain (format json)
    select 1 from account_outcomes where crm = ${crm} and tenant = ${tenant}`.execute(db);
  const counted = await db
    .selectFrom('outcome_counts')
    .where('crm', '=', crm)
    .where('tenant', '=', tenant)
    .select((eb) => eb.fn.sum<string>('n').as('n'))
    .executeTakeFirst();
  return {
    estimated: plan.rows[0]?.['QUERY PLAN'][0].Plan['Plan Rows'] ?? 0,
    actual: Number(counted?.n ?? 0),
  };
}

export class StatisticsRefresh {
  readonly #db: Kysely<Database>;
  /** Outcomes recorded per tenant by this process since its last check. */
  readonly #since = new Map<string, number>();
  #checking: Promise<void> | undefined;

  constructor(db: Kysely<Database>) {
    this.#db = db;
  }

  /**
   * `n` outcomes of the tenant were recorded; every CHECK_EVERY, the statistics are checked and
   * refreshed when far off. Resolves once done; never rejects (a failure costs speed only).
   */
  async recorded(crm: string, tenant: string, n: number): Promise<void> {
    const key = `${crm}\u0000${tenant}`;
    const since = (this.#since.get(key) ?? 0) + n;
    if (since < CHECK_EVERY || this.#checking) {
      this.#since.set(key, since);
      return;
    }
    this.#since.set(key, 0);
    this.#checking = this.#check(crm, tenant)
      .catch(() => undefined)
      .finally(() => {
        this.#checking = undefined;
      });
    await this.#checking;
  }

  async #check(crm: string, tenant: string): Promise<void> {
    const { estimated, actual } = await tenantRows(this.#db, crm, tenant);
    if (actual >= MIN_ROWS && actual > FAR_OFF * estimated) await analyzeGrowingTables(this.#db);
  }
}
