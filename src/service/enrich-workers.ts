// The enrich workers, wired: one on the enrich queue (what a person or a CRM event asks for) and one on
// the backfill queue, sharing the process's WORKER_CONCURRENCY account slots (queues/worker-load.ts),
// so a webhook is fetched at once however many backfill chunks this process holds, and takes the next
// free slot ahead of them. Both run the same jobs (src/enrich-job/) under the same per-account lock.
import type { Worker } from 'bullmq';
import { enrichedBy } from '../../queues/chunk-result.ts';
import { startEnrichWorker } from '../../queues/enrich-worker.ts';
import { WorkerLoad } from '../../queues/worker-load.ts';
import type { EnrichResult } from '../enrich/types.ts';
import type { EnrichSummary } from '../enrich-job/chunk-summary.ts';
import { enrichJobs, type HeadroomGate } from '../enrich-job/enrich-jobs.ts';
import { markFinalFailure } from '../enrich-job/final-failure.ts';
import { accountLockKey } from '../signals/account-lock.ts';
import type { ServiceCore } from './core.ts';

export function startEnrichWorkers(
  core: ServiceCore,
  headroomGate: HeadroomGate,
  /** Each finished account (the worker's health: work moves inside a long chunk too). */
  onAccount: () => void = () => undefined,
): { enrich: Worker; backfill: Worker } {
  const { settings, queues, metrics, log, store, redis } = core;
  const { prefix } = settings;
  const jobDeps = {
    store,
    connectorFor: core.connector,
    ledgers: core.ledgers,
    writeAccount: core.writes.writeAccount,
    recordResult: (result: EnrichResult) => {
      onAccount();
      metrics.recordResult(result);
    },
  };
  const jobs = enrichJobs(jobDeps, core.deps, headroomGate, {
    gatherMs: settings.worker.backfillBatchWaitMs,
  });
  const load = new WorkerLoad(settings.worker.concurrency);
  const onFinalFailure = markFinalFailure({ store, writeAccount: core.writes.writeAccount, log });

  const startOn = (queue: typeof queues.enrich, drainDelay?: number) => {
    const worker = startEnrichWorker<EnrichResult, EnrichSummary>({
      ...(drainDelay ? { drainDelay } : {}),
      connection: redis.worker,
      queue,
      name: queue.name,
      load,
      prefix,
      concurrency: settings.worker.concurrency,
      process: jobs.process,
      prepareChunk: jobs.prepareChunk,
      onFinalFailure,
      exclusive: {
        redis: redis.worker,
        keyOf: (data) => accountLockKey(prefix, data),
        ttlMs: 120_000,
        retryDelayMs: 1_000,
      },
      log,
      onRateLimit: (delayMs) => metrics.recordParked(queue.name, delayMs),
    });
    const timeJob =
      (outcome: string) =>
      (job: { processedOn?: number | undefined; finishedOn?: number | undefined } | undefined) => {
        if (job?.processedOn && job.finishedOn)
          metrics.jobDuration.observe(
            { queue: queue.name, outcome },
            (job.finishedOn - job.processedOn) / 1000,
          );
      };
    worker.on('completed', timeJob('completed'));
    worker.on('completed', (job, returned) => {
      for (const result of enrichedBy(returned))
        log.info('account enriched', {
          jobId: job.id,
          crm: job.data.crm,
          tenant: job.data.tenant,
          accountId: result.account.accountId,
          trigger: job.data.trigger,
          // What links this line to the request that queued it (its log line names the same run).
          ...(job.data.runId ? { runId: job.data.runId } : {}),
          ...('requestId' in job.data && job.data.requestId ? { requestId: job.data.requestId } : {}),
          status: result.status,
          fieldsWritten: Object.keys(result.written).length,
          notesCreated: result.notes.created.length,
        });
    });
    worker.on('failed', timeJob('failed'));
    return worker;
  };
  // Backfill's worker polls every 5 s when idle or parked (a person's queue: every second): its jobs
  // are woken by their own adds, and a few seconds after a pause cost a backfill nothing.
  return { enrich: startOn(queues.enrichForWorker), backfill: startOn(queues.backfillForWorker, 5) };
}
