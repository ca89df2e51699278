// Every console page's first render at CRM scale (issue 47's goal: ≤ 300 ms at p95). The review
// bench's 250,000 accounts (review-data.ts) over six tenants, 500,000 history rows and 300 runs on a
// fresh PostgreSQL database, then the real service (its HTTP, admin auth and routes, the emulators as
// its CRMs) answering GET for each page `--runs` times after two warm-ups; the time is the whole
// answer as a browser's first request gets it (HTML, no scripts run).
// Alone: `node bench/console-pages.ts [--accounts N] [--writes N] [--runs N] [--only pages]`; in the
// bench: `npm run bench -- --only console` (its table in bench/results.json as `consolePages`).
import { randomBytes, randomUUID } from 'node:crypto';
import { loadavg } from 'node:os';
import { Kysely, PostgresDialect, sql } from 'kysely';
import pg from 'pg';
import { buildDataset } from '../emulators/buyer-intel/data/dataset.ts';
import { startBuyerIntelSandbox } from '../emulators/buyer-intel/server.ts';
import { startHubSpotSandbox } from '../emulators/hubspot/server.ts';
import { startSalesforceSandbox } from '../emulators/salesforce/server.ts';
import { type SandboxEndpoints, sandboxSettings } from '../emulators/settings.ts';
import { createService } from '../src/service/runtime.ts';
import type { Database } from '../src/store/schema.ts';
import { benchArgs } from './args.ts';
import { benchDatabase } from './bench-db.ts';
import { postgresUrl } from './review.ts';
import { buildReviewData } from './review-data.ts';

export interface ConsolePagesOptions {
  accounts: number;
  writes: number;
  runs: number;
  /** Page names (their prefixes) to time; all when absent. */
  only?: readonly string[] | undefined;
}

export interface ConsolePageTime {
  page: string;
  path: string;
  p50Ms: number;
  p95Ms: number;
  bytes: number;
}

export interface ConsolePagesReport {
  accounts: number;
  writes: number;
  runs: number;
  seededS: number;
  loadAverage: { before: number[]; after: number[] };
  pages: ConsolePageTime[];
}

export async function consolePagesBench(options: ConsolePagesOptions): Promise<ConsolePagesReport> {
  const { accounts } = options;
  const db = await benchDatabase(postgresUrl());
  const dbUrl = 'url' in db.settings ? db.settings.url : undefined;
  if (!dbUrl) throw new Error(`PostgreSQL at ${postgresUrl()} is not reachable: this bench needs a server`);
  const pool = new pg.Pool({ connectionString: dbUrl, max: 2 });
  const kysely = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  const [bi, hs, sf] = await Promise.all([
    startBuyerIntelSandbox({ dataset: buildDataset({ seed: 42, buyerCount: 500 }), rateLimit: false }),
    startHubSpotSandbox({ rateLimits: false }),
    startSalesforceSandbox({}),
  ]);
  let service: ReturnType<typeof createService> | undefined;
  try {
    const seeding = performance.now();
    const { rows, search } = buildReviewData(accounts);
    for (let i = 0; i < rows.length; i += 3000)
      await kysely
        .insertInto('account_outcomes')
        .values(rows.slice(i, i + 3000))
        .execute();
    const one = rows.find((r, i) => i >= rows.length / 2 && r.crm === 'hubspot');
    if (!one) throw new Error('no accounts');
    // Runs as months of backfills, re-enrichments and undos leave them, and a history of writes over
    // every account (the chosen one has 40 of its own among them).
    await sql`insert into runs (kind, label, started_at, finished_at, counts)
      select (array['backfill','reenrich','undo','webhook'])[1 + g % 4], 'run ' || g,
        now() - g * interval '2 hours', now() - g * interval '2 hours' + interval '20 minutes',
        '{"enriched": 900, "needs_review": 80, "failed": 3}'::jsonb
      from generate_series(1, 300) g`.execute(kysely);
    await sql`insert into field_writes (run_id, crm, tenant, account_id, buyer_id, field, kind, policy,
        old_value, new_value, decision, crm_result, at)
      select 1 + g % 300, 'hubspot', '4410021', 'w' || (g % ${accounts}), 'b' || g,
        (array['buyer_intel_type','buyer_intel_county','buyer_intel_budget_amount','buyer_intel_url',
          'buyer_intel_population','buyer_intel_classifications','buyer_intel_employee_fte',
          'buyer_intel_budget_url','buyer_intel_fiscal_year_start_date','buyer_intel_email_domains'])[1 + g % 10],
        'mapped', 'fill-empty', null, 'v' || g, 'write', 'ok', now() - (g % 8000) * interval '1 minute'
      from generate_series(1, ${options.writes}) g`.execute(kysely);
    await sql`insert into field_writes (run_id, crm, tenant, account_id, buyer_id, field, kind, policy,
        old_value, new_value, decision, crm_result, at)
      select 1 + g % 300, ${one.crm}, ${one.tenant}, ${one.account_id}, 'b' || g, 'buyer_intel_type', 'mapped',
        'overwrite', 'old ' || g, 'new ' || g, 'write', 'ok', now() - g * interval '1 day'
      from generate_series(1, 40) g`.execute(kysely);
    await sql`analyze`.execute(kysely);
    const seeded = Math.round((performance.now() - seeding) / 1000);

    const admin = { username: 'ops', password: randomBytes(12).toString('hex') };
    const endpoints: SandboxEndpoints = {
      buyerIntel: { url: bi.url, token: bi.token },
      hubspot: hs,
      salesforce: sf,
    };
    const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
    service = createService({
      ...sandboxSettings(endpoints, { redisUrl, prefix: `bis-bench-console-${randomUUID().slice(0, 8)}` }),
      database: db.settings,
      admin,
    });
    await service.store.open();
    const http = await service.startHttp(0, '127.0.0.1');
    const authorization = `Basic ${Buffer.from(`${admin.username}:${admin.password}`).toString('base64')}`;
    const pages: [string, string][] = [
      ['dashboard', '/admin/dashboard'],
      ['accounts', '/admin/accounts'],
      [`accounts ?q=${search.term}`, `/admin/accounts?q=${encodeURIComponent(search.term)}`],
      ['accounts ?cohort=needs_review', '/admin/accounts?cohort=needs_review'],
      ['accounts ?cohort=error', '/admin/accounts?cohort=error'],
      ['review', '/admin/review'],
      ['review ?crm&tenant', `/admin/review?crm=${one.crm}&tenant=${encodeURIComponent(one.tenant)}`],
      ['runs', '/admin/runs'],
      ['history (40 writes)', `/admin/history/${one.crm}/${one.account_id}?tenant=${one.tenant}`],
      ['connections', '/admin/connections'],
      ['mapping', '/admin/mapping'],
    ];
    const loadNow = () => loadavg().map((l) => Math.round(l * 100) / 100);
    const before = loadNow();
    const times: ConsolePageTime[] = [];
    for (const [page, path] of pages) {
      if (options.only && !options.only.some((o) => page.startsWith(o))) continue;
      const took: number[] = [];
      let bytes = 0;
      for (let i = 0; i < options.runs + 2; i++) {
        const started = performance.now();
        const res = await fetch(`${http.url}${path}`, { headers: { authorization } });
        const text = await res.text();
        if (i >= 2) took.push(performance.now() - started);
        if (res.status !== 200) throw new Error(`${path} answered ${res.status}: ${text.slice(0, 300)}`);
        bytes = text.length;
      }
      took.sort((x, y) => x - y);
      const at = (q: number) => Math.round((took[Math.ceil(took.length * q) - 1] ?? 0) * 10) / 10;
      times.push({ page, path, p50Ms: at(0.5), p95Ms: at(0.95), bytes });
    }
    return {
      accounts,
      writes: options.writes,
      runs: options.runs,
      seededS: seeded,
      loadAverage: { before, after: loadNow() },
      pages: times,
    };
  } finally {
    await service?.close();
    await kysely.destroy();
    await Promise.all([bi.close(), hs.close(), sf.close()]);
    await db.drop();
  }
}

export function printConsolePages(r: ConsolePagesReport): void {
  console.log(
    `\nconsole pages at ${r.accounts.toLocaleString('en-US')} accounts, ${r.writes.toLocaleString('en-US')} writes, 300 runs (seeded in ${r.seededS} s), ${r.runs} renders each; load average ${r.loadAverage.before.join(' ')} → ${r.loadAverage.after.join(' ')}`,
  );
  console.log('| page | p50 ms | p95 ms | bytes |\n| --- | ---: | ---: | ---: |');
  for (const p of r.pages) console.log(`| ${p.page} | ${p.p50Ms} | ${p.p95Ms} | ${p.bytes} |`);
}

if (import.meta.main) {
  const { values } = benchArgs({
    usage: 'node bench/console-pages.ts [options]',
    summary: "Each console page's first render at CRM scale, through the service's HTTP, on PostgreSQL.",
    options: {
      accounts: { type: 'string', default: '250000', value: '<n>', describe: 'accounts in the store' },
      writes: { type: 'string', default: '500000', value: '<n>', describe: 'rows of write history' },
      runs: { type: 'string', default: '30', value: '<n>', describe: 'renders timed per page' },
      only: { type: 'string', default: '', value: '<names>', describe: 'comma-separated page names' },
    },
  });
  printConsolePages(
    await consolePagesBench({
      accounts: Number(values.accounts),
      writes: Number(values.writes),
      runs: Number(values.runs),
      only: values.only ? values.only.split(',') : undefined,
    }),
  );
}
