// The maintenance queue: work that is not one account's enrichment (re-enrichment sweeps, undo runs,
// signal digests). BullMQ job schedulers with fixed ids make a schedule idempotent: every worker may
// upsert it, there is still one, and it survives restarts because it lives in Redis (and is declared
// again when Redis loses it: schedule-keeper.ts).
import { type Job, Queue, Worker } from 'bullmq';
import type { Redis } from 'ioredis';
import type { LogPort } from '../src/shared/log.ts';
import { logConnectionErrors } from './connection-errors.ts';
import { WORKER_TIMING } from './enrich-worker.ts';
import { cappedExponentialBackoff } from './failure.ts';
import type { DeclaredScheduler } from './schedule-keeper.ts';

export const MAINTENANCE_QUEUE = 'maintenance';

export type MaintenanceData = Record<string, unknown>;
export type MaintenanceHandler = (job: Job<MaintenanceData>) => Promise<unknown>;

export function createMaintenanceQueue(
  connection: Redis,
  options: { prefix?: string } = {},
): Queue<MaintenanceData> {
  return new Queue<MaintenanceData>(MAINTENANCE_QUEUE, {
    connection,
    ...(options.prefix ? { prefix: options.prefix } : {}),
  });
}

export interface Schedule {
  /** Fixed id: upserting it again replaces, never duplicates. */
  id: string;
  /** Cron pattern (with seconds optional), e.g. `0 8 * * 1`. */
  pattern: string;
  /** IANA time zone the pattern is read in, e.g. `America/Chicago`. */
  tz: string;
  /** The handler's name. */
  name: string;
  data?: MaintenanceData;
}

export async function upsertSchedule(
  queue: Queue<MaintenanceData>,
  schedule: Schedule,
): Promise<DeclaredScheduler> {
  await queue.upsertJobScheduler(
    schedule.id,
    { pattern: schedule.pattern, tz: schedule.tz },
    {
      name: schedule.name,
      data: schedule.data ?? {},
      opts: {
        attempts: 5,
        backoff: { type: 'capped-exponential' },
        removeOnComplete: 100,
        removeOnFail: 1000,
      },
    },
  );
  return { queue, id: schedule.id };
}

/** Runs maintenance jobs by name; an unknown name fails the job with a reason, never silently. */
export function startMaintenanceWorker(options: {
  connection: Redis;
  prefix?: string;
  handlers: Record<string, MaintenanceHandler>;
  log?: LogPort;
}): Worker<MaintenanceData> {
  const worker = new Worker<MaintenanceData>(
    MAINTENANCE_QUEUE,
    async (job) => {
      const handler = options.handlers[job.name];
      if (!handler) throw new Error(`no handler for maintenance job "${job.name}"`);
      return handler(job);
    },
    {
      connection: options.connection,
      ...(options.prefix ? { prefix: options.prefix } : {}),
      concurrency: 1,
      ...WORKER_TIMING,
      // An idle worker polls once per drainDelay (9 commands): the enrich queue's 1 s is for its
      // prioritised jobs pushed back after a rate-limit pause, which this queue never has — its jobs
      // wake the worker when added, its schedules when due. BullMQ's longest block, 10 s: an idle
      // service's polling (~9 commands/s with the enrich worker's) was a cost per second, ~2 Redis
      // commands per account of a backfill at the provider's real pace.
      drainDelay: 10,
      settings: { backoffStrategy: (attemptsMade: number) => cappedExponentialBackoff(attemptsMade) },
    },
  );
  worker.on('failed', (job, err) =>
    options.log?.warn('maintenance job failed', { jobId: job?.id, name: job?.name, reason: err.message }),
  );
  logConnectionErrors(worker, 'maintenance', options.log);
  return worker;
}

/** The maintenance job that settles write-history rows left pending (src/undo/pending-sweep.ts). */
export const PENDING_SWEEP_JOB = 'settle-pending';
/** Every 5 minutes: a row is swept once it is 10 minutes old, so within 15 minutes at most. */
export const PENDING_SWEEP_SCHEDULE: Schedule = {
  id: 'settle-pending',
  pattern: '*/5 * * * *',
  tz: 'UTC',
  name: PENDING_SWEEP_JOB,
};

/** The maintenance job that runs an undo (src/undo/) for the API: one job per undo run. */
export const UNDO_JOB = 'undo';

/**
 * Queues the undo run's job: an id per run, so asking twice is one job; a job that failed for good
 * (the CRM stayed down) is retried, and resumes the run where it stopped.
 */
export async function enqueueUndo(
  queue: Queue<MaintenanceData>,
  runId: string,
  data: MaintenanceData,
): Promise<string> {
  const jobId = `undo-${runId}`;
  const existing = await queue.getJob(jobId);
  if (existing && (await existing.isFailed())) await existing.retry('failed');
  else if (!existing)
    await queue.add(UNDO_JOB, data, {
      jobId,
      attempts: 5,
      backoff: { type: 'capped-exponential' },
      removeOnComplete: 100,
      removeOnFail: 1000,
    });
  return jobId;
}
