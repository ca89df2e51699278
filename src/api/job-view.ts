// GET /api/jobs/:id's body. One account's job: its state and result. A backfill chunk's: its state and
// one entry per account — the account's result once the chunk completed, the status an earlier run of
// the chunk recorded, or the job it was handed to (and why), which /api/jobs/<that id> follows.
import type { Job } from 'bullmq';
import { type ChunkAccount, isChunkResult } from '../../queues/chunk-result.ts';
import { type EnrichQueueData, isChunk } from '../../queues/enrich-queue.ts';

export function jobView(job: Job<EnrichQueueData>, state: string) {
  const { data } = job;
  const common = {
    id: job.id,
    state,
    // The worker does not spend a Redis round trip to say 100 at the end: a completed job is done.
    progress: state === 'completed' ? 100 : job.progress,
    attemptsMade: job.attemptsMade,
    ...(job.failedReason ? { failedReason: job.failedReason } : {}),
  };
  if (!isChunk(data))
    return {
      ...common,
      account: { crm: data.crm, tenant: data.tenant, accountId: data.accountId },
      ...(job.returnvalue ? { result: job.returnvalue } : {}),
    };
  const returned = isChunkResult(job.returnvalue) ? job.returnvalue.accounts : [];
  const byAccount = new Map(returned.map((a) => [a.accountId, a as ChunkAccount<unknown>]));
  return {
    ...common,
    chunk: { crm: data.crm, tenant: data.tenant, accounts: data.accountIds.length },
    accounts: data.accountIds.map((accountId) => {
      const entry = byAccount.get(accountId);
      const base = { crm: data.crm, tenant: data.tenant, accountId };
      if (!entry) return base;
      if ('result' in entry)
        return { ...base, status: (entry.result as { status?: string }).status, result: entry.result };
      if ('recorded' in entry) return { ...base, status: entry.recorded };
      return { ...base, handedOff: entry.handedOff, reason: entry.reason };
    }),
  };
}
