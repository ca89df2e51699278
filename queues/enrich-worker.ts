// The enrich worker: runs the pipeline for each job. A 429 from the Buyer Intelligence API parks the
// whole queue for the time asked (every job shares that limit); a CRM tenant's limit delays only the
// job that hit it; neither spends the job's attempt;
// a permanent failure fails the job at once with its reason; anything else retries with backoff.
// Stalled jobs (a worker that died mid-job) are picked up again by BullMQ, so every side effect of the
// pipeline is idempotent.
import { DelayedError, type Job, type Queue, UnrecoverableError, Worker } from 'bullmq';
import type { Redis } from 'ioredis';
import { ENRICH_QUEUE, type EnrichJobData } from './enrich-queue.ts';
import { cappedExponentialBackoff, classifyFailure } from './failure.ts';

export interface WorkerLog {
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
}

export interface EnrichWorkerOptions<R> {
  connection: Redis;
  /** The queue the worker parks when an upstream rate-limits (same name and prefix). */
  queue: Queue<EnrichJobData>;
  name?: string;
  prefix?: string;
  concurrency: number;
  process: (data: EnrichJobData, job: Job<EnrichJobData>) => Promise<R>;
  /** Called once a job has failed for good (to mark the account, for instance). */
  onFinalFailure?: (data: EnrichJobData, reason: string, jobId: string | undefined) => Promise<void>;
  log?: WorkerLog;
  /** Called when an upstream rate limit parks the queue (metrics). */
  onRateLimit?: (delayMs: number) => void;
  /**
   * One job per key at a time (e.g. per CRM account): a job that finds the key held waits, without
   * spending an attempt. Without it a creation job and a change job could write the same notes at once.
   */
  exclusive?: { redis: Redis; keyOf: (data: EnrichJobData) => string; ttlMs: number; retryDelayMs: number };
}

/**
 * Recovery and wake-up timing shared by our workers. A worker that dies holds its jobs until their
 * lock (renewed every lockDuration/2 while alive) expires and a stalled check sees it: about 20 s
 * instead of BullMQ's 60. Prioritised jobs pushed back after a rate-limit pause do not wake a blocked
 * worker, so it polls again after drainDelay (seconds) instead of 5.
 */
export const WORKER_TIMING = { lockDuration: 15_000, stalledInterval: 5_000, drainDelay: 1 } as const;

// Take the lock when free or already ours (the same job re-run after a stall); release only our own.
const ACQUIRE = `local v = redis.call('GET', KEYS[1])
if v == false or v == ARGV[1] then return redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2]) end
return false`;
const RELEASE = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0`;

export function startEnrichWorker<R>(options: EnrichWorkerOptions<R>): Worker<EnrichJobData, R> {
  const { queue, log } = options;
  const worker = new Worker<EnrichJobData, R>(
    options.name ?? ENRICH_QUEUE,
    async (job, token) => {
      const lock = options.exclusive;
      const owner = `job:${job.id}`;
      const lockKey = lock?.keyOf(job.data);
      if (lock && lockKey) {
        // A free key is the usual case: one SET NX. Only a held key asks the script whether it is ours.
        const taken =
          (await lock.redis.set(lockKey, owner, 'PX', lock.ttlMs, 'NX')) ??
          (await lock.redis.eval(ACQUIRE, 1, lockKey, owner, String(lock.ttlMs)));
        if (taken !== 'OK') {
          await job.moveToDelayed(Date.now() + lock.retryDelayMs, token);
          throw new DelayedError();
        }
      }
      try {
        return await options.process(job.data, job);
      } catch (err) {
        const decision = classifyFailure(err);
        if (decision.action === 'rate-limit') {
          log?.warn('upstream rate limit: parking the queue', { jobId: job.id, delayMs: decision.delayMs });
          options.onRateLimit?.(decision.delayMs);
          await queue.rateLimit(decision.delayMs);
          throw Worker.RateLimitError();
        }
        if (decision.action === 'defer') {
          log?.warn('CRM rate limit: this job waits', { jobId: job.id, delayMs: decision.delayMs });
          options.onRateLimit?.(decision.delayMs);
          await job.moveToDelayed(Date.now() + decision.delayMs, token);
          throw new DelayedError();
        }
        if (decision.action === 'fail') throw new UnrecoverableError(decision.reason);
        throw err;
      } finally {
        if (lock && lockKey) await lock.redis.eval(RELEASE, 1, lockKey, owner).catch(() => undefined);
      }
    },
    {
      connection: options.connection,
      ...(options.prefix ? { prefix: options.prefix } : {}),
      concurrency: options.concurrency,
      ...WORKER_TIMING,
      settings: { backoffStrategy: (attemptsMade: number) => cappedExponentialBackoff(attemptsMade) },
    },
  );
  worker.on('error', (err) => log?.warn('worker connection error; retrying', { reason: err.message }));
  worker.on('stalled', (jobId) => log?.warn('job stalled; it will run again', { jobId }));
  worker.on('failed', (job, err) => {
    if (!job) return;
    const final = err instanceof UnrecoverableError || job.attemptsMade >= (job.opts.attempts ?? 1);
    log?.warn(final ? 'job failed for good' : 'job failed; will retry', {
      jobId: job.id,
      reason: err.message,
    });
    if (final && options.onFinalFailure) {
      options.onFinalFailure(job.data, err.message, job.id).catch((e: unknown) => {
        log?.warn('could not record the failure on the account', { jobId: job.id, reason: String(e) });
      });
    }
  });
  return worker;
}
