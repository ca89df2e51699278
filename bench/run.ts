// `npm run bench`: measured on the local sandboxes, printed as tables and written to bench/results.json.
//   --accounts N      companies through webhook → enrichment (default 1000)
//   --latency-ms N    latency the sandboxes add to every upstream call (default 0)
//   --concurrency N   worker concurrency (default 50)
//   --calls N         client calls per operation in the client section (default 2000)
import { writeFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { parseArgs } from 'node:util';
import { buildDataset } from '../src/sandbox/buyer-intel/data/dataset.ts';
import { runClientBench } from './client.ts';
import { runEnrichmentBench } from './enrichment.ts';

const { values } = parseArgs({
  options: {
    accounts: { type: 'string', default: '1000' },
    'latency-ms': { type: 'string', default: '0' },
    concurrency: { type: 'string', default: '50' },
    calls: { type: 'string', default: '2000' },
  },
});
const num = (name: keyof typeof values) => {
  const n = Number(values[name]);
  if (!Number.isFinite(n) || n < 0) {
    console.error(`--${name} must be a non-negative number`);
    process.exit(2);
  }
  return n;
};

const t0 = performance.now();
const dataset = buildDataset({ seed: 42 });
const buildMs = Math.round(performance.now() - t0);

const enrichment = await runEnrichmentBench({
  accounts: num('accounts'),
  latencyMs: num('latency-ms'),
  concurrency: num('concurrency'),
  dataset,
});
console.log(
  `\nEnrichment: ${enrichment.accounts} accounts, webhook → enrichment, upstream latency ${enrichment.latencyMs} ms, concurrency ${enrichment.concurrency}`,
);
console.table([
  {
    'accounts/s': enrichment.accountsPerSecond,
    seconds: enrichment.seconds,
    'Buyer Intel calls/account': enrichment.buyerIntelCallsPerAccount,
    'HubSpot calls/account': enrichment.hubspotCallsPerAccount,
    'HubSpot field writes/account': enrichment.hubspotFieldWritesPerAccount,
    failed: enrichment.failed,
    'peak RSS MB': enrichment.peakRssMb,
  },
]);
console.log('outcomes:', enrichment.statuses);

const client = await runClientBench({ calls: num('calls'), concurrency: 16, latencyMs: 0, dataset });
console.log(`\nClient against the sandbox (${num('calls')} calls each, concurrency 16)`);
console.table(client);

const report = {
  at: new Date().toISOString(),
  machine: {
    cpus: cpus().length,
    cpuModel: cpus()[0]?.model,
    memoryGb: Math.round(totalmem() / 2 ** 30),
    node: process.version,
  },
  dataset: { buyers: dataset.buyers.length, signals: dataset.rows.length, buildMs },
  enrichment,
  client,
};
writeFileSync(new URL('./results.json', import.meta.url), `${JSON.stringify(report, null, 2)}\n`);
console.log('\nwritten: bench/results.json');
