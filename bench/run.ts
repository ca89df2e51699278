// `npm run bench`: measured on the local emulators, real Redis and PostgreSQL, printed as tables and
// written to bench/results.json with the machine and its load average before and after each run.
// Sized to finish in under 10 minutes on a 2-core machine; bench/README.md says what each figure means
// and how the bound is computed. Flags (defaults in parentheses):
//   --accounts N            existing accounts in each backfill run's CRM emulator (5000)
//   --buyers N              distinct buyers they are spread over (3000)
//   --hubspot-workers LIST  worker processes per HubSpot backfill run (1,2)
//   --salesforce-workers LIST  worker processes per Salesforce backfill run (1)
//   --concurrency N         jobs per worker process (20, WORKER_CONCURRENCY's default)
//   --warmup-s N            seconds after the queueing before the window (10)
//   --window-s N            the measured window (60)
//   --run-timeout-s N       one backfill run gives up after this (240)
//   --latency-ms N          latency the emulators add to every upstream call (80)
//   --bi-limit N            Buyer Intelligence requests/min in its emulator, set not to bind (300000)
//   --cache-ttl-ms N        Buyer Intelligence cache TTL in the workers (300000, the service's default)
//   --latency-accounts N    accounts of the idle-latency run; 0 skips it (20)
//   --ingest-s N            seconds per autocannon run (4)
//   --calls N               client calls per operation; 0 skips the client section (500)
//   --review-accounts N     accounts loaded into PostgreSQL in the review section (100000)
//   --review-pglite-accounts N  accounts loaded into PGlite there (50000)
//   --review-runs N         timed runs of each read there (20)
//   --only LIST             ingest,backfill,latency,client,review (all)
import { writeFileSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';
import { parseArgs } from 'node:util';
import { buildDataset } from '../emulators/buyer-intel/data/dataset.ts';
import { redisForDemo } from '../emulators/private-redis.ts';
import { renderRecords } from '../src/cli/table.ts';
import { type BackfillBenchResult, runBackfillBench } from './backfill.ts';
import { runClientBench } from './client.ts';
import { goalRows } from './goals.ts';
import { runIngestBench } from './ingest.ts';
import { runLatencyBench } from './latency.ts';
import { printBackfills, printGoals } from './print.ts';
import { benchRedis } from './redis-stats.ts';
import { postgresUrl, printReviewBench, runReviewBench } from './review.ts';

const { values } = parseArgs({
  options: {
    accounts: { type: 'string', default: '5000' },
    buyers: { type: 'string', default: '3000' },
    'hubspot-workers': { type: 'string', default: '1,2' },
    'salesforce-workers': { type: 'string', default: '1' },
    concurrency: { type: 'string', default: '20' },
    'warmup-s': { type: 'string', default: '10' },
    'window-s': { type: 'string', default: '60' },
    'run-timeout-s': { type: 'string', default: '240' },
    'latency-ms': { type: 'string', default: '80' },
    'bi-limit': { type: 'string', default: '300000' },
    'cache-ttl-ms': { type: 'string', default: '300000' },
    'latency-accounts': { type: 'string', default: '20' },
    'ingest-s': { type: 'string', default: '4' },
    calls: { type: 'string', default: '500' },
    'review-accounts': { type: 'string', default: '100000' },
    'review-pglite-accounts': { type: 'string', default: '50000' },
    'review-runs': { type: 'string', default: '20' },
    only: { type: 'string', default: 'ingest,backfill,latency,client,review' },
  },
});
type NumericOption = Exclude<keyof typeof values, 'hubspot-workers' | 'salesforce-workers' | 'only'>;
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
const load = () => loadavg().map((x) => +x.toFixed(2));

const t0 = performance.now();
const needsSandbox = ['ingest', 'backfill', 'latency', 'client'].some((s) => sections.has(s));
const dataset = needsSandbox ? buildDataset({ seed: 42 }) : undefined;
const report: Record<string, unknown> = {
  at: new Date().toISOString(),
  machine: {
    cpus: cpus().length,
    cpuModel: cpus()[0]?.model,
    memoryGb: Math.round(totalmem() / 2 ** 30),
    node: process.version,
    platform: `${process.platform}-${process.arch}`,
    loadAverageAtStart: load(),
  },
};
const save = () =>
  writeFileSync(new URL('./results.json', import.meta.url), `${JSON.stringify(report, null, 2)}\n`);
/** A run with the load average (1, 5, 15 min) before and after it: the machine may be shared. */
async function measured<T>(
  run: () => Promise<T>,
): Promise<T & { loadAverage: { before: number[]; after: number[] } }> {
  const before = load();
  const result = await run();
  return { ...result, loadAverage: { before, after: load() } };
}

const sharedRedis = needsSandbox
  ? await redisForDemo(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379')
  : undefined;
// The backfill and latency runs count Redis commands (INFO commandstats is server-wide): a private server.
const ownRedis =
  sharedRedis && (sections.has('backfill') || sections.has('latency'))
    ? await benchRedis(sharedRedis.url)
    : undefined;
const pg = postgresUrl();
const goals: Parameters<typeof goalRows>[0] = { backfills: [] };

try {
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
    console.log(
      `\nIngest: POST /webhooks/hubspot, every request new (fresh ids, signed as sent), autocannon 16 connections × ${num('ingest-s')} s; bare = express.json() + 200`,
    );
    console.log(
      renderRecords(
        ingest.summary.map((r) => ({
          'events/request': r.eventsPerRequest,
          'requests/s': r.requestsPerSecond,
          'accepted events/s': r.eventsPerSecond,
          'accepted events': r.acceptedEvents,
          'jobs created': r.jobsCreated,
          'p50 ms': r.p50Ms,
          'p99 ms': r.p99Ms,
          'bare requests/s': r.bareRequestsPerSecond,
          'ours / bare': r.ratioToBare,
          non2xx: r.non2xx,
        })),
      ),
    );
    save();
  }

  if (sections.has('backfill') && dataset && ownRedis) {
    const runs: (BackfillBenchResult & { label: string; loadAverage: unknown })[] = [];
    const plan = [
      ...list(values['hubspot-workers']).map((w) => ['hubspot', w] as const),
      ...list(values['salesforce-workers']).map((w) => ['salesforce', w] as const),
    ];
    for (const [crm, workers] of plan) {
      const label = `${crm === 'hubspot' ? 'HubSpot' : 'Salesforce'} ×${workers}`;
      console.log(`\nbackfill ${label}: ${num('accounts')} accounts, load average ${load().join(' ')}`);
      const r = await measured(() =>
        runBackfillBench({
          crm,
          workers,
          redisUrl: ownRedis.url,
          postgresUrl: pg,
          dataset,
          accounts: num('accounts'),
          buyers: num('buyers'),
          latencyMs: num('latency-ms'),
          concurrency: num('concurrency'),
          buyerIntelPerMinute: num('bi-limit'),
          cacheTtlMs: num('cache-ttl-ms'),
          warmupS: num('warmup-s'),
          windowS: num('window-s'),
          timeoutS: num('run-timeout-s'),
        }),
      ).catch((err: unknown) => {
        console.error(`backfill ${label} failed: ${(err as Error).stack ?? err}`);
        return null;
      });
      if (!r) continue;
      r.redis.private = ownRedis.private;
      runs.push({ ...r, label });
      report.backfill = runs;
      save();
    }
    goals.backfills = runs;
    console.log(
      `\nBackfill at the real limits: HubSpot 190/10 s (Professional private app), Salesforce 100,000/day (Enterprise), Buyer Intelligence ${num('bi-limit')}/min (set not to bind); ` +
        `upstream latency ${num('latency-ms')} ms; window ${num('window-s')} s after ${num('warmup-s')} s warm-up; Redis ${ownRedis.private ? 'private (commands are ours alone, scripts’ internal calls included)' : 'shared (commands of other clients included)'}`,
    );
    printBackfills(runs);
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

  if (sections.has('backfill') || sections.has('latency')) {
    const rows = goalRows(goals);
    report.goals = rows;
    console.log('\nGoals (issue #15) → measured');
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
