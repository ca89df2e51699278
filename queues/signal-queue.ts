// The queue of real-time signal jobs (one per provider row event) and its worker. A queue of its own:
// a burst of provider events must not wait behind a backfill, nor backfill behind them. Failures are
// classified as the enrich worker's are: an upstream 429 parks the queue without spending the attempt,
// a permanent failure fails at once, anything else retries with capped exponential backoff. What a job
// does is src/signals/realtime.ts, handed in as `process`.

import { DelayedError, type Job, type JobsOptions, Queue, UnrecoverableError, Worker } from 'bullmq';
import type { Redis } from 'ioredis';
import type { LogPort } from '../src/shared/log.ts';
import { logConnectionErrors } from './connection-errors.ts';
import { jobIdOf } from './enrich-queue.ts';
import { WORKER_TIMING } from './enrich-worker.ts';
import { cappedExponentialBackoff, classifyFailure } from './failure.ts';

export const SIGNAL_QUEUE = 'buyer-intel-signals';

/**
 * One provider row event as its job carries it: the payload names the row and its bridge but not its
 * buyer nor its cells, so the job carries ids only and the worker reads the row from the API.
 */
export interface SignalJobData {
  /** The delivery's `webhook-id`: the job id derives from it. */
  webhookId: string;
  /** The event's type (`bridge.row.created`, …; src/signals/events.ts). */
  type: string;
  rowId: string;
  bridgeId: string;
  /** When the provider last updated the row (bounds the row search). */
  updatedAt: string | null;
  name: string | null;
}

export function createSignalQueue(
  connection: Redis,
  options: { name?: string; prefix?: string } = {},
): Queue<SignalJobData> {
  return new Queue<SignalJobData>(options.name ?? SIGNAL_QUEUE, {
    connection,
    ...(options.prefix ? { prefix: options.prefix } : {}),
  });
}

export interface SignalJob {
  name: 'buyer-intel-row';
  data: SignalJobData;
  opts: JobsOptions;
}

/** The job of one delivery, its completed record kept `keepSeconds`: as long as the sender may re-deliver. */
export function signalJobFor(data: SignalJobData, attempts: number, keepSeconds: number): SignalJob {
  return {
    name: 'buyer-intel-row',
    data,
    opts: {
      // Same delivery, same job: BullMQ ignores an add whose id exists, so a re-delivery racing the
      // first one (before the dedupe key is set) is still one job.
      jobId: jobIdOf('bi-webhook', data.webhookId),
      attempts,
      backoff: { type: 'capped-exponential' },
      removeOnComplete: { age: keepSeconds, count: 100_000 },
      removeOnFail: false,
    },
  };
}

/** What the webhook router's `enqueue` option wants, for a queue. */
export function enqueueInto(queue: Queue<SignalJobData>): (job: SignalJob) => Promise<unknown> {
  return (job) => queue.add(job.name, job.data, job.opts);
}

export interface SignalWorkerOptions<R> {
  /** A worker connection (maxRetriesPerRequest: null). */
  connection: Redis;
  /** The same queue (name and prefix), parked when an upstream rate-limits. */
  queue: Queue<SignalJobData>;
  name?: string;
  prefix?: string;
  concurrency?: number;
  process: (data: SignalJobData, job: Job<SignalJobData>) => Promise<R>;
  log?: Pick<LogPort, 'warn'>;
}

export function startSignalWorker<R>(options: SignalWorkerOptions<R>): Worker<SignalJobData, R> {
  const { queue, log } = options;
  const worker = new Worker<SignalJobData, R>(
    options.name ?? SIGNAL_QUEUE,
    async (job, token) => {
      try {
        return await options.process(job.data, job);
      } catch (err) {
        const decision = classifyFailure(err);
        if (decision.action === 'rate-limit') {
          log?.warn('upstream rate limit: parking the signal queue', {
            jobId: job.id,
            delayMs: decision.delayMs,
          });
          await queue.rateLimit(decision.delayMs);
          throw Worker.RateLimitError();
        }
        if (decision.action === 'defer') {
          log?.warn('CRM rate limit: this job waits', { jobId: job.id, delayMs: decision.delayMs });
          await job.moveToDelayed(Date.now() + decision.delayMs, token);
          throw new DelayedError();
        }
        if (decision.action === 'fail') throw new UnrecoverableError(decision.reason);
        throw err;
      }
    },
    {
      connection: options.connection,
      ...(options.prefix ? { prefix: options.prefix } : {}),
      concurrency: options.concurrency ?? 4,
      ...WORKER_TIMING,
      settings: { backoffStrategy: (attemptsMade: number) => cappedExponentialBackoff(attemptsMade) },
    },
  );
  worker.on('failed', (job, err) => {
    if (!job) return;
    const final = err instanceof UnrecoverableError || job.attemptsMade >= (job.opts.attempts ?? 1);
    log?.warn(final ? 'signal job failed for good' : 'signal job failed; will retry', {
      jobId: job.id,
      reason: err.message,
    });
  });
  logConnectionErrors(worker, 'signal', log);
  return worker;
}
