// Scheduling the digests: a dedicated `digest` queue, one BullMQ job scheduler per digest kind with a
// fixed id (`digest:<kind>`), so every worker may upsert them (at start, and again whenever Redis lost
// them: schedule-keeper.ts) and there is still one of each, surviving restarts in Redis. A job's period comes from its *scheduled* time
// (the scheduler's `prevMillis`), so retries of one run share its period, window and dedupe keys.
// What a run does is handed in (the service wires src/digest's runDigest): the queue knows no digest.

import { type Job, Queue, UnrecoverableError, Worker } from 'bullmq';
import type { Redis } from 'ioredis';
import type { LogPort } from '../src/shared/log.ts';
import { logConnectionErrors } from './connection-errors.ts';
import { WORKER_TIMING } from './enrich-worker.ts';
import { cappedExponentialBackoff } from './failure.ts';
import type { DeclaredScheduler } from './schedule-keeper.ts';

export const DIGEST_QUEUE = 'digest';

/** A digest kind's scheduler: one fixed id per kind, so every worker may upsert it and one remains. */
export const digestSchedulerId = (kind: string): string => `digest:${kind}`;

export interface DigestJobData {
  kind: string;
  /** ISO time a manually added job stands for; scheduler jobs use their scheduled time. */
  scheduledAt?: string;
}

/** When a configured digest kind runs: a cron pattern in a time zone. */
export interface DigestSchedule {
  kind: string;
  pattern: string;
  tz?: string | undefined;
}

export function createDigestQueue(
  connection: Redis,
  options: { prefix?: string; name?: string } = {},
): Queue<DigestJobData> {
  return new Queue<DigestJobData>(options.name ?? DIGEST_QUEUE, {
    connection,
    ...(options.prefix ? { prefix: options.prefix } : {}),
  });
}

/**
 * Creates or updates the scheduler of each scheduled kind and removes the one of every other kind of
 * `kinds` (a digest no longer configured). Idempotent: any number of workers may call it at once.
 * Answers the schedulers it declared.
 */
export async function registerDigestSchedulers(
  queue: Queue<DigestJobData>,
  kinds: readonly string[],
  schedules: readonly DigestSchedule[],
): Promise<DeclaredScheduler[]> {
  const declared: DeclaredScheduler[] = [];
  for (const kind of kinds) {
    const id = digestSchedulerId(kind);
    const s = schedules.find((x) => x.kind === kind);
    if (!s) {
      await queue.removeJobScheduler(id);
      continue;
    }
    await queue.upsertJobScheduler(
      id,
      { pattern: s.pattern, ...(s.tz ? { tz: s.tz } : {}) },
      {
        name: kind,
        data: { kind },
        opts: {
          attempts: 5,
          backoff: { type: 'capped-exponential' },
          removeOnComplete: 100,
          removeOnFail: 1000,
        },
      },
    );
    declared.push({ queue, id });
  }
  return declared;
}

/** The time the job's run was scheduled for: the scheduler's slot, else the job's own data or creation. */
export function scheduledTimeOf(job: Pick<Job<DigestJobData>, 'opts' | 'id' | 'data' | 'timestamp'>): Date {
  const prev = job.opts.prevMillis;
  if (typeof prev === 'number' && prev > 0) return new Date(prev);
  const fromId = /^repeat:.*:(\d{10,})$/.exec(job.id ?? '')?.[1];
  if (fromId) return new Date(Number(fromId));
  if (job.data.scheduledAt) {
    const at = new Date(job.data.scheduledAt);
    if (!Number.isNaN(at.getTime())) return at;
  }
  return new Date(job.timestamp);
}

/** What the digest queue's worker is handed: which kinds this worker runs, and how to run one. */
export interface DigestProcessor<R> {
  /** The kinds configured on this worker; a job of another fails for good. */
  configured: (kind: string) => boolean;
  run: (kind: string, scheduledAt: Date) => Promise<R>;
}

/** The processor of the digest queue: the job's kind at its scheduled time. */
export async function processDigestJob<R>(
  processor: DigestProcessor<R>,
  job: Pick<Job<DigestJobData>, 'opts' | 'id' | 'data' | 'timestamp' | 'name'>,
): Promise<R> {
  const kind = job.data?.kind ?? job.name;
  if (typeof kind !== 'string' || !processor.configured(kind))
    throw new UnrecoverableError(`the ${String(kind)} digest is not configured on this worker`);
  return processor.run(kind, scheduledTimeOf(job));
}

/** A worker for the digest queue: one run at a time, retries with capped exponential backoff. */
export function startDigestWorker<R>(options: {
  connection: Redis;
  processor: DigestProcessor<R>;
  prefix?: string;
  name?: string;
  log?: Pick<LogPort, 'warn'> | undefined;
}): Worker<DigestJobData, R> {
  const worker = new Worker<DigestJobData, R>(
    options.name ?? DIGEST_QUEUE,
    (job) => processDigestJob(options.processor, job),
    {
      connection: options.connection,
      ...(options.prefix ? { prefix: options.prefix } : {}),
      concurrency: 1,
      ...WORKER_TIMING,
      // A per-account run over many accounts can be long: renew the job lock well within it.
      lockDuration: 60_000,
      settings: { backoffStrategy: (attemptsMade: number) => cappedExponentialBackoff(attemptsMade) },
    },
  );
  worker.on('failed', (job, err) =>
    options.log?.warn('digest job failed', { jobId: job?.id, name: job?.name, reason: err.message }),
  );
  logConnectionErrors(worker, 'digest', options.log);
  return worker;
}
