// The scheduled re-enrichment as a maintenance job: one run in the store per scheduled job (keyed by
// it, so a retried sweep is the same run), every matched account queued, and the run's signal source
// chosen once its size is known.
import type { Job, Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import type { EnrichQueueData } from '../../queues/enrich-queue.ts';
import type { MaintenanceData } from '../../queues/maintenance.ts';
import type { BuyerIntelClient } from '../buyer-intel/client.ts';
import { planSignals, recordSignalPlan, type SignalSettings } from '../enrich/run-signals.ts';
import type { LogPort } from '../shared/log.ts';
import type { Store } from '../store/store.ts';
import type { Ledgers } from '../write/ledgers.ts';
import { reenrichSweep } from './sweep.ts';

export interface ScheduledReenrichDeps {
  store: Pick<Store, 'open' | 'analyze'>;
  ledgers: Ledgers;
  queue: Queue<EnrichQueueData>;
  attempts: number;
  buyerIntel: Pick<BuyerIntelClient, 'listTopRecentSignals'>;
  signals: SignalSettings;
  redis: Redis;
  prefix: string;
  log: LogPort;
}

export function scheduledReenrich(deps: ScheduledReenrichDeps) {
  return async (job: Job<MaintenanceData>): Promise<{ queued: number }> => {
    const { runs } = await deps.store.open();
    const run = await runs.create({
      kind: 'reenrich',
      key: `reenrich:${job.id}`,
      label: `scheduled re-enrichment ${job.id}`,
    });
    await deps.store.analyze().catch(() => undefined); // store.ts: analyze
    const result = await reenrichSweep({
      ledgers: deps.ledgers,
      queue: deps.queue,
      attempts: deps.attempts,
      runId: String(job.id),
      storeRunId: run.id,
    });
    // Counted once queued: the run's first jobs take the per-buyer call until the plan is read.
    await planSignals(deps.buyerIntel, deps.signals, result.queued)
      .then((plan) => recordSignalPlan(deps.redis, deps.prefix, run.id, plan))
      .catch((err: unknown) =>
        deps.log.warn('the run reads signals per buyer: its plan failed', { reason: String(err) }),
      );
    await runs.finish(run.id, { queued: result.queued });
    return result;
  };
}
