// What the console's dashboard reads, each cheap whatever the number of accounts: the accounts per
// CRM, tenant and status from the counters the outcome triggers keep (0004: a few rows), the review
// backlog's size and age from its counters per day (0017: a row per day with accounts waiting) and
// the first entry of the cohort-by-date index, and the notes per week from their counters (0017).
import { type Kysely, sql } from 'kysely';
import type { Database, OutcomeStatus } from './schema.ts';

export interface BacklogAge {
  waiting: number;
  /** When the longest-waiting account got its outcome; null when none waits. */
  oldest: Date | null;
  /** The day (UTC, YYYY-MM-DD) by which half of the accounts waiting had their outcome. */
  medianDay: string | null;
  /** Accounts waiting since today, 1–6 days, 7–29 days, 30 days or more (UTC days). */
  ages: { today: number; underWeek: number; underMonth: number; older: number };
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
    const [days, first] = await Promise.all([
      this.#db
        .selectFrom('review_waiting_by_day')
        .select([sql<string>`to_char(day, 'YYYY-MM-DD')`.as('day'), sql<string>`sum(n)`.as('n')])
        .groupBy('day')
        .having(sql`sum(n)`, '>', sql`0`)
        .orderBy('day')
        .execute(),
      // The first entry of the cohort-by-date index: one index probe.
      this.#db
        .selectFrom('account_outcomes')
        .where('cohort', '=', 'needs_review')
        .select(sql<Date | string | null>`min(updated_at)`.as('oldest'))
        .executeTakeFirst(),
    ]);
    const today = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
    const ages = { today: 0, underWeek: 0, underMonth: 0, older: 0 };
    const waiting = days.reduce((a, d) => a + Number(d.n), 0);
    let seen = 0;
    let medianDay: string | null = null;
    for (const d of days) {
      const n = Number(d.n);
      const age = Math.round((today - Date.parse(`${d.day}T00:00:00Z`)) / DAY_MS);
      if (age <= 0) ages.today += n;
      else if (age < 7) ages.underWeek += n;
      else if (age < 30) ages.underMonth += n;
      else ages.older += n;
      seen += n;
      if (medianDay === null && seen * 2 >= waiting) medianDay = d.day;
    }
    const oldest = first?.oldest ?? null;
    return { waiting, oldest: oldest === null ? null : new Date(oldest), medianDay, ages };
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
