// `npm run bench`: measured on the local emulators, real Redis and PostgreSQL, printed as tables and
// written to bench/results.json with the machine and its load average before and after each run.
// Sized to finish in under 10 minutes on a 2-core machine; bench/README.md says what each figure means,
// how the bound is computed, and lists the flags (sizes, windows, sections).
import { writeFileSync } from 'node:fs';
import { buildDataset } from '../emulators/buyer-intel/data/dataset.ts';
import { redisForDemo } from '../emulators/private-redis.ts';
import { renderRecords } from '../src/cli/table.ts';
import { benchArgs } from './args.ts';
import { runBackfills } from './backfill-runs.ts';
import { runClientBench } from './client.ts';
import { consolePagesBench, printConsolePages } from './console-pages.ts';
import { CUSTOMER_SCENARIOS, runCustomerBench } from './customer.ts';
import { goalRows, waitOf } from './goals.ts';
import { printHeapCurve, runHeapCurve } from './heap-curve.ts';
import { runIngestBench } from './ingest.ts';
import { runLatencyBench } from './latency.ts';
import { load, machine, measured } from './machine.ts';
import { pgGrowth } from './pg-growth.ts';
import { printBackfills, printCustomer, printGoals, printIngest } from './print.ts';
import { benchRedis } from './redis-stats.ts';
import { postgresUrl, printReviewBench, runReviewBench } from './review.ts';
import { RUN_COMMAND } from './run-options.ts';
import { WORKER_NODE_FLAGS } from './workers.ts';

const { values } = benchArgs(RUN_COMMAND);
type NumericOption = Exclude<
  keyof typeof values,
  'hubspot-workers' | 'salesforce-workers' | 'only' | 'heap-curve' | 'customer-runs'
>;
const num = (name: NumericOption) => {
  const n = Number(values[name]);
  if (!Number.isFinite(n) || n < 0) {
    console.error(`--${name} must be a non-negative number`);
    process.exit(2);
  }
  return n;
};
const list = (s: string) =>
  s
    .split(',')
    .map(Number)
    .filter((n) => Number.isInteger(n) && n > 0);
const sections = new Set(values.only.split(','));

const t0 = performance.now();
const needsSandbox = ['customer', 'ingest', 'backfill', 'latency', 'client', 'heap-curve'].some((s) =>
  sections.has(s),
);
const dataset = needsSandbox ? buildDataset({ seed: 42 }) : undefined;
const report: Record<string, unknown> = {
  at: new Date().toISOString(),
  machine: machine(),
};
const save = () =>
  writeFileSync(new URL('./results.json', import.meta.url), `${JSON.stringify(report, null, 2)}\n`);

const sharedRedis = needsSandbox
  ? await redisForDemo(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379')
  : undefined;
// The backfill and latency runs count Redis commands (INFO commandstats is server-wide): a private server.
const ownRedis =
  sharedRedis && ['customer', 'backfill', 'latency', 'heap-curve'].some((s) => sections.has(s))
    ? await benchRedis(sharedRedis.url)
    : undefined;
const pg = postgresUrl();
/** The settings every backfill run of this invocation shares (the backfill section, the heap curve). */
const backfillRun = (redisUrl: string, data: NonNullable<typeof dataset>) => ({
  redisUrl,
  postgresUrl: pg,
  dataset: data,
  accounts: num('accounts'),
  buyers: num('buyers'),
  latencyMs: num('latency-ms'),
  concurrency: num('concurrency'),
  buyerIntelPerMinute: num('bi-limit'),
  cacheTtlMs: num('cache-ttl-ms'),
  warmupS: num('warmup-s'),
  windowS: num('window-s'),
  timeoutS: num('run-timeout-s'),
});
const goals: Parameters<typeof goalRows>[0] = { backfills: [] };

try {
  if (sections.has('customer') && dataset && ownRedis) {
    const picked = list(values['customer-runs']);
    const runs = await runCustomerBench({
      ...backfillRun(ownRedis.url, dataset),
      accounts: num('customer-accounts'),
      buyers: num('customer-buyers'),
      timeoutS: num('run-timeout-s'),
      scenarios: CUSTOMER_SCENARIOS.filter((_, i) => picked.includes(i + 1)),
      onRun: (done) => {
        report.customer = done;
        save();
      },
    });
    goals.customer = runs;
    printCustomer(runs, num('latency-ms'));
  }

  if (sections.has('pg-growth') && pg) {
    const growth = await pgGrowth({ serverUrl: pg, accounts: num('pg-growth-accounts') });
    report.pgGrowth = growth;
    goals.pgGrowth = growth;
    console.log(
      `\nPostgreSQL as a new tenant grows to ${num('pg-growth-accounts').toLocaleString('en-US')} accounts, autovacuum off: ${growth.points.map((p) => `${p.at}: ${p.cpuMsPerAccount} ms`).join(', ')} of CPU per account`,
    );
    save();
  }

  if (sections.has('ingest') && dataset && sharedRedis) {
    const ingest = await measured(() =>
      runIngestBench({
        redisUrl: sharedRedis.url,
        postgresUrl: pg,
        dataset,
        durationS: num('ingest-s'),
        connections: 16,
        batchSizes: [1, 100],
      }),
    );
    report.ingest = ingest;
    printIngest(ingest, num('ingest-s'));
    save();
  }

  if (sections.has('backfill') && dataset && ownRedis) {
    const runs = await runBackfills(
      [
        ...list(values['hubspot-workers']).map((w) => ['hubspot', w] as const),
        ...list(values['salesforce-workers']).map((w) => ['salesforce', w] as const),
      ],
      { ...backfillRun(ownRedis.url, dataset), preloadOutcomes: num('preload-outcomes') },
      (done) => {
        for (const r of done) r.redis.private = ownRedis.private;
        report.backfill = done;
        save();
      },
    );
    goals.backfills = runs;
    // What a customer waits for leads: from the first HubSpot run's measured calls per account.
    const first = runs[0];
    if (first) {
      const wait = waitOf(first);
      const m = report.machine as ReturnType<typeof machine>;
      report.customerWait = wait;
      console.log(
        `\nA ${wait.accounts.toLocaleString('en-US')}-account backfill at the provider's default rate (${wait.ratePerSecond} requests/s, shared by every worker) takes ${wait.hours} hours ` +
          `(issue 31's before: ${wait.beforeHours} h): ${wait.callsPerAccount} Buyer Intelligence calls/account measured on realistic names (${first.accounts} accounts over ${first.buyers} buyers), signals ${wait.signals === 'feed' ? `from the org-wide feed (${wait.feedCalls} calls in all; one call per new buyer instead: ${wait.perBuyerHours} h)` : 'one call per new buyer'}; ` +
          `${first.accountsPerSecond} accounts/s (${first.workers} worker) = ${+(first.accountsPerSecond / Math.max(1, first.workers)).toFixed(1)} per worker core; ${first.crmCalls.perAccount} CRM calls/account; ` +
          `machine ${m.cpuModel ?? '?'}, ${m.cpus} cores, load ${m.loadAverageAtStart.join(' ')} at start, ${load().join(' ')} now`,
      );
    }
    console.log(
      `\nCPU probe — the provider's limit lifted (not where customers run): HubSpot 190/10 s (Professional private app), Salesforce 100,000/day (Enterprise), Buyer Intelligence ${num('bi-limit')}/min (set not to bind); ` +
        `upstream latency ${num('latency-ms')} ms; window ${num('window-s')} s after ${num('warmup-s')} s warm-up; Redis ${ownRedis.private ? 'private (commands are ours alone, scripts’ internal calls included)' : 'shared (commands of other clients included)'}; ` +
        `workers run with ${process.env.BENCH_WORKER_NODE_OPTIONS?.trim() || WORKER_NODE_FLAGS.join(' ')}`,
    );
    printBackfills(runs);
  }

  if (sections.has('heap-curve') && dataset && ownRedis) {
    const points = await runHeapCurve(
      values['heap-curve'].split(',').filter(Boolean),
      backfillRun(ownRedis.url, dataset),
    );
    report.heapCurve = points;
    console.log(
      `\nHeap curve: HubSpot ×1, ${num('accounts')} accounts over ${num('buyers')} buyers, window ${num('window-s')} s after ${num('warmup-s')} s; machine ${machine().cpuModel ?? '?'}, ${machine().cpus} cores`,
    );
    printHeapCurve(points);
    save();
  }

  if (sections.has('latency') && dataset && ownRedis && num('latency-accounts') > 0) {
    const latency = await measured(() =>
      runLatencyBench({
        redisUrl: ownRedis.url,
        postgresUrl: pg,
        dataset,
        accounts: num('latency-accounts'),
        latencyMs: num('latency-ms'),
        cacheTtlMs: num('cache-ttl-ms'),
        perAccountTimeoutS: 30,
      }),
    );
    report.latency = latency;
    goals.latency = latency;
    console.log(
      `\nIdle latency, webhook-created account → job completed, one at a time, 1 worker: p50 ${latency.p50Ms} ms, p95 ${latency.p95Ms} ms, max ${latency.maxMs} ms over ${latency.measured} accounts (goal ${latency.goalMs} ms = ${latency.goal})`,
    );
    save();
  }

  if (sections.has('client') && num('calls') > 0 && dataset) {
    const client = await runClientBench({ calls: num('calls'), concurrency: 16, latencyMs: 0, dataset });
    report.client = client;
    console.log(
      `\nClient against the sandbox (${num('calls')} calls each, concurrency 16, no added latency)`,
    );
    console.log(renderRecords(client));
    save();
  }

  if (sections.has('review')) {
    const review = await measured(() =>
      runReviewBench({
        accounts: num('review-accounts'),
        pgliteAccounts: num('review-pglite-accounts'),
        runs: Math.max(1, num('review-runs')),
        postgresUrl: pg,
      }),
    );
    report.review = review;
    printReviewBench(review);
    save();
  }

  if (sections.has('console')) {
    const pages = await consolePagesBench({
      accounts: num('console-accounts'),
      writes: num('console-writes'),
      runs: Math.max(1, num('console-runs')),
    });
    report.consolePages = pages;
    printConsolePages(pages);
    save();
  }

  if (['customer', 'backfill', 'latency', 'pg-growth'].some((x) => sections.has(x))) {
    const rows = goalRows(goals);
    report.goals = rows;
    console.log('\nGoals (issues 31 and 42) → measured');
    printGoals(rows);
  }
} finally {
  await ownRedis?.stop();
  await sharedRedis?.stop();
  (report.machine as Record<string, unknown>).loadAverageAtEnd = load();
  report.seconds = Math.round((performance.now() - t0) / 1000);
  save();
}
console.log(`\nwritten: bench/results.json (${report.seconds} s in all)`);
