// Every queue handle the service uses, on the right connection, with connection errors logged at
// most once per 10 s per queue (BullMQ reports them as 'error' events).
import type { Queue } from 'bullmq';
import { createDigestQueue } from '../../queues/digest-queue.ts';
import { BACKFILL_QUEUE, createEnrichQueue } from '../../queues/enrich-queue.ts';
import { createMaintenanceQueue } from '../../queues/maintenance.ts';
import { createSignalQueue } from '../../queues/signal-queue.ts';
import type { Logger } from '../observe/logger.ts';
import type { RedisConnections } from './redis.ts';

export function createQueues(redis: RedisConnections, prefix: string, logger: Logger) {
  const queues = {
    enrich: createEnrichQueue(redis.producer, { prefix }),
    // The worker parks the queue on a shared 429 through its own (blocking-safe) connection.
    enrichForWorker: createEnrichQueue(redis.worker, { prefix }),
    // Backfill's chunks and accounts, apart so a person's job never waits behind them (enrich-queue.ts).
    backfill: createEnrichQueue(redis.producer, { prefix, name: BACKFILL_QUEUE }),
    backfillForWorker: createEnrichQueue(redis.worker, { prefix, name: BACKFILL_QUEUE }),
    maintenance: createMaintenanceQueue(redis.producer, { prefix }),
    digest: createDigestQueue(redis.producer, { prefix }),
    signal: createSignalQueue(redis.producer, { prefix }),
    signalForWorker: createSignalQueue(redis.worker, { prefix }),
  };
  const all: Queue[] = Object.values(queues);
  for (const q of all) {
    let last = 0;
    q.on('error', (err: Error) => {
      if (Date.now() - last < 10_000) return;
      last = Date.now();
      logger.warn({ queue: q.name, reason: err.message }, 'queue connection error; retrying');
    });
  }
  return {
    ...queues,
    /** The queues people watch (metrics, Bull Board). */
    observed: [queues.enrich, queues.backfill, queues.maintenance, queues.digest, queues.signal] as Queue[],
    close: () => Promise.all(all.map((q) => q.close())),
  };
}

export type ServiceQueues = ReturnType<typeof createQueues>;
