// A backfill page as enrich jobs: chunks of up to BACKFILL_ACCOUNTS_PER_JOB accounts (HubSpot's batch
// size by default), so BullMQ's lifecycle is paid once per chunk and a chunk's accounts reach the CRM's
// batch calls together (queues/enrich-chunk.ts). A chunk never spans two pages: its id is its run and
// its accounts, so a page queued again after a kill gives the same jobs. A lone account is a job of its
// own, with the id it has always had.
import type { CrmConnector } from '../../connectors/types.ts';
import {
  type ChunkJobData,
  chunkJobIdOf,
  type EnrichJobData,
  enrichJob,
  enrichJobOptions,
  runJobIdOf,
} from '../../queues/enrich-queue.ts';

/** BACKFILL_ACCOUNTS_PER_JOB's default: HubSpot's batch size (Salesforce's is 200). */
export const DEFAULT_ACCOUNTS_PER_JOB = 100;

/** One account's job in a run: the same run queues the same id, so a re-queued page is a no-op. */
export function backfillJobId(
  connector: Pick<CrmConnector, 'kind' | 'tenant'>,
  accountId: string,
  runId: string,
): string {
  return runJobIdOf(connector.kind, connector.tenant, accountId, 'backfill', runId);
}

export function backfillJobs(
  connector: Pick<CrmConnector, 'kind' | 'tenant'>,
  accountIds: readonly string[],
  run: { id: string; storeRunId: string; attempts: number; accountsPerJob: number },
) {
  const common = {
    crm: connector.kind,
    tenant: connector.tenant,
    trigger: 'backfill' as const,
    cause: `backfill ${run.id}`,
    runId: run.storeRunId,
  };
  const size = Math.max(1, Math.floor(run.accountsPerJob));
  const jobs: {
    name: 'enrich';
    data: EnrichJobData | ChunkJobData;
    opts: ReturnType<typeof enrichJobOptions>;
  }[] = [];
  for (let i = 0; i < accountIds.length; i += size) {
    const ids = accountIds.slice(i, i + size);
    const [first] = ids;
    if (ids.length === 1 && first !== undefined)
      jobs.push(
        enrichJob({ crm: connector.kind, tenant: connector.tenant, accountId: first }, 'backfill', {
          key: run.id,
          attempts: run.attempts,
          runId: run.storeRunId,
          cause: common.cause,
        }),
      );
    else
      jobs.push({
        name: 'enrich',
        data: { ...common, accountIds: ids, run: run.id },
        opts: enrichJobOptions(
          'backfill',
          run.attempts,
          chunkJobIdOf(connector.kind, connector.tenant, ids, run.id),
        ),
      });
  }
  return jobs;
}
