// How far one backfill run is, read on the poll side (nothing added to a worker's hot path): its accounts
// whose outcome the store records, per account, as `runs show` and GET /api/runs/:id count them; what
// holds it back (the provider's shared rate below the configured one, the CRM's daily allocation).
//
// Issue 42: the count came from finished BullMQ jobs, and a chunk's 100 accounts count only once its
// job ends (400/1117 on the bar while 952 had outcomes). The store records each account's outcome as
// it gets there, so it is the count; one grouped count on the outcomes-by-run index (migration 0005)
// per poll. The finished jobs (outcomes.ts) still count too, whichever is more: they are all there is
// when this process's store is not the workers' (each on an embedded database in memory), and an
// account whose latest outcome a later job took over (a webhook during the run) leaves the run's
// outcomes but still finished in it, so a `--wait` ends.
import type { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import type { CrmConnector } from '../../connectors/types.ts';
import type { EnrichQueueData } from '../../queues/enrich-queue.ts';
import { readSharedRate } from '../buyer-intel/shared-rate.ts';
import type { Store } from '../store/store.ts';
import { type BackfillPause, readBackfillPause } from './daily-headroom.ts';
import { type BackfillOutcomes, trackBackfillOutcomes } from './outcomes.ts';

export interface RunProgress {
  outcomes: BackfillOutcomes;
  /** The rate every worker uses now, when the provider holds it below the configured one. */
  throttledTo?: number | undefined;
  /** The tenant's daily CRM allocation holds its backfill jobs (daily-headroom.ts). */
  paused?: BackfillPause | undefined;
}

export interface RunProgressOptions {
  store: Pick<Store, 'open'>;
  queue: Queue<EnrichQueueData>;
  redis: Redis;
  prefix: string;
  connector: Pick<CrmConnector, 'kind' | 'tenant'>;
  /** The backfill's own id (its jobs' ids) and the run in the store its accounts' outcomes name. */
  run: { runId: string; storeRunId: string; startedAt: string };
  /** The provider's token and configured rate, to tell when the shared rate is held below it. */
  provider: { token: string; ratePerSecond: number };
}

/** The run's progress, read again on each call. */
export function runProgressReader(options: RunProgressOptions): { read(): Promise<RunProgress> } {
  const { redis, prefix, connector, provider } = options;
  const jobs = trackBackfillOutcomes({
    ...options,
    runId: options.run.runId,
    startedAt: options.run.startedAt,
  });
  return {
    async read() {
      const [recorded, finished, rate, paused] = await Promise.all([
        // A store that does not answer this once (a failover) leaves the finished jobs' count.
        options.store
          .open()
          .then(({ runs }) => runs.outcomeCounts(options.run.storeRunId))
          .catch(() => ({ enriched: 0, needs_review: 0, no_match: 0, error: 0 })),
        jobs.poll(),
        readSharedRate(redis, prefix, provider.token, provider.ratePerSecond),
        readBackfillPause(redis, prefix, connector.kind, connector.tenant),
      ]);
      const fromStore: BackfillOutcomes = {
        finished: recorded.enriched + recorded.needs_review + recorded.no_match + recorded.error,
        enriched: recorded.enriched,
        needs_review: recorded.needs_review,
        no_match: recorded.no_match,
        failed: recorded.error,
      };
      return {
        outcomes: fromStore.finished >= finished.finished ? fromStore : finished,
        throttledTo: rate.ratePerSecond < provider.ratePerSecond ? rate.ratePerSecond : undefined,
        paused,
      };
    },
  };
}

/** "provider throttling, 7.5 req/s": the rate every worker is held to now. */
export const describeThrottle = (ratePerSecond: number): string =>
  `provider throttling, ${Math.round(ratePerSecond * 10) / 10} req/s`;
