// The goals of issue #15 against what this run measured: one row per goal (per backfill run where the
// goal is per run), with the measured value and whether it is met. A goal whose run was skipped says so.
import type { BackfillBenchResult } from './backfill.ts';

export interface GoalRow {
  goal: string;
  measured: string;
  met: boolean | null;
}

export interface GoalInputs {
  backfills: (BackfillBenchResult & { label: string })[];
  latency?: { p50Ms: number; p95Ms: number; goalMs: number; goal: string } | undefined;
}

export function goalRows({ backfills, latency }: GoalInputs): GoalRow[] {
  const rows: GoalRow[] = [];
  const row = (goal: string, measured: string, met: boolean | null) => rows.push({ goal, measured, met });
  for (const b of backfills) {
    const crmName = b.crm === 'hubspot' ? 'HubSpot' : 'Salesforce';
    const c = b.crmCallsPerAccount;
    row(
      `${b.label}: ≤ 0.1 ${crmName} calls/account`,
      `${b.crmCalls.perAccount} (reads ${c.reads}, writes ${c.writes}, notes ${c.notes})`,
      b.finished ? b.crmCalls.perAccount <= 0.1 : null,
    );
    row(
      `${b.label}: throughput ≥ 0.9 × bound`,
      `${b.accountsPerSecond}/s of ${b.bound.accountsPerSecond}/s (${b.ratioToBound}); this machine's cores allow ≤ ${b.machineCpu.accountsPerSecond ?? '–'}/s at ${b.machineCpu.msPerAccount ?? '–'} ms CPU/account across every process`,
      b.finished ? b.ratioToBound >= 0.9 : null,
    );
    row(
      `${b.label}: ≤ 2.35 BI calls per new buyer`,
      `${b.buyerIntel.perNewBuyer ?? '–'} (${b.buyerIntel.calls} calls, ${b.buyerIntel.newBuyers} new buyers)`,
      b.buyerIntel.perNewBuyer === null ? null : b.buyerIntel.perNewBuyer <= 2.35,
    );
    row(
      `${b.label}: ≤ 30 Redis commands/account`,
      `${b.redisCommandsPerAccount ?? '–'}`,
      b.redisCommandsPerAccount === null ? null : b.redisCommandsPerAccount <= 30,
    );
  }
  const hs1 = backfills.find((b) => b.crm === 'hubspot' && b.workers === 1);
  const hs2 = backfills.find((b) => b.crm === 'hubspot' && b.workers === 2);
  row(
    '2 workers ≥ 1 worker at the real limit (HubSpot)',
    hs1 && hs2 ? `${hs2.accountsPerSecond}/s vs ${hs1.accountsPerSecond}/s` : 'not run',
    hs1 && hs2 ? hs2.accountsPerSecond >= hs1.accountsPerSecond : null,
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
    'worker RSS < 250 MB',
    peaks.length
      ? `start ${Math.min(...starts)}–${Math.max(...starts)} → peak ${Math.max(...peaks)} MB (live heap ${Math.max(...live)} MB)`
      : 'not run',
    peaks.length ? Math.max(...peaks) < 250 : null,
  );
  return rows;
}
