// `npm run bench`: measured on the local sandboxes and real Redis, printed as tables and written to
// bench/results.json. Sizes are chosen so the whole run stays under 5 minutes on a 2-core machine; see
// bench/README.md for what each section measures and how to read it.
//   --accounts N          companies per scale-out run (default 2000)
//   --buyers N            distinct buyers they are spread over (default 600)
//   --latency-ms N        latency the sandboxes add to every upstream call (default 80)
//   --concurrency N       jobs per worker process (default 100)
//   --workers LIST        worker processes per scale-out run (default 1,2,4)
//   --hubspot-limit N     HubSpot requests per rolling 10 s in the scale-out runs (default 1900)
//   --bi-limit N          Buyer Intelligence requests per minute in the scale-out runs (default 6000)
//   --cache-ttl-ms N      Buyer Intelligence cache TTL in the workers; 0 = off (default 300000)
//   --uncached-accounts N companies of the run without the cache (1 worker); 0 skips it (default 600)
//   --limited-accounts N  companies of the run at the real limits (190/10 s, 600/min); 0 skips it (default 250)
//   --limited-concurrency N  jobs per worker in that run (default 20, WORKER_CONCURRENCY's default)
//   --limited-workers N   worker processes in that run (default 1)
//   --ingest-s N          seconds per autocannon run (default 4)
//   --calls N             client calls per operation in the client section; 0 skips it (default 500)
//   --review-accounts N   accounts loaded into PostgreSQL in the review section (default 250000)
//   --review-pglite-accounts N  accounts loaded into PGlite there (default 250000)
//   --review-runs N       timed runs of each read there (default 20)
//   --only LIST           sections to run: ingest,enrichment,client,review (default all)
import { writeFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { parseArgs } from 'node:util';
import { buildDataset } from '../emulators/buyer-intel/data/dataset.ts';
import { redisForDemo } from '../emulators/private-redis.ts';
import { renderRecords, renderTable } from '../src/cli/table.ts';
import { runClientBench } from './client.ts';
import { runEnrichmentBench } from './enrichment.ts';
import { runIngestBench } from './ingest.ts';
import { postgresUrl, printReviewBench, runReviewBench } from './review.ts';

const { values } = parseArgs({
  options: {
    accounts: { type: 'string', default: '2000' },
    buyers: { type: 'string', default: '600' },
    'latency-ms': { type: 'string', default: '80' },
    concurrency: { type: 'string', default: '100' },
    workers: { type: 'string', default: '1,2,4' },
    'hubspot-limit': { type: 'string', default: '1900' },
    'bi-limit': { type: 'string', default: '6000' },
    'cache-ttl-ms': { type: 'string', default: '300000' },
    'uncached-accounts': { type: 'string', default: '600' },
    'limited-accounts': { type: 'string', default: '250' },
    'limited-concurrency': { type: 'string', default: '20' },
    'limited-workers': { type: 'string', default: '1' },
    'ingest-s': { type: 'string', default: '4' },
    calls: { type: 'string', default: '500' },
    'review-accounts': { type: 'string', default: '250000' },
    'review-pglite-accounts': { type: 'string', default: '250000' },
    'review-runs': { type: 'string', default: '20' },
    only: { type: 'string', default: 'ingest,enrichment,client,review' },
  },
});
type NumericOption = Exclude<keyof typeof values, 'workers' | 'only'>;
const num = (name: NumericOption) => {
  const n = Number(values[name]);
  if (!Number.isFinite(n) || n < 0) {
    console.error(`--${name} must be a non-negative number`);
    process.exit(2);
  }
  return n;
};
const workerCounts = values.workers
  .split(',')
  .map(Number)
  .filter((n) => Number.isInteger(n) && n > 0);
const sections = new Set(values.only.split(','));

const t0 = performance.now();
// The sandbox's data set and Redis, for every section but the review queue's.
const sandbox = ['ingest', 'enrichment', 'client'].some((s) => sections.has(s))
  ? {
      dataset: buildDataset({ seed: 42 }),
      buildMs: Math.round(performance.now() - t0),
      redis: await redisForDemo(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379'),
    }
  : undefined;

const report: Record<string, unknown> = {
  at: new Date().toISOString(),
  machine: {
    cpus: cpus().length,
    cpuModel: cpus()[0]?.model,
    memoryGb: Math.round(totalmem() / 2 ** 30),
    node: process.version,
    platform: `${process.platform}-${process.arch}`,
  },
  ...(sandbox && {
    dataset: {
      buyers: sandbox.dataset.buyers.length,
      signals: sandbox.dataset.rows.length,
      buildMs: sandbox.buildMs,
    },
  }),
};
const save = () =>
  writeFileSync(new URL('./results.json', import.meta.url), `${JSON.stringify(report, null, 2)}\n`);

try {
  if (sections.has('ingest') && sandbox) {
    const { dataset, redis } = sandbox;
    const ingest = await runIngestBench({
      redisUrl: redis.url,
      dataset,
      durationS: num('ingest-s'),
      connections: 16,
      batchSizes: [1, 100],
      distinctRequests: 10,
    });
    report.ingest = ingest;
    console.log(
      `\nIngest: POST /webhooks/hubspot, v3-signed company.creation batches, autocannon ${ingest.settings.connections} connections × ${ingest.settings.durationS} s; bare = express.json() + 200`,
    );
    console.log(
      renderRecords(
        ingest.summary.map((r) => ({
          'events/request': r.eventsPerRequest,
          'requests/s': r.requestsPerSecond,
          'events/s': r.eventsPerSecond,
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

  if (sections.has('enrichment') && sandbox) {
    const { dataset, redis } = sandbox;
    const base = {
      redisUrl: redis.url,
      dataset,
      accounts: num('accounts'),
      buyers: num('buyers'),
      latencyMs: num('latency-ms'),
      concurrency: num('concurrency'),
      hubspotPer10s: num('hubspot-limit'),
      buyerIntelPerMinute: num('bi-limit'),
      timeoutS: 75,
    };
    const runs = [];
    const cacheTtlMs = num('cache-ttl-ms');
    // Scale-out: the same load with 1, 2, 4 worker processes against one Redis.
    for (const workers of workerCounts)
      runs.push({ run: 'scale-out', ...(await runEnrichmentBench({ ...base, workers, cacheTtlMs })) });
    // The same with the cache off: what coalescing and caching save upstream.
    const uncached = num('uncached-accounts');
    if (uncached > 0)
      runs.push({
        run: 'no cache',
        ...(await runEnrichmentBench({
          ...base,
          accounts: uncached,
          buyers: Math.round((base.buyers * uncached) / base.accounts),
          workers: 1,
          cacheTtlMs: 0,
        })),
      });
    // HubSpot's real private-app limit and the sandbox's default Buyer Intelligence limit: how close to
    // the bound they set the service runs.
    const limited = num('limited-accounts');
    if (limited > 0)
      runs.push({
        run: 'real limits',
        ...(await runEnrichmentBench({
          ...base,
          accounts: limited,
          buyers: Math.round((base.buyers * limited) / base.accounts),
          workers: Math.max(1, num('limited-workers')),
          concurrency: num('limited-concurrency'),
          cacheTtlMs,
          timeoutS: 45,
          hubspotPer10s: 190,
          buyerIntelPerMinute: 600,
        })),
      });
    report.enrichment = runs;
    console.log(
      `\nEnrichment: webhook → queue → worker processes, upstream latency ${base.latencyMs} ms, ${base.concurrency} jobs per worker; ` +
        `scale-out: ${base.accounts} accounts over ${base.buyers} buyers, limits HubSpot ${base.hubspotPer10s}/10 s, Buyer Intelligence ${base.buyerIntelPerMinute}/min`,
    );
    // One column per run and one row per measure: 17 measures side by side would not fit a screen.
    const columns = runs.map((r) => ({
      'accounts/buyers': `${r.accounts}/${r.distinctBuyers}`,
      limits: `${r.limits.hubspotPer10s}/10s, ${r.limits.buyerIntelPerMinute}/min`,
      workers: r.workers,
      'jobs/worker': r.concurrencyPerWorker,
      cache: r.cacheTtlMs ? 'on' : 'off',
      'accounts/s': r.accountsPerSecond,
      'bound/s': r.boundAccountsPerSecond,
      'bound by': r.boundBy,
      'ratio to bound': r.ratioToBound,
      'BI calls/account': r.buyerIntelCallsPerAccount,
      'BI calls/buyer': r.buyerIntelCallsPerBuyer,
      'CRM calls/account': r.hubspotCallsPerAccount,
      'field writes/account': r.hubspotFieldWritesPerAccount,
      '429s (BI/CRM)': `${r.rateLimited.buyerIntel429}/${r.rateLimited.hubspot429}`,
      'RSS MB/worker start→peak': r.peakRssMbPerWorker
        .map((peak, i) => `${r.startRssMbPerWorker[i] ?? '?'}→${peak}`)
        .join(', '),
      'done/failed': `${r.done}/${r.failed}${r.timedOut ? ' (timed out)' : ''}`,
    }));
    const measures = Object.keys(columns[0] ?? {}) as (keyof (typeof columns)[number])[];
    console.log(
      renderTable(
        measures.map((m) => [m, ...columns.map((c) => c[m])]),
        { head: ['', ...runs.map((r) => `${r.run} ×${r.workers}`)] },
      ),
    );
    for (const r of runs)
      console.log(
        `  ${r.run}, ${r.workers} worker(s), cache ${r.cacheTtlMs ? 'on' : 'off'}:`,
        r.statuses,
        r.cache ?? '',
      );
    save();
  }

  if (sections.has('client') && num('calls') > 0 && sandbox) {
    const { dataset } = sandbox;
    const client = await runClientBench({ calls: num('calls'), concurrency: 16, latencyMs: 0, dataset });
    report.client = client;
    console.log(
      `\nClient against the sandbox (${num('calls')} calls each, concurrency 16, no added latency)`,
    );
    console.log(renderRecords(client));
    save();
  }

  if (sections.has('review')) {
    const review = await runReviewBench({
      accounts: num('review-accounts'),
      pgliteAccounts: num('review-pglite-accounts'),
      runs: Math.max(1, num('review-runs')),
      postgresUrl: postgresUrl(),
    });
    report.review = review;
    printReviewBench(review);
    save();
  }
} finally {
  await sandbox?.redis.stop();
}
console.log(`\nwritten: bench/results.json (${Math.round((performance.now() - t0) / 1000)} s in all)`);
