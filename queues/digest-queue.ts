// Scheduling the digests: a dedicated `digest` queue, one BullMQ job scheduler per digest kind with a
// fixed id (`digest:per-account`, `digest:org-wide`, `digest:per-owner`), so every worker may upsert them at start and there
// is still one of each, surviving restarts in Redis. A job's period comes from its *scheduled* time
// (the scheduler's `prevMillis`), so retries of one run share its period, window and dedupe keys.
// What a run does is src/digest (runDigest).

import { type Job, Queue, UnrecoverableError, Worker } from 'bullmq';
import type { Redis } from 'ioredis';
import { DIGEST_KINDS, type DigestDeps, type DigestKind, type DigestRunResult } from '../src/digest/deps.ts';
import { digestSettingsOf, runDigest } from '../src/digest/run.ts';
import type { DigestSettings } from '../src/digest/settings.ts';
import { WORKER_TIMING } from './enrich-worker.ts';
import { cappedExponentialBackoff } from './failure.ts';

export const DIGEST_QUEUE = 'digest';
export const DIGEST_SCHEDULER_IDS: Readonly<Record<DigestKind, string>> = {
  'per-account': 'digest:per-account',
  'org-wide': 'digest:org-wide',
  'per-owner': 'digest:per-owner',
};

export interface DigestJobData {
  kind: DigestKind;
  /** ISO time a manually added job stands for; scheduler jobs use their scheduled time. */
  scheduledAt?: string;
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
 * Creates or updates the scheduler of each configured digest and removes the one of a digest no longer
 * configured. Idempotent: any number of workers may call it at start.
 */
export async function registerDigestSchedulers(
  queue: Queue<DigestJobData>,
  settings: DigestSettings,
): Promise<void> {
  for (const kind of DIGEST_KINDS) {
    const id = DIGEST_SCHEDULER_IDS[kind];
    const s = digestSettingsOf(settings, kind);
    if (!s) {
      await queue.removeJobScheduler(id);
      continue;
    }
    await queue.upsertJobScheduler(
      id,
      { pattern: s.pattern, tz: s.tz },
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
  }
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

function kindOf(job: Pick<Job<DigestJobData>, 'data' | 'name'>): DigestKind {
  const kind = job.data?.kind ?? job.name;
  if ((DIGEST_KINDS as readonly unknown[]).includes(kind)) return kind as DigestKind;
  throw new UnrecoverableError(`unknown digest kind "${String(kind)}"`);
}

/** The processor of the digest queue. */
export async function processDigestJob(
  deps: DigestDeps,
  job: Pick<Job<DigestJobData>, 'opts' | 'id' | 'data' | 'timestamp' | 'name'>,
): Promise<DigestRunResult> {
  const kind = kindOf(job);
  if (!digestSettingsOf(deps.settings, kind))
    throw new UnrecoverableError(`the ${kind} digest is not configured on this worker`);
  return runDigest(deps, kind, scheduledTimeOf(job));
}

/** A worker for the digest queue: one run at a time, retries with capped exponential backoff. */
export function startDigestWorker(options: {
  connection: Redis;
  deps: DigestDeps;
  prefix?: string;
  name?: string;
}): Worker<DigestJobData, DigestRunResult> {
  const worker = new Worker<DigestJobData, DigestRunResult>(
    options.name ?? DIGEST_QUEUE,
    (job) => processDigestJob(options.deps, job),
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
    options.deps.log?.warn('digest job failed', { jobId: job?.id, name: job?.name, reason: err.message }),
  );
  return worker;
}
