// The enrich worker: runs the pipeline for each job — one account's, or a backfill chunk's accounts
// (enrich-chunk.ts). A process runs one on the enrich queue and one on the backfill queue, sharing one
// WorkerLoad (worker-load.ts). A 429 from the Buyer Intelligence API that the shared pace could not
// absorb parks the worker's queue for the time asked (every job shares that limit); a CRM tenant's
// limit delays only the job that hit it; neither spends the job's attempt; a permanent failure fails
// the job at once with its reason; anything else retries with backoff. Stalled jobs (a worker that died
// mid-job) are picked up again by BullMQ, so every side effect of the pipeline is idempotent.
// WORKER_CONCURRENCY counts accounts in flight, a chunk's or a single job's alike (worker-load.ts).
import { hostname } from 'node:os';
import { DelayedError, type Job, type Queue, UnrecoverableError, Worker } from 'bullmq';
import type { Redis } from 'ioredis';
import type { LogPort } from '../src/shared/log.ts';
import { releaseLocks, takeLocks } from '../src/shared/redis-lock.ts';
import { runUrgent } from '../src/shared/urgency.ts';
import type { ExclusiveOptions } from './account-lock.ts';
import type { ChunkResult } from './chunk-result.ts';
import { logConnectionErrors } from './connection-errors.ts';
import { type ChunkRunner, runChunk } from './enrich-chunk.ts';
import {
  type ChunkJobData,
  ENRICH_QUEUE,
  type EnrichJobData,
  type EnrichQueueData,
  isChunk,
  PRIORITY,
} from './enrich-queue.ts';
import { cappedExponentialBackoff, classifyFailure } from './failure.ts';
import { WorkerLoad } from './worker-load.ts';

/** `R`: one account's job's result; `C`: what a chunk keeps per account (default the same). */
export interface EnrichWorkerOptions<R, C = R> {
  connection: Redis;
  /** The queue the worker parks when an upstream rate-limits (same name and prefix). */
  queue: Queue<EnrichQueueData>;
  name?: string;
  prefix?: string;
  /** Accounts in flight at once, single jobs' and chunks' together. */
  concurrency: number;
  process: (data: EnrichJobData, job: Job<EnrichQueueData>) => Promise<R>;
  /** A backfill chunk: what runs once for it, and then for each of its accounts (enrich-chunk.ts). */
  prepareChunk?: (chunk: ChunkJobData, job: Job<EnrichQueueData>) => Promise<ChunkRunner<C>>;
  /** Called once a job has failed for good (to mark the account, for instance): per account of a chunk. */
  onFinalFailure?: (data: EnrichJobData, reason: string, jobId: string | undefined) => Promise<void>;
  log?: LogPort;
  /** Called when an upstream rate limit parks the queue (metrics). */
  onRateLimit?: (delayMs: number) => void;
  /**
   * One job per key at a time (e.g. per CRM account): a job that finds the key held waits, without
   * spending an attempt. Without it a creation job and a change job could write the same notes at once.
   */
  exclusive?: ExclusiveOptions;
  /**
   * The process's account slots and fetch weighing, when it runs another enrich worker beside this one
   * (the backfill queue's): WORKER_CONCURRENCY then counts both workers' accounts together.
   */
  load?: WorkerLoad;
  /**
   * How long, in seconds, an idle worker blocks before it polls again (WORKER_TIMING's by default).
   * Each poll is a few Redis commands; backfill's worker can wait longer after a pause than a person.
   */
  drainDelay?: number;
}

/** A job's result: one account's, or a chunk's (one entry per account). */
export type EnrichJobResult<R, C = R> = R | ChunkResult<C>;

/**
 * Recovery and wake-up timing shared by our workers. A worker that dies holds its jobs until their
 * lock (renewed every lockDuration/2 while alive) expires and a stalled check sees it: about 20 s
 * instead of BullMQ's 60. Prioritised jobs pushed back after a rate-limit pause do not wake a blocked
 * worker, so it polls again after drainDelay (seconds) instead of 5.
 */
export const WORKER_TIMING = {
  lockDuration: 15_000,
  stalledInterval: 5_000,
  drainDelay: 1,
  /**
   * BullMQ fails a job for good once it stalls more than this (its default, 1). A Redis outage or
   * failover longer than the lock stalls every active job at once, and two such in a job's life are
   * no reason to give up on it (issue 44: three backfill chunks failed for good this way). A job that
   * kills its worker each time still ends, after 5 recoveries (~2 min); chunks skip what they finished.
   */
  maxStalledCount: 5,
} as const;

/** The accounts a chunk job names (one for an account's job). */
export const accountsOf = (data: EnrichQueueData): EnrichJobData[] =>
  isChunk(data)
    ? data.accountIds.map((accountId) => ({
        crm: data.crm,
        tenant: data.tenant,
        accountId,
        trigger: data.trigger,
        ...(data.cause ? { cause: data.cause } : {}),
        ...(data.runId ? { runId: data.runId } : {}),
      }))
    : [data];

export function startEnrichWorker<R, C = R>(
  options: EnrichWorkerOptions<R, C>,
): Worker<EnrichQueueData, EnrichJobResult<R, R | C>> {
  const { queue, log } = options;
  const load = options.load ?? new WorkerLoad(options.concurrency);
  const chunkOptions = {
    queue,
    load,
    exclusive: options.exclusive,
    // Without a chunk step of its own, each account runs as its own job would.
    prepare:
      options.prepareChunk ??
      (async (_: ChunkJobData, job: Job<EnrichQueueData>): Promise<ChunkRunner<R | C>> => ({
        recorded: new Map(),
        starting: () => {},
        run: (data) => options.process(data, job),
      })),
    log,
    onRateLimit: options.onRateLimit,
    stopping: (): boolean => worker.closing !== undefined,
  };

  async function single(data: EnrichJobData, job: Job<EnrichQueueData>, token: string | undefined) {
    // A chunk's account that failed for good: its reason, at once, no upstream called again.
    if (data.failure) throw new UnrecoverableError(data.failure);
    await load.slots.take(1, job.opts.priority ?? PRIORITY[data.trigger]);
    const lock = options.exclusive;
    const owner = `job:${job.id}`;
    const keys = lock ? [lock.keyOf(data)] : [];
    try {
      if (lock && !(await takeLocks(lock.redis, keys, owner, lock.ttlMs))[0]) {
        await job.moveToDelayed(Date.now() + lock.retryDelayMs, token);
        throw new DelayedError();
      }
      try {
        // A person waits on it (a webhook, a refresh, a review): its provider calls go before a
        // backfill's waiting ones (src/shared/urgency.ts).
        const urgent = (job.opts.priority ?? PRIORITY[data.trigger]) < PRIORITY.backfill;
        return await (urgent ? runUrgent(() => options.process(data, job)) : options.process(data, job));
      } finally {
        if (lock) await releaseLocks(lock.redis, keys, owner);
      }
    } finally {
      load.slots.release(1);
    }
  }

  const worker = new Worker<EnrichQueueData, EnrichJobResult<R, R | C>>(
    options.name ?? ENRICH_QUEUE,
    async (current, token) => {
      load.held(current, worker);
      try {
        const { data } = current;
        if (isChunk(data)) return await runChunk(chunkOptions, current, data);
        return await single(data, current, token);
      } catch (err) {
        if (err instanceof DelayedError || err instanceof UnrecoverableError) throw err;
        const decision = classifyFailure(err);
        if (decision.action === 'rate-limit') {
          log?.warn('upstream rate limit: parking the queue', {
            jobId: current.id,
            delayMs: decision.delayMs,
          });
          options.onRateLimit?.(decision.delayMs);
          await queue.rateLimit(decision.delayMs);
          throw Worker.RateLimitError();
        }
        if (decision.action === 'defer') {
          log?.warn('CRM rate limit: this job waits', { jobId: current.id, delayMs: decision.delayMs });
          options.onRateLimit?.(decision.delayMs);
          await current.moveToDelayed(Date.now() + decision.delayMs, token);
          throw new DelayedError();
        }
        if (decision.action === 'fail') throw new UnrecoverableError(decision.reason);
        throw err;
      } finally {
        if (current.id) load.done(current.id);
      }
    },
    {
      connection: options.connection,
      ...(options.prefix ? { prefix: options.prefix } : {}),
      concurrency: options.concurrency,
      // Stored on each job it takes (`processedBy`): which machine and process holds or held a job.
      name: `${hostname()}:${process.pid}`,
      ...WORKER_TIMING,
      ...(options.drainDelay ? { drainDelay: options.drainDelay } : {}),
      settings: { backoffStrategy: (attemptsMade: number) => cappedExponentialBackoff(attemptsMade) },
    },
  );
  load.attach(worker);
  logConnectionErrors(worker, options.name ?? ENRICH_QUEUE, log);
  worker.on('stalled', (jobId) => log?.warn('job stalled; it will run again', { jobId }));
  worker.on('failed', (job, err) => {
    if (!job) return;
    const final = err instanceof UnrecoverableError || job.attemptsMade >= (job.opts.attempts ?? 1);
    log?.warn(final ? 'job failed for good' : 'job failed; will retry', {
      jobId: job.id,
      ...(job.data.runId ? { runId: job.data.runId } : {}),
      ...('requestId' in job.data && job.data.requestId ? { requestId: job.data.requestId } : {}),
      reason: err.message,
    });
    if (final && options.onFinalFailure) {
      const onFinalFailure = options.onFinalFailure;
      Promise.all(accountsOf(job.data).map((data) => onFinalFailure(data, err.message, job.id))).catch(
        (e: unknown) => {
          log?.warn('could not record the failure on the account', { jobId: job.id, reason: String(e) });
        },
      );
    }
  });
  return worker;
}
