// What a backfill's measured window shows: the jobs that finished in it (read back from BullMQ with
// their results), the upstream calls the emulators counted in it, and the bound the APIs' documented
// capacity sets for the data (notes per account, Buyer Intelligence calls per new buyer) seen in it.
import type { Queue } from 'bullmq';
import { enrichedBy } from '../queues/chunk-result.ts';
import { isChunk } from '../queues/enrich-queue.ts';
import { type Bound, backfillBound } from './bound.ts';
import { type CallCounts, type CallSplit, splitCalls, totalCalls } from './calls.ts';

interface JobResult {
  status?: string;
  match?: { buyerId?: string | null };
  notes?: { created?: unknown[] };
}

export interface WindowInput {
  /** The enrich and backfill queues: a run's jobs and the webhooks' queued beside it. */
  queues: Queue[];
  crm: 'hubspot' | 'salesforce';
  /** The window, epoch ms (jobs' finishedOn is epoch ms). */
  from: number;
  to: number;
  crmCalls: CallCounts;
  biCalls: CallCounts;
  buyerIntelPerMinute: number;
  redisCommands: number;
  workerCpuMs: number;
}

export interface WindowFacts {
  /** Accounts whose job (or chunk) completed in the window (failed ones apart, never counted as done). */
  finished: number;
  failed: number;
  /** Accounts whose job failed for good over the whole run. */
  failedInRun: number;
  accountsPerSecond: number;
  bound: Bound;
  ratioToBound: number;
  /** Outcomes of the jobs finished in the window, and their shares. */
  outcomes: Record<string, number>;
  outcomeShares: Record<string, number>;
  notesPerAccount: number;
  crmCalls: CallSplit & { perAccount: number; perSecond: number };
  crmCallsPerAccount: { reads: number; writes: number; notes: number };
  buyerIntel: {
    calls: number;
    limited: number;
    newBuyers: number;
    perNewBuyer: number | null;
    perAccount: number;
  };
  redisCommandsPerAccount: number | null;
  workerCpuMsPerAccount: number | null;
  calls: { crm: CallCounts; buyerIntel: CallCounts };
}

const r3 = (x: number) => Math.round(x * 1000) / 1000;

export async function windowFacts(i: WindowInput): Promise<WindowFacts> {
  const jobsIn = async (state: 'completed' | 'failed') =>
    (await Promise.all(i.queues.map((q) => q.getJobs([state], 0, -1)))).flat();
  const completed = await jobsIn('completed');
  const failedJobs = await jobsIn('failed');
  const inWindow = (t: number | undefined) => t !== undefined && t >= i.from && t < i.to;
  const seenBefore = new Set<string>();
  const outcomes: Record<string, number> = {};
  const buyersInWindow = new Set<string>();
  let finished = 0;
  let notes = 0;
  for (const job of completed) {
    // A chunk's accounts finish with it (its finishedOn); those it handed off, with their own jobs.
    for (const r of enrichedBy((job.returnvalue ?? {}) as JobResult)) {
      const buyer = r.match?.buyerId ?? null;
      if ((job.finishedOn ?? 0) < i.from) {
        if (buyer) seenBefore.add(buyer);
        continue;
      }
      if (!inWindow(job.finishedOn)) continue;
      finished++;
      const status = r.status ?? 'unknown';
      outcomes[status] = (outcomes[status] ?? 0) + 1;
      notes += r.notes?.created?.length ?? 0;
      if (buyer) buyersInWindow.add(buyer);
    }
  }
  const newBuyers = [...buyersInWindow].filter((b) => !seenBefore.has(b)).length;
  const accountsOf = (j: (typeof failedJobs)[number]) => (isChunk(j.data) ? j.data.accountIds.length : 1);
  const failed = failedJobs.filter((j) => inWindow(j.finishedOn)).reduce((s, j) => s + accountsOf(j), 0);
  const seconds = (i.to - i.from) / 1000;
  const per = (n: number) => (finished ? r3(n / finished) : 0);
  const split = splitCalls(i.crm, i.crmCalls);
  const biLimited = totalCalls(i.biCalls, '429');
  const biCalls = totalCalls(i.biCalls) - biLimited;
  const perNewBuyer = newBuyers ? r3(biCalls / newBuyers) : null;
  const notesPerAccount = per(notes);
  const bound = backfillBound({
    crm: i.crm,
    notesPerAccount,
    buyerIntelPerMinute: i.buyerIntelPerMinute,
    buyerIntelCallsPerNewBuyer: perNewBuyer,
  });
  const accountsPerSecond = Math.round((finished / seconds) * 10) / 10;
  return {
    finished,
    failed,
    failedInRun: failedJobs.reduce((s, j) => s + accountsOf(j), 0),
    accountsPerSecond,
    bound,
    ratioToBound: bound.accountsPerSecond ? r3(accountsPerSecond / bound.accountsPerSecond) : 0,
    outcomes,
    outcomeShares: Object.fromEntries(Object.entries(outcomes).map(([k, n]) => [k, per(n)])),
    notesPerAccount,
    crmCalls: { ...split, perAccount: per(split.admitted), perSecond: r3(split.admitted / seconds) },
    crmCallsPerAccount: { reads: per(split.reads), writes: per(split.writes), notes: per(split.notes) },
    buyerIntel: { calls: biCalls, limited: biLimited, newBuyers, perNewBuyer, perAccount: per(biCalls) },
    redisCommandsPerAccount: finished ? Math.round(i.redisCommands / finished) : null,
    workerCpuMsPerAccount: finished ? Math.round((i.workerCpuMs / finished) * 10) / 10 : null,
    calls: { crm: i.crmCalls, buyerIntel: i.biCalls },
  };
}
