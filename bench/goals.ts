// The goals of issue 31 against what this run measured: one row per goal (per backfill run where the
// goal is per run), with the measured value and whether it is met. A goal this run cannot measure
// says where it is shown (a test) or that it was not run.
import type { BackfillBenchResult } from './backfill.ts';
import type { CustomerRun } from './customer.ts';
import { type CustomerWait, customerWait } from './customer-wait.ts';
import type { GoalRow } from './goal-row.ts';
import { goalRows42 } from './goals-42.ts';
import type { PgGrowthResult } from './pg-growth.ts';

export type { GoalRow } from './goal-row.ts';

export interface GoalInputs {
  backfills: (BackfillBenchResult & { label: string })[];
  latency?: { p50Ms: number; p95Ms: number; goalMs: number; goal: string } | undefined;
  customer?: CustomerRun[] | undefined;
  pgGrowth?: PgGrowthResult | undefined;
}

/** The customer's wait from a run's measured calls. */
export function waitOf(b: BackfillBenchResult): CustomerWait {
  // The feed's calls in the window are counted once, over the whole backfill, by customerWait.
  const feed = Object.values(b.calls.buyerIntel.listTopRecentSignals ?? {}).reduce((s, n) => s + n, 0);
  const n = Math.max(1, b.finished);
  return customerWait({
    callsPerAccount: (b.buyerIntel.calls - feed) / n,
    newBuyersPerAccount: b.buyerIntel.newBuyers / n,
    plan: b.signalPlan,
  });
}

export function goalRows({ backfills, latency, customer, pgGrowth }: GoalInputs): GoalRow[] {
  const first = backfills[0];
  const rows: GoalRow[] = goalRows42({
    customer,
    pgGrowth,
    estimateHours: first?.finished ? waitOf(first).hours : undefined,
  });
  const row = (goal: string, measured: string, met: boolean | null) => rows.push({ goal, measured, met });
  for (const b of backfills) {
    const crmName = b.crm === 'hubspot' ? 'HubSpot' : 'Salesforce';
    const c = b.crmCallsPerAccount;
    const wait = waitOf(b);
    row(
      `${b.label}: 250,000-account backfill ≥ 30 % shorter at the provider's default rate`,
      `${wait.hours} h vs ${wait.beforeHours} h (${Math.round(wait.shorter * 100)} % shorter; ${wait.callsPerAccount} calls/account, signals ${wait.signals === 'feed' ? `from the feed, ${wait.feedCalls} calls; per buyer: ${wait.perBuyerHours} h` : 'per buyer'}; ${b.accounts} accounts over ${b.buyers} buyers)`,
      b.finished ? wait.shorter >= 0.3 : null,
    );
    row(
      `${b.label}: ≤ 2.5 BI calls per new buyer`,
      `${b.buyerIntel.perNewBuyer ?? '–'} (${b.buyerIntel.calls} calls, ${b.buyerIntel.newBuyers} new buyers)`,
      b.buyerIntel.perNewBuyer === null ? null : b.buyerIntel.perNewBuyer <= 2.5,
    );
    row(
      `${b.label}: ≤ 0.1 ${crmName} calls/account`,
      `${b.crmCalls.perAccount} (reads ${c.reads}, writes ${c.writes}, notes ${c.notes})`,
      b.finished ? b.crmCalls.perAccount <= 0.1 : null,
    );
    row(
      `${b.label}: ≤ 15 Redis commands/account`,
      `${b.redisCommandsPerAccount ?? '–'}`,
      b.redisCommandsPerAccount === null ? null : b.redisCommandsPerAccount <= 15,
    );
    row(
      `${b.label}: worker CPU ≤ 3 ms/account`,
      `${b.workerCpuMsPerAccount ?? '–'} ms`,
      b.workerCpuMsPerAccount === null ? null : b.workerCpuMsPerAccount <= 3,
    );
    row(
      `${b.label}: ≤ 1 PostgreSQL statement/account`,
      b.postgres
        ? `${b.postgres.statementsPerAccount ?? '–'} (PostgreSQL CPU ${b.postgres.cpuMsPerAccount ?? '–'} ms/account${b.postgres.preloadedOutcomes ? `, ${b.postgres.preloadedOutcomes} outcomes preloaded` : ''})`
        : 'not measured (PGlite)',
      b.postgres?.statementsPerAccount == null ? null : b.postgres.statementsPerAccount <= 1,
    );
    row(
      `${b.label}: 0 wrong matches`,
      'npx vitest run test/cli/match-eval.test.ts (the 650-account set)',
      null,
    );
  }
  row(
    'N workers together never exceed the provider rate',
    'test/buyer-intel/shared-rate.test.ts (3 processes, counted at the server)',
    null,
  );
  // One provider budget for every worker (shared-rate.ts): where its rate binds, a second worker adds
  // nothing by design. A worker keeps WORKER_CONCURRENCY accounts in flight, each waiting on one call,
  // so it falls short of the rate alone only when latency > concurrency ÷ rate (200 ÷ 10/s = 20 s).
  row(
    '2 workers ≥ 1.8 × one where the provider is the bound',
    'not applicable: with one shared provider budget, 2 workers = 1 at its rate; one worker is short of the rate only when the provider answers slower than 200 ÷ 10/s = 20 s a call',
    null,
  );
  row(
    'idle p50 ≤ 1 s + upstream latency',
    latency
      ? `p50 ${latency.p50Ms} ms, p95 ${latency.p95Ms} ms vs ${latency.goalMs} ms (${latency.goal})`
      : 'not run',
    latency ? latency.p50Ms <= latency.goalMs : null,
  );
  const peaks = backfills.flatMap((b) => b.workerSamples.map((w) => w.peakRssMb));
  const starts = backfills.flatMap((b) => b.workerSamples.map((w) => w.ready.rssMb));
  const live = backfills.flatMap((b) => b.workerSamples.map((w) => w.liveHeapMb));
  row(
    'worker RSS ≤ 400 MB',
    peaks.length
      ? `start ${Math.min(...starts)}–${Math.max(...starts)} → peak ${Math.max(...peaks)} MB (live heap ${Math.max(...live)} MB)`
      : 'not run',
    peaks.length ? Math.max(...peaks) <= 400 : null,
  );
  return rows;
}
