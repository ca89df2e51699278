// The work tier: the enrich worker (with the per-account lock and final-failure marking), the
// real-time signal worker when provider webhooks are configured, the digest worker when a digest is
// scheduled, and the maintenance worker.
import type { Worker } from 'bullmq';
import { startDigestWorker } from '../../queues/digest-queue.ts';
import { startEnrichWorker } from '../../queues/enrich-worker.ts';
import { startMaintenanceWorker } from '../../queues/maintenance.ts';
import { startSignalWorker } from '../../queues/signal-queue.ts';
import { DEFAULT_DAILY_HEADROOM, dailyHeadroomGate } from '../backfill/daily-headroom.ts';
import { type EnrichResult, enrichAccount } from '../enrich/pipeline.ts';
import { reviewInstructionSchema } from '../enrich/review-instruction.ts';
import { PROVENANCE_FIELDS } from '../map/field-definitions.ts';
import { reenrichSweep } from '../reenrich/sweep.ts';
import { reconcileDuplicates } from '../review/duplicates.ts';
import { accountLockKey, redisAccountLock } from '../signals/account-lock.ts';
import { processRowEvent } from '../signals/realtime.ts';
import { keptOf, recordOf } from '../store/history.ts';
import { resolvedSchema } from '../undo/target.ts';
import { runUndo } from '../undo/undo.ts';
import type { ServiceCore } from './core.ts';

const lockKey = accountLockKey;

export function startWorkers(core: ServiceCore): { enrich: Worker; all: Worker[] } {
  const { settings, queues, metrics, log, deps, store, redis } = core;
  const { prefix } = settings;
  // Backfill waits while a tenant's daily CRM allocation is down to what others need.
  const headroomGate = dailyHeadroomGate({
    redis: redis.worker,
    prefix,
    headroom: settings.worker.crmDailyHeadroom ?? DEFAULT_DAILY_HEADROOM,
    log,
  });
  const enrich = startEnrichWorker<EnrichResult>({
    connection: redis.worker,
    queue: queues.enrichForWorker,
    prefix,
    concurrency: settings.worker.concurrency,
    process: async (data, job) => {
      await headroomGate(data);
      // Checked once per process (the schema is current), then no round trip of its own.
      const { outcomes, review } = await store.open();
      // Two round trips to the store per job: the outcome before (a person's pin, the buyer it had),
      // and one upsert of the new outcome that also counts the accounts sharing its buyer.
      const before = await outcomes.get(data);
      // A rejection holds whatever its last job did: one that failed for good leaves it pinned, its
      // status `error` and its reason the person's words.
      const rejected = before?.pinned ? { reason: before.reason ?? 'Rejected' } : undefined;
      const instruction = data.review ? reviewInstructionSchema.parse(data.review) : undefined;
      const meta = { jobId: job.id, trigger: data.trigger, runId: data.runId };
      const result = await enrichAccount(deps, data, {
        review: rejected ? undefined : instruction,
        rejected,
        job: meta,
      });
      metrics.recordResult(result);
      // The values a policy kept go on the write history in the same statement (its writes and notes
      // were recorded with their CRM batches).
      const { sharing } = await outcomes.recordCountingShared(
        { ...recordOf(result, meta), ...(rejected ? { pinned: true } : {}) },
        { kept: keptOf(result, meta) },
      );
      const moved = Boolean(before?.buyerId) && before?.buyerId !== result.match.buyerId;
      // The first job to apply a rejection (a pin has no job id): the pin already erased the buyer, so
      // the group the account was recommended in is found by the marks pointing at it.
      const formerGroups = Boolean(rejected) && before?.jobId === null;
      if (sharing > 0 || moved || before?.duplicateOf || formerGroups)
        await reconcileDuplicates(
          { review, writeAccount: core.writes.writeAccount },
          data,
          [result.match.buyerId, before?.buyerId],
          { formerGroups, origin: meta },
        );
      // No updateProgress(100): it cost a script, four commands and an event per job; a completed
      // job's progress is 100 by its state (the jobs API says so).
      return result;
    },
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
  enrich.on('completed', (job, result) =>
    log.info('account enriched', {
      jobId: job.id,
      crm: job.data.crm,
      tenant: job.data.tenant,
      accountId: job.data.accountId,
      trigger: job.data.trigger,
      status: result.status,
      fieldsWritten: Object.keys(result.written).length,
      notesCreated: result.notes.created.length,
    }),
  );
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
  if (settings.digest?.perAccount || settings.digest?.orgWide)
    all.push(startDigestWorker({ connection: redis.worker, deps: core.digestDeps, prefix }));
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
        'reenrich-sweep': async (job) => {
          // Keyed by the scheduled job: a retried sweep is the same run.
          const { runs } = await store.open();
          const run = await runs.create({
            kind: 'reenrich',
            key: `reenrich:${job.id}`,
            label: `scheduled re-enrichment ${job.id}`,
          });
          const result = await reenrichSweep({
            ledgers: core.ledgers,
            queue: queues.enrich,
            attempts: settings.worker.attempts,
            runId: String(job.id),
            storeRunId: run.id,
          });
          await runs.finish(run.id, { queued: result.queued });
          return result;
        },
      },
      log,
    }),
  );
  return { enrich, all };
}
