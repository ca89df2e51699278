// Scheduled re-enrichment: every account we matched is queued again at the lowest priority, so fresh
// buyer data reaches the CRM; the pipeline writes only what changed and never a note twice. One job id
// per account and run makes a retried sweep queue nothing new.
import type { Queue } from 'bullmq';
import { type EnrichQueueData, enqueueEnrich } from '../../queues/enrich-queue.ts';
import type { Ledgers } from '../write/ledgers.ts';

export async function reenrichSweep(options: {
  ledgers: Ledgers;
  queue: Queue<EnrichQueueData>;
  attempts: number;
  /** Names this run (e.g. the scheduled time): the same run queues the same job ids. */
  runId: string;
  /** The run in the store, which every job's outcome names. */
  storeRunId?: string | undefined;
}): Promise<{ queued: number }> {
  let queued = 0;
  for await (const page of options.ledgers.matchedAccounts()) {
    await enqueueEnrich(
      options.queue,
      page.map(({ account }) => account),
      'reenrich',
      {
        key: options.runId,
        attempts: options.attempts,
        runId: options.storeRunId,
        cause: `scheduled re-enrichment ${options.runId}`,
      },
    );
    queued += page.length;
  }
  return { queued };
}
