// The bench's headline (issue #42): what a customer waits for where customers run. A 500-account
// backfill with the service's defaults (provider rate 10/s, burst 1, its worker settings) against a
// provider that enforces exactly that rate (a token bucket with the burst it documents, or 1 where none
// is documented, 429 with Retry-After), 80 ms of latency on every upstream, from the first account
// queued to the last one finished. Only finished work counts.
//
// The upstream bound of a run: the provider's rate ÷ the fewest calls the work needs, which are one
// search and one attribute call per distinct buyer (the API has no bulk lookup by name), one search
// per account left without a buyer (no match, review), and the org-wide feed's pages. Our own calls never enter it: a service that makes more calls than needed gets
// the same bound and a lower ratio to it. The CRM binds far later (bound.ts).
import { type BackfillBenchOptions, type BackfillBenchResult, runBackfillBench } from './backfill.ts';
import { totalCalls } from './calls.ts';
import { SERVICE_PROVIDER_DEFAULTS } from './service-defaults.ts';

export interface CustomerScenario {
  label: string;
  /** The burst the emulated provider enforces. */
  burst: number;
  workers: number;
  storm?: { fromS: number; seconds: number; share: number };
  /** New accounts queued as webhooks queue them while the backfill runs (webhook-accounts.ts). */
  webhooks?: { fromS: number; everyS: number; count: number };
}

/** Burst 1 first: the provider documents none, so that is the headline. */
export const CUSTOMER_SCENARIOS: CustomerScenario[] = [
  { label: 'provider burst 1, 1 worker', burst: 1, workers: 1 },
  { label: 'provider burst 10, 2 workers', burst: 10, workers: 2 },
  { label: 'provider burst 20, 4 workers', burst: 20, workers: 4 },
  // The webhooks ride on the storm's run, after the storm: their accounts are written at once (a
  // person waits), so in a run whose per-account costs are judged they would count as backfill's.
  {
    label: 'burst 1, 1 worker, a 30-s storm (60 % 429s)',
    burst: 1,
    workers: 1,
    storm: { fromS: 15, seconds: 30, share: 0.6 },
    webhooks: { fromS: 50, everyS: 3, count: 15 },
  },
];

export interface CustomerRun {
  label: string;
  burst: number;
  workers: number;
  accounts: number;
  finished: number;
  failed: number;
  seconds: number;
  accountsPerSecond: number;
  /** Provider rate ÷ the fewest calls per account. */
  boundAccountsPerSecond: number;
  ratioToBound: number;
  fewestCallsPerAccount: number;
  /** Provider calls per account answered 200 (the work), and the share answered 429. */
  biCallsPerAccount: number;
  share429: number;
  crmCallsPerAccount: number;
  redisCommandsPerAccount: number | null;
  postgresStatementsPerAccount: number | null;
  workerCpuMsPerAccount: number | null;
  /** New accounts' waits while the backfill ran, queued → finished: p50, p95 (ms) and how many. */
  webhooks?: { p50Ms: number; p95Ms: number; measured: number; queued: number } | undefined;
  /** The storm's: the provider work's pace over the 10 s that end 30 s after the storm, against the bound. */
  afterStorm?: { ratioToBound: number; window: [number, number] } | undefined;
  run: BackfillBenchResult;
}

/** What every customer run shares with a backfill run; the rest is the customer's (the defaults). */
export type CustomerOptions = Pick<
  BackfillBenchOptions,
  'redisUrl' | 'postgresUrl' | 'dataset' | 'accounts' | 'buyers' | 'latencyMs' | 'concurrency' | 'timeoutS'
> & {
  scenarios: CustomerScenario[];
  onRun?: (done: CustomerRun[]) => void;
};

const r3 = (x: number) => Math.round(x * 1000) / 1000;

export async function runCustomerBench(o: CustomerOptions): Promise<CustomerRun[]> {
  const done: CustomerRun[] = [];
  for (const sc of o.scenarios) {
    const run = await runBackfillBench({
      crm: 'hubspot',
      redisUrl: o.redisUrl,
      postgresUrl: o.postgresUrl,
      dataset: o.dataset,
      accounts: o.accounts,
      buyers: o.buyers,
      latencyMs: o.latencyMs,
      workers: sc.workers,
      concurrency: o.concurrency,
      buyerIntelPerMinute: SERVICE_PROVIDER_DEFAULTS.ratePerSecond * 60,
      buyerIntelBurst: sc.burst,
      cacheTtlMs: 300_000,
      warmupS: 0,
      windowS: o.timeoutS,
      timeoutS: o.timeoutS,
      customer: {
        ...(sc.storm ? { storm: sc.storm } : {}),
        ...(sc.webhooks ? { webhooks: sc.webhooks } : {}),
      },
    });
    done.push(customerRun(sc, run, o.accounts));
    o.onRun?.(done);
  }
  return done;
}

function customerRun(sc: CustomerScenario, run: BackfillBenchResult, accounts: number): CustomerRun {
  const rate = SERVICE_PROVIDER_DEFAULTS.ratePerSecond;
  const bi = run.calls.buyerIntel;
  const feedPages = totalCalls({ f: bi.listTopRecentSignals ?? {} }, '200');
  const finished = Math.max(1, run.finished);
  // An account left without a buyer (no match, or a review) still took a search to say so.
  const unmatched = (run.outcomes.no_match ?? 0) + (run.outcomes.needs_review ?? 0);
  const fewest = (2 * run.buyerIntel.newBuyers + unmatched + feedPages) / finished;
  const bound = rate / fewest;
  const ok = totalCalls(bi, '200');
  const limited = totalCalls(bi, '429');
  const seconds = run.windowSeconds;
  let afterStorm: CustomerRun['afterStorm'];
  if (sc.storm && run.progress?.length) {
    // A chunk's accounts finish together (its lockstep), so outcomes arrive in steps too coarse for a
    // 10-s window: the pace of the work is read from the provider's answers instead, as accounts' worth
    // (answers per second ÷ the calls an account took in this run), against the bound.
    const to = sc.storm.fromS + sc.storm.seconds + 30;
    const from = to - 10;
    const at = (s: number) => run.progress?.find((p) => p.s >= s);
    const a = at(from);
    const b = at(to);
    if (a && b && b.s > a.s) {
      const perSecond = (b.answered - a.answered) / (b.s - a.s);
      afterStorm = { ratioToBound: r3(perSecond / (ok / finished) / bound), window: [from, to] };
    }
  }
  const waits = run.webhookMs;
  const pick = (q: number) => waits?.[Math.min(waits.length - 1, Math.floor(q * waits.length))] ?? 0;
  const webhooks =
    sc.webhooks && waits
      ? { p50Ms: pick(0.5), p95Ms: pick(0.95), measured: waits.length, queued: sc.webhooks.count }
      : undefined;
  return {
    label: sc.label,
    webhooks,
    burst: sc.burst,
    workers: sc.workers,
    accounts,
    finished: run.finished,
    failed: run.failedInRun,
    seconds,
    accountsPerSecond: run.accountsPerSecond,
    boundAccountsPerSecond: r3(bound),
    ratioToBound: r3(run.accountsPerSecond / bound),
    fewestCallsPerAccount: r3(fewest),
    biCallsPerAccount: r3(ok / finished),
    share429: r3(limited / Math.max(1, ok + limited)),
    crmCallsPerAccount: run.crmCalls.perAccount,
    redisCommandsPerAccount: run.redisCommandsPerAccount,
    postgresStatementsPerAccount: run.postgres?.statementsPerAccount ?? null,
    workerCpuMsPerAccount: run.workerCpuMsPerAccount,
    afterStorm,
    run,
  };
}
