// The goals of issue 42 against what this run measured: the customer runs (the provider's real limit),
// the storm, the per-account costs at that pace, calls per account by worker count, PostgreSQL on a
// growing new tenant, and a 250,000-account backfill's wait at the pace the customer gets.
import type { CustomerRun } from './customer.ts';
import type { GoalRow } from './goal-row.ts';
import type { PgGrowthResult } from './pg-growth.ts';

export interface Goals42 {
  customer?: CustomerRun[] | undefined;
  pgGrowth?: PgGrowthResult | undefined;
  /** The 250,000-account estimate from realistic names (the CPU probe's calls per account), in hours. */
  estimateHours?: number | undefined;
}

export function goalRows42({ customer = [], pgGrowth, estimateHours }: Goals42): GoalRow[] {
  const rows: GoalRow[] = [];
  const row = (goal: string, measured: string, met: boolean | null) => rows.push({ goal, measured, met });
  const plain = customer.filter((c) => !c.label.includes('storm'));
  for (const c of plain) {
    row(
      `${c.label}: ≥ 0.9 of the upstream bound, ≤ 1 % 429s, 0 failed`,
      `${c.ratioToBound} (${c.accountsPerSecond} of ${c.boundAccountsPerSecond} accounts/s), 429s ${(c.share429 * 100).toFixed(1)} %, ${c.failed} failed, ${c.finished}/${c.accounts} finished`,
      c.ratioToBound >= 0.9 && c.share429 <= 0.01 && c.failed === 0 && c.finished >= c.accounts,
    );
    row(
      `${c.label}: ≤ 0.1 CRM calls, ≤ 15 Redis commands, ≤ 1 PostgreSQL statement, ≤ 3 ms worker CPU per account`,
      `${c.crmCallsPerAccount} / ${c.redisCommandsPerAccount ?? '–'} / ${c.postgresStatementsPerAccount ?? '–'} / ${c.workerCpuMsPerAccount ?? '–'} ms`,
      c.crmCallsPerAccount <= 0.1 &&
        (c.redisCommandsPerAccount ?? 99) <= 15 &&
        (c.postgresStatementsPerAccount ?? 99) <= 1 &&
        (c.workerCpuMsPerAccount ?? 99) <= 3,
    );
  }
  for (const c of customer.filter((x) => x.label.includes('storm'))) {
    row(
      `${c.label}: back to ≥ 0.9 of the bound within 30 s of its end, 0 failed`,
      c.afterStorm
        ? `${c.afterStorm.ratioToBound} over ${c.afterStorm.window[0]}–${c.afterStorm.window[1]} s; ${c.failed} failed`
        : 'the run ended before the window',
      c.afterStorm ? c.afterStorm.ratioToBound >= 0.9 && c.failed === 0 : null,
    );
  }
  if (plain.length > 1) {
    const per = plain.map((c) => c.biCallsPerAccount);
    const base = per[0] ?? 0;
    const worst = Math.max(...per.map((p) => Math.abs(p - base) / Math.max(base, 1e-9)));
    row(
      'BI calls per account unchanged (± 2 %) with 1, 2 or 4 workers',
      plain.map((c) => `${c.workers}: ${c.biCallsPerAccount}`).join(', '),
      worst <= 0.02,
    );
  }
  if (pgGrowth) row(pgGrowth.goal.split(' → ')[0] ?? 'PostgreSQL flat', pgGrowth.goal, pgGrowth.met);
  const headline = plain[0];
  if (headline && estimateHours !== undefined) {
    // The probe's calls per account on realistic names, at the share of the rate the customer run used.
    const used = Math.min(1, headline.ratioToBound);
    const hours = +(estimateHours / Math.max(used, 0.01)).toFixed(1);
    row(
      'a 250,000-account backfill at 10 requests/s ≤ 12 hours on realistic names',
      `${hours} h (${estimateHours} h from the probe's calls per account ÷ the ${used} of the bound the headline run kept)`,
      hours <= 12,
    );
  }
  const hooked = customer.find((c) => c.webhooks);
  // Upstream latency: the four calls of a new account in a row (search, attributes, CRM read, write).
  const allowanceMs = 5_000 + 4 * (hooked?.run.latencyMs ?? 0);
  row(
    `while a backfill runs, a webhook account enriched with p95 ≤ 5 s + upstream latency (${allowanceMs} ms)`,
    hooked?.webhooks
      ? `p50 ${hooked.webhooks.p50Ms} ms, p95 ${hooked.webhooks.p95Ms} ms (${hooked.webhooks.measured} of ${hooked.webhooks.queued} new accounts, during "${hooked.label}")`
      : 'not run',
    hooked?.webhooks
      ? hooked.webhooks.measured === hooked.webhooks.queued && hooked.webhooks.p95Ms <= allowanceMs
      : null,
  );
  return rows;
}
