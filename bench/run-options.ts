// The flags of `npm run bench` (bench/run.ts), each with one line of help and its default: the usage
// text --help prints is made from this, so a flag cannot be added without saying what it does.
import { benchCommand } from './args.ts';
import { SERVICE_WORKER_DEFAULTS } from './service-defaults.ts';

export const RUN_COMMAND = benchCommand({
  usage: 'node bench/run.ts [options]   (or npm run bench -- [options])',
  summary:
    'Measures the service on this machine against the emulators, a real Redis and PostgreSQL, and writes bench/results.json (bench/README.md says what each figure means).',
  options: {
    accounts: {
      type: 'string',
      default: '6000',
      value: '<n>',
      describe: 'CRM accounts of each backfill run',
    },
    buyers: {
      type: 'string',
      default: '5400',
      value: '<n>',
      describe: 'distinct buyers those accounts name',
    },
    'hubspot-workers': {
      type: 'string',
      default: '1',
      value: '<list>',
      describe: 'a HubSpot CPU-probe backfill run (provider limit lifted) per worker count in the list',
    },
    'salesforce-workers': {
      type: 'string',
      default: '',
      value: '<list>',
      describe: "a Salesforce CPU-probe backfill run per worker count in the list; '' for none",
    },
    concurrency: {
      type: 'string',
      default: String(SERVICE_WORKER_DEFAULTS.concurrency),
      value: '<n>',
      describe: "jobs in flight per worker, as the service's own default",
    },
    'warmup-s': {
      type: 'string',
      default: '10',
      value: '<s>',
      describe: 'backfill warm-up before the window',
    },
    'window-s': { type: 'string', default: '60', value: '<s>', describe: 'the measured backfill window' },
    'run-timeout-s': {
      type: 'string',
      default: '240',
      value: '<s>',
      describe: 'a backfill run gives up after this',
    },
    'latency-ms': {
      type: 'string',
      default: '80',
      value: '<ms>',
      describe: 'latency the emulators add to every call',
    },
    'bi-limit': {
      type: 'string',
      default: '300000',
      value: '<n>',
      describe: 'Buyer Intelligence requests per minute of the CPU probe, high enough not to bind',
    },
    'cache-ttl-ms': {
      type: 'string',
      default: '300000',
      value: '<ms>',
      describe: 'Buyer Intelligence cache TTL',
    },
    'latency-accounts': {
      type: 'string',
      default: '20',
      value: '<n>',
      describe: 'accounts of the idle-latency section, one at a time; 0 skips it',
    },
    'ingest-s': { type: 'string', default: '4', value: '<s>', describe: 'length of each webhook ingest run' },
    calls: {
      type: 'string',
      default: '500',
      value: '<n>',
      describe: 'calls per operation of the client section; 0 skips it',
    },
    'review-accounts': {
      type: 'string',
      default: '50000',
      value: '<n>',
      describe: 'accounts in the store for the review reads on PostgreSQL',
    },
    'review-pglite-accounts': {
      type: 'string',
      default: '25000',
      value: '<n>',
      describe: 'the same on the embedded PGlite',
    },
    'review-runs': {
      type: 'string',
      default: '20',
      value: '<n>',
      describe: 'times each review read is timed',
    },
    'preload-outcomes': {
      type: 'string',
      default: '0',
      value: '<n>',
      describe: 'outcomes put in the store before each backfill, as a long backfill leaves the table',
    },
    'heap-curve': {
      type: 'string',
      default: '384/16,384/16/60,384/16/100,-/-',
      value: '<sets>',
      describe: "worker heap flags of the heap-curve section: old/semi[/growth] in MB, '-' for V8's default",
    },
    'customer-accounts': {
      type: 'string',
      default: '500',
      value: '<n>',
      describe: "accounts of each customer-conditions run (the headline: the provider's real limit)",
    },
    'customer-buyers': {
      type: 'string',
      default: '450',
      value: '<n>',
      describe: 'distinct buyers those accounts name',
    },
    'customer-runs': {
      type: 'string',
      default: '1,2,3,4',
      value: '<list>',
      describe: 'which customer runs (1: burst 1 ×1 worker, 2: burst 10 ×2, 3: burst 20 ×4, 4: a 429 storm)',
    },
    'console-accounts': {
      type: 'string',
      default: '250000',
      value: '<n>',
      describe: "accounts in the store of the console section (the review bench's data)",
    },
    'console-writes': {
      type: 'string',
      default: '500000',
      value: '<n>',
      describe: 'rows of write history in the console section',
    },
    'console-runs': {
      type: 'string',
      default: '30',
      value: '<n>',
      describe: 'renders timed per console page',
    },
    'pg-growth-accounts': {
      type: 'string',
      default: '20000',
      value: '<n>',
      describe: 'accounts a new tenant grows to in the pg-growth section (autovacuum off)',
    },
    only: {
      type: 'string',
      default: 'customer,backfill,pg-growth,ingest,latency,client,review',
      value: '<sections>',
      describe:
        'sections to run, of customer, backfill (the CPU probe, provider limit lifted), pg-growth, ingest, latency, client, review, heap-curve, console (the console pages at 250,000 accounts)',
    },
  },
});
