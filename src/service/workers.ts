// The work tier: the enrich worker (with the per-account lock and final-failure marking), the
// real-time signal worker when provider webhooks are configured, the digest worker when a digest is
// scheduled, and the maintenance worker.
import type { Worker } from 'bullmq';
import { enrichedBy } from '../../queues/chunk-result.ts';
import { startDigestWorker } from '../../queues/digest-queue.ts';
import { startEnrichWorker } from '../../queues/enrich-worker.ts';
import { FOLLOW_UP_SWEEP_JOB } from '../../queues/follow-up-sweep.ts';
import { PENDING_SWEEP_JOB, startMaintenanceWorker } from '../../queues/maintenance.ts';
import { startSignalWorker } from '../../queues/signal-queue.ts';
import { DEFAULT_DAILY_HEADROOM, dailyHeadroomGate } from '../backfill/daily-headroom.ts';
import { digestProcessor } from '../digest/run.ts';
import type { EnrichResult } from '../enrich/pipeline.ts';
import { planSignals, recordSignalPlan } from '../enrich/run-signals.ts';
import { sweepFollowUps } from '../follow-ups/sweep.ts';
import { PROVENANCE_FIELDS } from '../map/field-definitions.ts';
import { reenrichSweep } from '../reenrich/sweep.ts';
import { accountLockKey, redisAccountLock } from '../signals/account-lock.ts';
import { processRowEvent } from '../signals/realtime.ts';
import { describeError } from '../store/store.ts';
import { sweepPendingWrites } from '../undo/pending-sweep.ts';
import { resolvedSchema } from '../undo/target.ts';
import { runUndo } from '../undo/undo.ts';
import type { ServiceCore } from './core.ts';
import { enrichJobs } from './enrich-jobs.ts';

const lockKey = accountLockKey;

export function startWorkers(core: ServiceCore): { enrich: Worker; all: Worker[] } {
  const { settings, queues, metrics, log, store, redis } = core;
  const { prefix } = settings;
  // Backfill waits while a tenant's daily CRM allocation is down to what others need.
  const headroomGate = dailyHeadroomGate({
    redis: redis.worker,
    prefix,
    headroom: settings.worker.crmDailyHeadroom ?? DEFAULT_DAILY_HEADROOM,
    log,
  });
  const jobs = enrichJobs(core, headroomGate);
  const enrich = startEnrichWorker<EnrichResult>({
    connection: redis.worker,
    queue: queues.enrichForWorker,
    prefix,
    concurrency: settings.worker.concurrency,
    process: jobs.process,
    prepareChunk: jobs.prepareChunk,
    onFinalFailure: async (data, reason, jobId) => {
      const meta = { jobId, trigger: data.trigger, runId: data.runId };
      await store
        .open()
        .then(({ outcomes }) => outcomes.recordError(data, reason, meta))
        .catch((err: unknown) =>
          log.warn('could not record the failure in the store', { jobId, reason: String(err) }),
        );
      // Mark the account so a person sees why it was not enriched (what the fields held is not known).
      const mark = { old: null, decision: 'failure-mark', kind: 'provenance' } as const;
      await core.writes.writeAccount(
        data.crm,
        data.tenant,
        {
          accountId: data.accountId,
          fields: {
            [PROVENANCE_FIELDS.status]: 'error',
            [PROVENANCE_FIELDS.matchReason]: reason.slice(0, 2000),
          },
        },
        {
          ...meta,
          fields: { [PROVENANCE_FIELDS.status]: mark, [PROVENANCE_FIELDS.matchReason]: mark },
        },
      );
    },
    exclusive: {
      redis: redis.worker,
      keyOf: (data) => lockKey(prefix, data),
      ttlMs: 120_000,
      retryDelayMs: 1_000,
    },
    log,
    onRateLimit: (delayMs) => {
      metrics.rateLimitWaits.inc({ queue: queues.enrich.name });
      metrics.rateLimitWaitSeconds.inc({ queue: queues.enrich.name }, delayMs / 1000);
    },
  });
  const timeJob =
    (outcome: string) =>
    (job: { processedOn?: number | undefined; finishedOn?: number | undefined } | undefined) => {
      if (job?.processedOn && job.finishedOn)
        metrics.jobDuration.observe(
          { queue: queues.enrich.name, outcome },
          (job.finishedOn - job.processedOn) / 1000,
        );
    };
  enrich.on('completed', timeJob('completed'));
  enrich.on('completed', (job, returned) => {
    for (const result of enrichedBy(returned))
      log.info('account enriched', {
        jobId: job.id,
        crm: job.data.crm,
        tenant: job.data.tenant,
        accountId: result.account.accountId,
        trigger: job.data.trigger,
        status: result.status,
        fieldsWritten: Object.keys(result.written).length,
        notesCreated: result.notes.created.length,
      });
  });
  enrich.on('failed', timeJob('failed'));

  const all: Worker[] = [enrich];
  const biWebhooks = settings.buyerIntel.webhooks;
  if (biWebhooks) {
    const signalDeps = {
      buyerIntel: core.buyerIntel.client,
      connectorFor: core.connector,
      ledgers: core.ledgers,
      createNote: core.writes.createNote,
      // The enrich worker's own per-account lock: a real-time note and an enrichment never race.
      lock: redisAccountLock({ redis: redis.worker, keyOf: (a) => lockKey(prefix, a) }),
      ...(biWebhooks.bridgeIds?.length ? { bridgeIds: biWebhooks.bridgeIds } : {}),
      ...(settings.followUps ? { followUps: settings.followUps } : {}),
    };
    all.push(
      startSignalWorker({
        connection: redis.worker,
        queue: queues.signalForWorker,
        prefix,
        concurrency: settings.worker.concurrency,
        process: (data) => processRowEvent(signalDeps, data),
        log,
      }),
    );
  }
  if (settings.digest?.perAccount || settings.digest?.orgWide || settings.digest?.perOwner)
    all.push(
      startDigestWorker({
        connection: redis.worker,
        processor: digestProcessor(core.digestDeps),
        prefix,
        log: core.digestDeps.log,
      }),
    );
  all.push(
    startMaintenanceWorker({
      connection: redis.worker,
      prefix,
      handlers: {
        // An undo the API queued (its run already opened): run it, or resume it after a lost worker.
        undo: async (job) => {
          const resolved = resolvedSchema.parse(job.data.resolved);
          const actor = typeof job.data.actor === 'string' ? job.data.actor : undefined;
          const outcome = await runUndo(
            { store, connectorFor: core.connector, ledgers: core.ledgers, locks: core.accountLocks },
            resolved,
            { actor },
          );
          log.info('undo finished', {
            jobId: job.id,
            runId: outcome.runId,
            pending: outcome.pending,
            ...outcome.counts,
          });
          // Accounts the CRM refused for now: the job's retry resumes the run.
          if (outcome.pending)
            throw new Error(
              `${outcome.pending} accounts refused by the CRM for now (undo run ${outcome.runId})`,
            );
          return { runId: outcome.runId, ...outcome.counts };
        },
        // Writes recorded pending whose CRM answer never reached the store, and no job came back to.
        [PENDING_SWEEP_JOB]: async (job) => {
          const result = await sweepPendingWrites(
            {
              store,
              connectorFor: core.connector,
              locks: core.accountLocks,
              onError: (account, err) =>
                log.warn('could not settle pending writes', {
                  crm: account.crm,
                  accountId: account.accountId,
                  reason: describeError(err),
                }),
            },
            { owner: `pending-sweep:${job.id}` },
          );
          if (result.accounts || result.left || result.unsettled)
            log.info('pending writes settled', { ...result });
          return result;
        },
        [FOLLOW_UP_SWEEP_JOB]: async (job) => {
          const result = await sweepFollowUps({
            followUps: (await store.open()).followUps,
            connectorFor: core.connector,
            buyerIntel: core.buyerIntel.client,
            dismissed: settings.followUps?.dismissed ?? ['deleted'],
          });
          log.info('follow-up sweep finished', { jobId: job.id, ...result });
          return result;
        },
        'reenrich-sweep': async (job) => {
          // Keyed by the scheduled job: a retried sweep is the same run.
          const { runs } = await store.open();
          const run = await runs.create({
            kind: 'reenrich',
            key: `reenrich:${job.id}`,
            label: `scheduled re-enrichment ${job.id}`,
          });
          await store.analyze().catch(() => undefined); // store.ts: analyze
          const result = await reenrichSweep({
            ledgers: core.ledgers,
            queue: queues.enrich,
            attempts: settings.worker.attempts,
            runId: String(job.id),
            storeRunId: run.id,
          });
          // Counted once queued: the run's first jobs take the per-buyer call until the plan is read.
          await planSignals(core.buyerIntel.cached, settings.signals, result.queued)
            .then((plan) => recordSignalPlan(redis.worker, prefix, run.id, plan))
            .catch((err: unknown) =>
              log.warn('the run reads signals per buyer: its plan failed', { reason: String(err) }),
            );
          await runs.finish(run.id, { queued: result.queued });
          return result;
        },
      },
      log,
    }),
  );
  return { enrich, all };
}
