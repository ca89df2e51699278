// Scheduled re-enrichment: every account we matched is queued again at the lowest priority, so fresh
// buyer data reaches the CRM; the pipeline writes only what changed and never a note twice. One job id
// per account and run makes a retried sweep queue nothing new.
import type { Queue } from 'bullmq';
import { type EnrichQueueData, enrichJobOptions, jobIdOf } from '../../queues/enrich-queue.ts';
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
    await options.queue.addBulk(
      page.map(({ account }) => ({
        name: 'enrich',
        data: {
          ...account,
          trigger: 'reenrich' as const,
          cause: `scheduled re-enrichment ${options.runId}`,
          ...(options.storeRunId ? { runId: options.storeRunId } : {}),
        },
        opts: enrichJobOptions(
          'reenrich',
          options.attempts,
          jobIdOf(account.crm, account.tenant, account.accountId, 'reenrich', options.runId),
        ),
      })),
    );
    queued += page.length;
  }
  return { queued };
}
