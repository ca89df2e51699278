// The console dashboard's first render at CRM scale: 250,000 accounts (the review bench's data) and
// 1,000,000 signal notes over 12 weeks on a fresh PostgreSQL database, then the dashboard's reads and
// its HTML as GET /admin/dashboard makes them (without Redis: its budget parts are a few keys), timed
// `--runs` times. The goal is the console's: ≤ 300 ms at p95. Plans with `--explain`.
// Alone: `node bench/dashboard.ts [--accounts N] [--notes N] [--runs N] [--explain]`.
import { sql } from 'kysely';
import { dashboardData } from '../src/admin/dashboard-data.ts';
import { renderDashboard } from '../src/admin/dashboard-page.ts';
import { DashboardQueries } from '../src/store/dashboard.ts';
import type { Repositories, Store } from '../src/store/store.ts';
import { benchArgs } from './args.ts';
import { postgresUrl } from './review.ts';
import { buildReviewData } from './review-data.ts';
import { openPostgres } from './review-engines.ts';

const { values } = benchArgs({
  usage: 'node bench/dashboard.ts [options]',
  summary: "The console dashboard's reads and HTML at CRM scale, on a fresh PostgreSQL database.",
  options: {
    accounts: { type: 'string', default: '250000', value: '<n>', describe: 'accounts in the store' },
    notes: { type: 'string', default: '1000000', value: '<n>', describe: 'signal notes over 12 weeks' },
    runs: { type: 'string', default: '30', value: '<n>', describe: 'renders timed' },
    explain: { type: 'boolean', default: false, describe: "print PostgreSQL's EXPLAIN ANALYZE of each read" },
  },
});
const accounts = Number(values.accounts);
const engine = await openPostgres(postgresUrl());
if (typeof engine === 'string') throw new Error(engine);
try {
  const { rows } = buildReviewData(accounts);
  for (let i = 0; i < rows.length; i += 3000)
    await engine.db
      .insertInto('account_outcomes')
      .values(rows.slice(i, i + 3000))
      .execute();
  // Notes over the last 12 weeks, as enrichments write them (the weekly counters' trigger runs).
  await sql`insert into notes_created (crm, tenant, account_id, note_id, dedupe_key, at)
    select 'hubspot', '1', (g % ${accounts})::text, g::text, 'k' || g, now() - (g % 84) * interval '1 day'
    from generate_series(1, ${Number(values.notes)}) g`.execute(engine.db);
  await sql`analyze account_outcomes`.execute(engine.db);
  const dashboard = new DashboardQueries(engine.db);
  const store = { open: async () => ({ dashboard }) as unknown as Repositories } as Pick<Store, 'open'>;
  const times: number[] = [];
  let bytes = 0;
  for (let i = 0; i < Number(values.runs) + 2; i++) {
    const started = performance.now();
    const html = renderDashboard(await dashboardData(store, undefined, {}));
    if (i >= 2) times.push(performance.now() - started);
    bytes = html.length;
  }
  times.sort((a, b) => a - b);
  const at = (q: number) => Math.round((times[Math.ceil(times.length * q) - 1] ?? 0) * 10) / 10;
  console.log(
    `dashboard at ${accounts.toLocaleString('en-US')} accounts, ${Number(values.notes).toLocaleString('en-US')} notes: median ${at(0.5)} ms, p95 ${at(0.95)} ms over ${times.length} renders (${bytes} bytes of HTML)`,
  );
  if (values.explain) {
    engine.takeQueries();
    await dashboard.statusByTenant();
    await dashboard.reviewBacklog();
    await dashboard.notesPerWeek(12);
    for (const q of engine.takeQueries()) console.log(`${q.sql}\n${await engine.explain?.(q)}\n`);
  }
} finally {
  await engine.close();
}
