// The exploring fuzz (issue 45): the CI test's generators and route table (test/helpers/fuzz-*.ts) for
// as many inputs as asked, against the service and the emulators in this process, on real Redis and
// PostgreSQL (TEST_DATABASE_URL, else PGlite). Unlike the CI test it does not stop at the first answer
// ≥ 500: it goes on, prints the counts per route kind and route, and lists every finding with the
// seed and path that replay it — `--seed N --path P --runs 1` here, or FUZZ_SEED/FUZZ_PATH for
// test/api/no-500.test.ts, which shrinks it to a minimal request. Exit 1 when anything answered ≥ 500.
import { benchArgs, benchCommand } from './args.ts';

const COMMAND = benchCommand({
  usage: 'node bench/fuzz.ts [options]',
  summary:
    'Sends generated requests to every route kind (our API with a key and signed as each CRM, the admin pages, HubSpot webhooks, Salesforce Outbound Messages, the provider webhooks) and reports any answer >= 500.',
  options: {
    runs: { type: 'string', default: '100000', value: '<n>', describe: 'generated requests to send' },
    seed: { type: 'string', default: '1', value: '<n>', describe: "fast-check's seed" },
    path: {
      type: 'string',
      default: '',
      value: '<path>',
      describe: "replay from this fast-check path (a finding's)",
    },
    kinds: {
      type: 'string',
      default: '',
      value: '<a,b>',
      describe:
        'only these route kinds, comma-separated (api, admin, hubspot-signed, salesforce-signed, hubspot-webhook, salesforce-outbound, buyer-intel-webhook); none: all of them',
    },
    progress: {
      type: 'string',
      default: '10000',
      value: '<n>',
      describe: 'print the counts every n requests',
    },
  },
});

const { values } = benchArgs(COMMAND);
const runs = Number(values.runs);
const seed = Number(values.seed);
const every = Number(values.progress);
if (!Number.isInteger(runs) || runs < 1 || !Number.isInteger(seed) || !Number.isInteger(every) || every < 1) {
  console.error('bench/fuzz.ts: --runs, --progress and --seed take whole numbers (runs and progress ≥ 1)');
  process.exit(2);
}

// Loaded after the flags: --help and a wrong flag answer before anything starts.
const { KIND_WEIGHTS, describePlan, runFuzz } = await import('../test/helpers/fuzz-run.ts');
const { startFuzzTarget } = await import('../test/helpers/fuzz-target.ts');
const { releaseTestFile } = await import('../test/helpers/release.ts');
type Stats = Awaited<ReturnType<typeof runFuzz>>;
type Kind = keyof typeof KIND_WEIGHTS;

const kinds = (values.kinds ? values.kinds.split(',') : Object.keys(KIND_WEIGHTS)) as Kind[];
const unknown = kinds.filter((k) => !(k in KIND_WEIGHTS));
if (unknown.length) {
  console.error(`bench/fuzz.ts: no route kind ${unknown.join(', ')} (see node bench/fuzz.ts --help)`);
  process.exit(2);
}

const started = performance.now();
const elapsed = () => `${((performance.now() - started) / 1000).toFixed(0)} s`;

function table(stats: Stats): string {
  const rows = [...stats.byKind].map(([kind, statuses]) => {
    const sent = [...statuses.values()].reduce((a, b) => a + b, 0);
    const five = [...statuses].filter(([s]) => s >= 500).reduce((a, [, c]) => a + c, 0);
    const histogram = [...statuses]
      .sort(([a], [b]) => a - b)
      .map(([s, c]) => `${s === 0 ? 'no answer' : s}:${c}`)
      .join(' ');
    const ms = (stats.msByKind.get(kind) ?? 0) / Math.max(1, sent);
    return `  ${kind.padEnd(20)} ${String(sent).padStart(7)} sent  ${String(five).padStart(3)} ≥500  ${ms.toFixed(1).padStart(6)} ms/req  ${histogram}`;
  });
  return rows.join('\n');
}

const target = await startFuzzTarget('bench-fuzz');
let stats: Stats;
try {
  console.log(
    `fuzz: ${runs} requests, seed ${seed}${values.path ? `, from path ${values.path}` : ''}, kinds ${kinds.join(', ')}`,
  );
  stats = await runFuzz(target, {
    runs,
    seed,
    path: values.path || undefined,
    mode: 'explore',
    kinds,
    progress: {
      every,
      report: (s) => console.log(`${s.sent} sent, ${s.findings.length} ≥500, ${elapsed()}\n${table(s)}`),
    },
  });
  const up = await target.healthy();
  console.log(
    `\nfuzz done: ${stats.sent} requests in ${elapsed()}, seed ${seed}; the service ${up ? 'still serves' : 'DOES NOT ANSWER /healthz'}`,
  );
  console.log(table(stats));
  console.log('\nper route:');
  for (const [route, n] of [...stats.byRoute].sort()) console.log(`  ${String(n).padStart(7)}  ${route}`);
  console.log(`\n${stats.findings.length} answers ≥ 500`);
  for (const f of stats.findings.slice(0, 50)) {
    console.log(`- path ${f.path}: ${describePlan(f.plan, f.answer)}`);
    console.log(
      `  replay: node bench/fuzz.ts --seed ${seed} --path ${f.path} --runs 1 (or FUZZ_SEED=${seed} FUZZ_PATH=${f.path} npx vitest run test/api/no-500.test.ts -t fuzz, which shrinks it)`,
    );
  }
  if (stats.findings.length || !up) process.exitCode = 1;
} finally {
  await target.close();
  await releaseTestFile();
}
