// The tables `npm run bench` prints for the backfill runs and the goals.
import { renderRecords, renderTable } from '../src/cli/table.ts';
import type { BackfillBenchResult } from './backfill.ts';
import type { CustomerRun } from './customer.ts';
import type { GoalRow } from './goals.ts';
import type { runIngestBench } from './ingest.ts';

export function printBackfills(runs: (BackfillBenchResult & { label: string })[]): void {
  const columns = runs.map((r) => ({
    'accounts (buyers)': `${r.accounts} (${r.buyers})`,
    'workers × jobs': `${r.workers} × ${r.concurrencyPerWorker}`,
    store: r.database.startsWith('PostgreSQL') ? 'PostgreSQL' : 'PGlite',
    'queued in s': r.queueSeconds,
    'window s': `${r.windowSeconds}${r.drained ? ' (drained)' : ''}`,
    'finished / failed': `${r.finished} / ${r.failed}`,
    'accounts/s': r.accountsPerSecond,
    'bound/s': `${r.bound.accountsPerSecond} (${r.bound.boundBy})`,
    'ratio to bound': r.ratioToBound,
    'notes/account': r.notesPerAccount,
    'CRM calls/account': r.crmCalls.perAccount,
    '  reads/writes/notes': `${r.crmCallsPerAccount.reads}/${r.crmCallsPerAccount.writes}/${r.crmCallsPerAccount.notes}`,
    'CRM calls/s (limited)': `${r.crmCalls.perSecond} (${r.crmCalls.limited})`,
    'BI calls/new buyer': r.buyerIntel.perNewBuyer ?? '–',
    'BI calls/account': r.buyerIntel.perAccount,
    'BI calls/account, whole run (searches)': r.wholeRun
      ? `${r.wholeRun.perAccount} (${r.wholeRun.searchesPerAccount})`
      : '– (not drained)',
    'Redis cmds/account': r.redisCommandsPerAccount ?? '–',
    'worker CPU ms/account': r.workerCpuMsPerAccount ?? '–',
    'PG statements/account': r.postgres?.statementsPerAccount ?? '–',
    'PG CPU ms/account (backends)': r.postgres
      ? `${r.postgres.cpuMsPerAccount ?? '–'} (${r.postgres.backends})${r.postgres.preloadedOutcomes ? `, ${r.postgres.preloadedOutcomes} outcomes preloaded` : ''}`
      : '–',
    'machine CPU ms/account': `${r.machineCpu.msPerAccount ?? '–'} (${r.machineCpu.cores} cores: ≤ ${r.machineCpu.accountsPerSecond ?? '–'}/s)`,
    'RSS MB start→peak': r.workerSamples.map((w) => `${w.ready.rssMb}→${w.peakRssMb}`).join(', '),
    'live heap MB': r.workerSamples.map((w) => w.liveHeapMb).join(', '),
    outcomes: Object.entries(r.outcomeShares)
      .sort((a, b) => b[1] - a[1])
      .map(([k, v]) => `${k} ${Math.round(v * 100)}%`)
      .join(', '),
  }));
  const measures = Object.keys(columns[0] ?? {}) as (keyof (typeof columns)[number])[];
  console.log(
    renderTable(
      measures.map((m) => [m, ...columns.map((c) => c[m])]),
      { head: ['', ...runs.map((r) => r.label)] },
    ),
  );
  for (const r of runs) console.log(`  ${r.label} bound: ${r.bound.how.crm}; ${r.bound.how.buyerIntel}`);
  for (const r of runs) console.log(`  ${r.label} ${buyerIntelByOperation(r)}`);
  for (const r of runs) console.log(`  ${r.label} ${redisByCommand(r)}`);
  for (const r of runs) {
    const kinds = Object.entries(r.postgres?.statementsByKind ?? {}).sort((a, b) => b[1] - a[1]);
    if (kinds.length)
      console.log(
        `  ${r.label} PostgreSQL statements of the whole run by kind: ${kinds.map(([k, n]) => `${k} ${n}`).join(', ')}`,
      );
    if (r.failedReasons.length) console.log(`  ${r.label} failed jobs: ${r.failedReasons.join(' | ')}`);
  }
}

/** The window's Redis commands by command, per account (scripts' own calls included), largest first. */
function redisByCommand(r: BackfillBenchResult): string {
  if (!r.finished) return 'Redis commands by command: –';
  const shown = Object.entries(r.redis.byCommand)
    .map(([cmd, n]) => [cmd, n / r.finished] as const)
    .filter(([, per]) => per >= 0.05)
    .sort((a, b) => b[1] - a[1])
    .map(([cmd, per]) => `${cmd} ${per.toFixed(2)}`);
  return `Redis commands by command, per account (the bench's polls included): ${shown.join(', ') || 'none'}`;
}

/** Buyer Intelligence calls of the window by operation (429s apart), per account and per new buyer. */
function buyerIntelByOperation(r: BackfillBenchResult): string {
  const per = (n: number, d: number) => (d ? (n / d).toFixed(3) : '–');
  const ops = Object.entries(r.calls.buyerIntel)
    .map(([op, byStatus]) => {
      const admitted = Object.entries(byStatus).reduce((s, [st, n]) => s + (st === '429' ? 0 : n), 0);
      return { op, admitted };
    })
    .filter((o) => o.admitted > 0)
    .sort((a, b) => b.admitted - a.admitted);
  const shown = ops.map(
    (o) => `${o.op} ${per(o.admitted, r.finished)} / ${per(o.admitted, r.buyerIntel.newBuyers)}`,
  );
  return `BI calls by operation, per account / per new buyer: ${shown.join(', ') || 'none'}`;
}

export function printGoals(rows: GoalRow[]): void {
  console.log(
    renderRecords(
      rows.map((r) => ({
        goal: r.goal,
        measured: r.measured,
        '': r.met === null ? 'not measured' : r.met ? 'met' : 'NOT met',
      })),
    ),
  );
}

export function printIngest(ingest: Awaited<ReturnType<typeof runIngestBench>>, seconds: number): void {
  console.log(
    `\nIngest: POST /webhooks/hubspot, every request new (fresh ids, signed as sent), autocannon 16 connections × ${seconds} s; bare = express.json() + 200`,
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
}

/** The headline: each customer run against the provider's real limit, a column each. */
export function printCustomer(runs: CustomerRun[], latencyMs: number): void {
  console.log(
    `\nWhere customers run: a backfill with the service's defaults (provider 10 requests/s, burst 1) against a provider that enforces 10/s with the burst shown (429 + Retry-After), ${latencyMs} ms upstream latency, first account queued → last finished`,
  );
  const columns = runs.map((r) => ({
    'finished / failed': `${r.finished}/${r.accounts} / ${r.failed}`,
    seconds: r.seconds,
    'accounts/s': r.accountsPerSecond,
    'upstream bound/s': `${r.boundAccountsPerSecond} (10 ÷ ${r.fewestCallsPerAccount} calls)`,
    'ratio to bound': r.ratioToBound,
    ...(r.afterStorm ? { 'ratio 20–30 s after the storm': r.afterStorm.ratioToBound } : {}),
    ...(r.webhooks
      ? { 'new accounts meanwhile, p50 / p95 ms': `${r.webhooks.p50Ms} / ${r.webhooks.p95Ms}` }
      : {}),
    '429s (share of BI calls)': `${(r.share429 * 100).toFixed(1)} %`,
    'BI calls/account (200s)': r.biCallsPerAccount,
    'CRM calls/account': r.crmCallsPerAccount,
    'Redis cmds/account': r.redisCommandsPerAccount ?? '–',
    'PG statements/account': r.postgresStatementsPerAccount ?? '–',
    'worker CPU ms/account': r.workerCpuMsPerAccount ?? '–',
  }));
  const keys = [...new Set(columns.flatMap((c) => Object.keys(c)))];
  console.log(
    renderTable(
      keys.map((k) => [k, ...columns.map((c) => String((c as Record<string, unknown>)[k] ?? '–'))]),
      { head: ['', ...runs.map((r) => r.label)] },
    ),
  );
}
