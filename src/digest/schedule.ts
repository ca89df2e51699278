// Scheduling the digests: a dedicated `digest` queue, one BullMQ job scheduler per digest kind with a
// fixed id (`digest:per-account`, `digest:org-wide`), so every worker may upsert them at start and there
// is still one of each, surviving restarts in Redis. A job's period comes from its *scheduled* time
// (the scheduler's `prevMillis`), so retries of one run share its period, window and dedupe keys.

import { type Job, Queue, UnrecoverableError, Worker } from 'bullmq';
import type { Redis } from 'ioredis';
import { WORKER_TIMING } from '../../queues/enrich-worker.ts';
import { cappedExponentialBackoff } from '../../queues/failure.ts';
import { type DigestDeps, type DigestKind, type DigestRunResult, withDigestLock } from './deps.ts';
import { runOrgWideDigest } from './org-wide.ts';
import { runPerAccountDigest } from './per-account.ts';
import type { DigestSettings } from './settings.ts';

export type { DigestDeps, DigestKind, DigestLog, DigestRunResult } from './deps.ts';
export { DigestBusyError, DigestIncompleteError } from './deps.ts';
export {
  type DigestSettings,
  type DigestSettingsInput,
  digestSettingsFromEnv,
  digestSettingsSchema,
  parseDigestSettings,
} from './settings.ts';

export const DIGEST_QUEUE = 'digest';
export const DIGEST_KINDS: readonly DigestKind[] = ['per-account', 'org-wide'];
export const DIGEST_SCHEDULER_IDS: Readonly<Record<DigestKind, string>> = {
  'per-account': 'digest:per-account',
  'org-wide': 'digest:org-wide',
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

const settingsOf = (settings: DigestSettings, kind: DigestKind) =>
  kind === 'per-account' ? settings.perAccount : settings.orgWide;

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
    const s = settingsOf(settings, kind);
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
  if (kind === 'per-account' || kind === 'org-wide') return kind;
  throw new UnrecoverableError(`unknown digest kind "${String(kind)}"`);
}

export function runDigest(deps: DigestDeps, kind: DigestKind, scheduledAt: Date): Promise<DigestRunResult> {
  return withDigestLock(deps, kind, () =>
    kind === 'per-account' ? runPerAccountDigest(deps, scheduledAt) : runOrgWideDigest(deps, scheduledAt),
  );
}

/** The processor of the digest queue. */
export async function processDigestJob(
  deps: DigestDeps,
  job: Pick<Job<DigestJobData>, 'opts' | 'id' | 'data' | 'timestamp' | 'name'>,
): Promise<DigestRunResult> {
  const kind = kindOf(job);
  if (!settingsOf(deps.settings, kind))
    throw new UnrecoverableError(`the ${kind} digest is not configured on this worker`);
  return runDigest(deps, kind, scheduledTimeOf(job));
}

/**
 * One run now, in this process (`buyer-intel-sync digest --now`). Its period is the one holding now, so
 * it writes nothing for an account whose digest of this period is already on the CRM.
 */
export function runDigestNow(deps: DigestDeps, kind: DigestKind): Promise<DigestRunResult> {
  if (!settingsOf(deps.settings, kind)) throw new Error(`the ${kind} digest is not configured`);
  return runDigest(deps, kind, (deps.now ?? (() => new Date()))());
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
