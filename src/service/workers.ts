// The work tier, wired: the enrich workers (enrich-workers.ts: the enrich and backfill queues), the
// real-time signal worker when provider webhooks are configured, the digest worker when a digest is
// scheduled, and the maintenance worker (each job's handler lives with its domain).
import type { Worker } from 'bullmq';
import { startDigestWorker } from '../../queues/digest-queue.ts';
import { FOLLOW_UP_SWEEP_JOB } from '../../queues/follow-up-sweep.ts';
import { PENDING_SWEEP_JOB, startMaintenanceWorker } from '../../queues/maintenance.ts';
import { startSignalWorker } from '../../queues/signal-queue.ts';
import { DEFAULT_DAILY_HEADROOM, dailyHeadroomGate } from '../backfill/daily-headroom.ts';
import { digestProcessor } from '../digest/run.ts';
import { sweepFollowUps } from '../follow-ups/sweep.ts';
import { scheduledReenrich } from '../reenrich/scheduled-run.ts';
import { accountLockKey, redisAccountLock } from '../signals/account-lock.ts';
import { processRowEvent } from '../signals/realtime.ts';
import { describeError } from '../store/store.ts';
import { sweepPendingWrites } from '../undo/pending-sweep.ts';
import { undoJob } from '../undo/undo-job.ts';
import type { ServiceCore } from './core.ts';
import { startEnrichWorkers } from './enrich-workers.ts';
import { type WorkerHealth, workerHealth } from './worker-health.ts';

const lockKey = accountLockKey;

export function startWorkers(core: ServiceCore): { enrich: Worker; all: Worker[]; health: WorkerHealth } {
  const { settings, queues, log, store, redis } = core;
  const { prefix } = settings;
  // Backfill waits while a tenant's daily CRM allocation is down to what others need.
  const headroomGate = dailyHeadroomGate({
    redis: redis.worker,
    prefix,
    headroom: settings.worker.crmDailyHeadroom ?? DEFAULT_DAILY_HEADROOM,
    log,
  });
  let health: WorkerHealth | undefined;
  const { enrich, backfill } = startEnrichWorkers(core, headroomGate, () => health?.touch());

  const all: Worker[] = [enrich, backfill];
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
        undo: undoJob(
          { store, connectorFor: core.connector, ledgers: core.ledgers, locks: core.accountLocks },
          log,
        ),
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
        'reenrich-sweep': scheduledReenrich({
          store,
          ledgers: core.ledgers,
          queue: queues.enrich,
          attempts: settings.worker.attempts,
          buyerIntel: core.buyerIntel.cached,
          signals: settings.signals,
          redis: redis.worker,
          prefix,
          log,
        }),
      },
      log,
    }),
  );
  // Only the enrich queues: a signal or digest backlog is not a stalled worker's sign.
  health = workerHealth([enrich, backfill], [queues.enrich, queues.backfill]);
  return { enrich, all, health };
}
