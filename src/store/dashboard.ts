// What the console's dashboard reads, each cheap whatever the number of accounts: the accounts per
// CRM, tenant and status from the counters the outcome triggers keep (0004: a few rows), the review
// backlog's size and age from the cohort-by-date index (one index-only range scan of the accounts
// waiting, no sort of the table), and the notes written per week from their weekly counters (0015).
import { type Kysely, sql } from 'kysely';
import type { Database, OutcomeStatus } from './schema.ts';

export interface BacklogAge {
  waiting: number;
  /** When the longest-waiting account got its outcome; null when none waits. */
  oldest: Date | null;
  median: Date | null;
  /** Accounts waiting under a day, 1–7 days, 7–30 days, over 30 days. */
  ages: { underDay: number; underWeek: number; underMonth: number; older: number };
}

const DAY_MS = 86_400_000;

export class DashboardQueries {
  readonly #db: Kysely<Database>;

  constructor(db: Kysely<Database>) {
    this.#db = db;
  }

  async statusByTenant(): Promise<{ crm: string; tenant: string; status: OutcomeStatus; n: number }[]> {
    const rows = await this.#db
      .selectFrom('outcome_counts')
      .select(['crm', 'tenant', 'cohort', 'n'])
      .where('n', '>', sql<string>`0`)
      .orderBy('crm')
      .orderBy('tenant')
      .execute();
    const out = new Map<string, { crm: string; tenant: string; status: OutcomeStatus; n: number }>();
    for (const r of rows) {
      // Both matched cohorts are the enriched status.
      const status: OutcomeStatus = r.cohort.startsWith('matched_by_')
        ? 'enriched'
        : (r.cohort as OutcomeStatus);
      const key = `${r.crm}\u0000${r.tenant}\u0000${status}`;
      const had = out.get(key);
      if (had) had.n += Number(r.n);
      else out.set(key, { crm: r.crm, tenant: r.tenant, status, n: Number(r.n) });
    }
    return [...out.values()];
  }

  async reviewBacklog(now = new Date()): Promise<BacklogAge> {
    const at = (days: number) => new Date(now.getTime() - days * DAY_MS);
    const row = await this.#db
      .selectFrom('account_outcomes')
      .where('cohort', '=', 'needs_review')
      .select([
        sql<string>`count(*)`.as('waiting'),
        sql<Date | null>`min(updated_at)`.as('oldest'),
        sql<Date | null>`percentile_disc(0.5) within group (order by updated_at)`.as('median'),
        sql<string>`count(*) filter (where updated_at >= ${at(1)})`.as('d1'),
        sql<string>`count(*) filter (where updated_at >= ${at(7)})`.as('d7'),
        sql<string>`count(*) filter (where updated_at >= ${at(30)})`.as('d30'),
      ])
      .executeTakeFirstOrThrow();
    const [waiting, d1, d7, d30] = [row.waiting, row.d1, row.d7, row.d30].map(Number) as [
      number,
      number,
      number,
      number,
    ];
    const date = (v: Date | string | null) => (v === null ? null : new Date(v));
    return {
      waiting,
      oldest: date(row.oldest),
      median: date(row.median),
      ages: { underDay: d1, underWeek: d7 - d1, underMonth: d30 - d7, older: waiting - d30 },
    };
  }

  /** Notes written per week (Monday, UTC) for the `weeks` weeks up to this one, oldest first, zeros kept. */
  async notesPerWeek(weeks: number, now = new Date()): Promise<{ week: string; n: number }[]> {
    const monday = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()));
    monday.setUTCDate(monday.getUTCDate() - ((monday.getUTCDay() + 6) % 7));
    const starts = Array.from({ length: weeks }, (_, i) => {
      const d = new Date(monday);
      d.setUTCDate(d.getUTCDate() - 7 * (weeks - 1 - i));
      return d.toISOString().slice(0, 10);
    });
    const rows = await this.#db
      .selectFrom('notes_by_week')
      .select([sql<string>`to_char(week, 'YYYY-MM-DD')`.as('week'), sql<string>`sum(n)`.as('n')])
      .where('week', '>=', sql<Date>`${starts[0]}::date`)
      .groupBy('week')
      .execute();
    const byWeek = new Map(rows.map((r) => [r.week, Number(r.n)]));
    return starts.map((week) => ({ week, n: byWeek.get(week) ?? 0 }));
  }
}
