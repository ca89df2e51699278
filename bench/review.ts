// The review queue at CRM scale: 250,000 accounts in the system of record, and the time of the reads
// the review page makes (cohort counts, first pages, a deep page, a name search, duplicates, the
// bulk-approve preview), on the real PostgreSQL and on the embedded PGlite, side by side. The goal,
// < 200 ms per read, is PostgreSQL's; PGlite's figures are printed beside it.
// Alone: `node bench/review.ts [--accounts N] [--pglite-accounts N] [--runs N] [--explain]`.
import { cpus, loadavg } from 'node:os';
import { sql } from 'kysely';
import { Outcomes } from '../src/store/outcomes.ts';
import { COHORTS, type NewOutcome } from '../src/store/schema.ts';
import { benchArgs } from './args.ts';
import { buildReviewData, TENANTS } from './review-data.ts';
import { type Engine, openPglite, openPostgres } from './review-engines.ts';

export const GOAL_MS = 200;
export const postgresUrl = (): string =>
  process.env.BENCH_DATABASE_URL ??
  process.env.TEST_DATABASE_URL ??
  'postgres://postgres@127.0.0.1:5432/postgres';
// 19 columns a row: 3,000 rows stay under the 65,535 parameters of one statement.
const BATCH = 3000;
const WARMUP = 2;

export interface ReadFigure {
  read: string;
  rows: number;
  medianMs: number;
  p95Ms: number;
}

export interface EngineFigures {
  accounts: number;
  loadS: number;
  rowsPerS: number;
  analyzeS: number;
  reads: ReadFigure[];
}

export interface ReviewBenchResult {
  machine: { cpus: number; loadBefore: number[]; loadAfter: number[] };
  search: { term: string; matches: number };
  runs: number;
  postgres: EngineFigures | { missing: string };
  pglite: EngineFigures;
  plans: Record<string, string>;
}

const median = (sorted: number[]) => sorted[Math.floor((sorted.length - 1) / 2)] ?? 0;
const p95 = (sorted: number[]) => sorted[Math.ceil(sorted.length * 0.95) - 1] ?? 0;
const ms = (x: number) => Math.round(x * 10) / 10;

async function load(engine: Engine, rows: readonly NewOutcome[]) {
  const started = performance.now();
  for (let i = 0; i < rows.length; i += BATCH)
    await engine.db
      .insertInto('account_outcomes')
      .values(rows.slice(i, i + BATCH))
      .execute();
  const loadS = (performance.now() - started) / 1000;
  // Statistics for the planner, and nothing more: the state right after a backfill, before autovacuum
  // has set the visibility map that index-only scans rely on.
  const a = performance.now();
  await sql`analyze account_outcomes`.execute(engine.db);
  engine.takeQueries();
  return {
    accounts: rows.length,
    loadS: Math.round(loadS * 10) / 10,
    rowsPerS: Math.round(rows.length / loadS),
    analyzeS: Math.round((performance.now() - a) / 100) / 10,
  };
}

type Read = { read: string; run: () => Promise<number> };

/** The reads of the review page, as the page makes them through the store. */
async function reads(outcomes: Outcomes, term: string): Promise<Read[]> {
  const first = TENANTS[0];
  const one = { crm: first.crm, tenant: first.tenant };
  const page = (sort: 'confidence' | 'date') => ({ sort, direction: 'desc' as const, limit: 50 });
  const list: Read[] = [
    { read: 'cohort counts, all tenants', run: async () => Object.keys(await outcomes.counts()).length },
    { read: 'cohort counts, one tenant', run: async () => Object.keys(await outcomes.counts(one)).length },
  ];
  for (const cohort of COHORTS)
    for (const sort of ['confidence', 'date'] as const)
      list.push({
        read: `${cohort}, first page by ${sort}`,
        run: async () => (await outcomes.list({ cohort }, page(sort))).rows.length,
      });
  list.push({
    read: 'needs_review of one tenant, first page by confidence',
    run: async () =>
      (await outcomes.list({ ...one, cohort: 'needs_review' }, page('confidence'))).rows.length,
  });
  // Page 200 (or the last, in a smaller run): the cursor of the page before, walked to once, untimed.
  let after: string | undefined;
  let deep = 1;
  for (; deep < 200; deep++) {
    const p = await outcomes.list({ cohort: 'needs_review' }, { ...page('confidence'), after });
    if (!p.next) break;
    after = p.next;
  }
  list.push(
    {
      read: `needs_review, page ${deep} by confidence (keyset)`,
      run: async () =>
        (await outcomes.list({ cohort: 'needs_review' }, { ...page('confidence'), after })).rows.length,
    },
    {
      read: `name search "${term}", first page by date`,
      run: async () => (await outcomes.list({ name: term }, page('date'))).rows.length,
    },
    {
      read: 'duplicates, first page by date',
      run: async () => (await outcomes.list({ duplicates: true }, page('date'))).rows.length,
    },
    {
      read: 'bulk-approve preview (≥ 0.7), all tenants',
      run: () => outcomes.countApprovable({ cohort: 'needs_review' }, 0.7),
    },
    {
      read: 'bulk-approve preview (≥ 0.7), one tenant',
      run: () => outcomes.countApprovable({ ...one, cohort: 'needs_review' }, 0.7),
    },
  );
  return list;
}

async function measure(
  engine: Engine,
  o: { term: string; runs: number; explainAll: boolean },
  plans: Record<string, string>,
) {
  const figures: ReadFigure[] = [];
  for (const { read, run } of await reads(new Outcomes(engine.db), o.term)) {
    let rows = 0;
    for (let i = 0; i < WARMUP; i++) rows = await run();
    const times: number[] = [];
    engine.takeQueries();
    for (let i = 0; i < o.runs; i++) {
      const s = performance.now();
      await run();
      times.push(performance.now() - s);
    }
    times.sort((a, b) => a - b);
    const figure = { read, rows, medianMs: ms(median(times)), p95Ms: ms(p95(times)) };
    figures.push(figure);
    const q = engine.takeQueries()[0];
    // A read that misses the goal shows its plan: that is what the bench is for.
    if (engine.explain && q && (o.explainAll || figure.p95Ms >= GOAL_MS))
      plans[read] = await engine.explain(q);
  }
  return figures;
}

export async function runReviewBench(o: {
  accounts: number;
  pgliteAccounts: number;
  runs: number;
  postgresUrl: string;
  explain?: boolean;
  log?: (line: string) => void;
}): Promise<ReviewBenchResult> {
  const say = o.log ?? ((line: string) => console.log(line));
  const loadBefore = loadavg().map((x) => Math.round(x * 100) / 100);
  const t = performance.now();
  const data = buildReviewData(Math.max(o.accounts, o.pgliteAccounts));
  say(
    `review: ${data.rows.length} accounts generated in ${Math.round((performance.now() - t) / 100) / 10} s`,
  );
  const plans: Record<string, string> = {};
  const engineRun = async (engine: Engine, count: number): Promise<EngineFigures> => {
    try {
      const loaded = await load(engine, data.rows.slice(0, count));
      say(`review: ${engine.name} loaded ${count} accounts in ${loaded.loadS} s`);
      const engineReads = await measure(
        engine,
        { term: data.search.term, runs: o.runs, explainAll: o.explain ?? false },
        plans,
      );
      return { ...loaded, reads: engineReads };
    } finally {
      await engine.close();
    }
  };
  const pgEngine = await openPostgres(o.postgresUrl);
  const postgres =
    typeof pgEngine === 'string' ? { missing: pgEngine } : await engineRun(pgEngine, o.accounts);
  const pglite = await engineRun(await openPglite(), o.pgliteAccounts);
  return {
    machine: { cpus: cpus().length, loadBefore, loadAfter: loadavg().map((x) => Math.round(x * 100) / 100) },
    search: data.search,
    runs: o.runs,
    postgres,
    pglite,
    plans,
  };
}

export function printReviewBench(r: ReviewBenchResult): void {
  const pgFigures = 'missing' in r.postgres ? undefined : r.postgres;
  console.log(
    `\nReview queue: ${pgFigures?.accounts ?? '–'} accounts on PostgreSQL, ${r.pglite.accounts} on PGlite (in memory); ` +
      `median and p95 of ${r.runs} runs after ${WARMUP} warm-ups; goal < ${GOAL_MS} ms per read on PostgreSQL. ` +
      `${r.machine.cpus} cores, load ${r.machine.loadBefore.join(' ')} → ${r.machine.loadAfter.join(' ')}`,
  );
  if (!pgFigures)
    console.log(`  PostgreSQL figures missing: ${'missing' in r.postgres ? r.postgres.missing : ''}`);
  const loadRow = (f: EngineFigures | undefined) =>
    f ? `${f.loadS} s (${f.rowsPerS}/s) + analyze ${f.analyzeS} s` : '–';
  console.log(`  load, PostgreSQL: ${loadRow(pgFigures)}`);
  console.log(`  load, PGlite:     ${loadRow(r.pglite)}`);
  console.log(`  name search "${r.search.term}" matches ${r.search.matches} accounts`);
  console.table(
    r.pglite.reads.map((lite, i) => {
      const pgRead = pgFigures?.reads[i];
      return {
        read: lite.read,
        'rows / count': pgRead?.rows ?? lite.rows,
        'PostgreSQL median ms': pgRead?.medianMs ?? '–',
        'PostgreSQL p95 ms': pgRead?.p95Ms ?? '–',
        // Judged on the p95, not the median: most reads, not the typical one, must answer in time.
        [`p95 < ${GOAL_MS} ms`]: pgRead ? (pgRead.p95Ms < GOAL_MS ? 'met' : 'NOT MET') : 'missing',
        'PGlite median ms': lite.medianMs,
        'PGlite p95 ms': lite.p95Ms,
      };
    }),
  );
  for (const [read, plan] of Object.entries(r.plans))
    console.log(`\nEXPLAIN ANALYZE (PostgreSQL), ${read}:\n${plan}`);
}

if (import.meta.main) {
  const { values } = benchArgs({
    usage: 'node bench/review.ts [options]',
    summary:
      "The review queue's reads at CRM scale, on PostgreSQL and the embedded PGlite side by side (npm run bench runs it with its own sizes).",
    options: {
      accounts: {
        type: 'string',
        default: '250000',
        value: '<n>',
        describe: 'accounts in the store on PostgreSQL',
      },
      'pglite-accounts': { type: 'string', default: '250000', value: '<n>', describe: 'the same on PGlite' },
      runs: { type: 'string', default: '20', value: '<n>', describe: 'times each read is timed' },
      explain: {
        type: 'boolean',
        default: false,
        describe: "print PostgreSQL's EXPLAIN ANALYZE of each read",
      },
    },
  });

  const count = (name: 'accounts' | 'pglite-accounts' | 'runs') => {
    const n = Number(values[name]);
    if (Number.isInteger(n) && n > 0) return n;
    console.error(`--${name} must be a positive whole number`);
    process.exit(2);
  };
  const result = await runReviewBench({
    accounts: count('accounts'),
    pgliteAccounts: count('pglite-accounts'),
    runs: count('runs'),
    explain: values.explain,
    postgresUrl: postgresUrl(),
  });
  printReviewBench(result);
}
