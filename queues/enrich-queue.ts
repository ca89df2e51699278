// The enrich queue: one job per CRM account to enrich, or, for a backfill, one job per chunk of accounts
// (BullMQ's lifecycle paid once per chunk; queues/enrich-chunk.ts). Job ids make re-deliveries and
// duplicate events harmless (BullMQ ignores an add whose id exists), priorities keep a person's click
// ahead of webhooks and webhooks ahead of backfill, and failed jobs stay in the failed set with their reason.
import { createHash } from 'node:crypto';
import { type JobsOptions, Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import type { AccountEvent, AccountRef, CrmKind } from '../connectors/types.ts';
import type { ReviewInstruction } from './review-instruction.ts';

export const ENRICH_QUEUE = 'enrich';
/**
 * A backfill's jobs (its chunks and the accounts they hand off) have a queue of their own, same data and
 * ids: a worker full of chunks looks for a new job only when one of them ends, so a webhook queued
 * behind them would wait tens of seconds (worker-load.ts). The enrich queue keeps everything a person
 * or a CRM event asks for; each worker process runs one worker on each, sharing its account slots.
 */
export const BACKFILL_QUEUE = 'enrich-backfill';

/**
 * BullMQ: a lower number runs first. A review decision (one or a bulk approve) waits behind a click; a
 * scheduled re-enrichment runs with backfill, and is recorded as what it is.
 */
export const PRIORITY = { refresh: 1, review: 2, webhook: 5, cli: 5, backfill: 50, reenrich: 50 } as const;
export type EnrichTrigger = keyof typeof PRIORITY;

export interface EnrichJobData extends AccountRef {
  trigger: EnrichTrigger;
  /** What caused it, for the operator: e.g. `company.creation event 123`. */
  cause?: string;
  /** The run it belongs to in the store (a webhook delivery, a backfill, a refresh, a re-enrichment…). */
  runId?: string;
  /** The HTTP request that queued it (X-Request-Id), carried into the worker's log lines of the job. */
  requestId?: string;
  /** A person's review decision the job applies (review-instruction.ts). */
  review?: ReviewInstruction;
  /**
   * Handed off by a chunk whose enrichment of this account failed for good: the job fails at once with
   * this reason, without calling the upstreams again, so the account shows in the failed set as its own.
   */
  failure?: string;
}

/** A backfill's chunk: up to BACKFILL_ACCOUNTS_PER_JOB accounts of one tenant, enriched together. */
export interface ChunkJobData {
  crm: CrmKind;
  tenant: string;
  accountIds: string[];
  /** A chunk names no one account (readers of `accountId` get undefined, never another's id). */
  accountId?: undefined;
  trigger: 'backfill';
  cause?: string;
  runId?: string;
  /** The backfill's own run id: an account handed off becomes its single job of that run. */
  run: string;
}

/** Every job of the enrich queue: one account's, or a chunk's. */
export type EnrichQueueData = EnrichJobData | ChunkJobData;

export const isChunk = (data: EnrichQueueData): data is ChunkJobData => 'accountIds' in data;

/** One account's job of a run: the same run queues the same id (a re-queued page is a no-op). */
export function runJobIdOf(
  crm: string,
  tenant: string,
  accountId: string,
  trigger: EnrichTrigger,
  run: string | number,
): string {
  return jobIdOf(crm, tenant, accountId, trigger, run);
}

/**
 * A chunk's job id: its run and its accounts (in any order), so a page queued again after a kill is the
 * same job. Six parts where an account's job has five: the two never collide.
 */
export function chunkJobIdOf(crm: string, tenant: string, accountIds: readonly string[], run: string) {
  const accounts = createHash('sha256')
    .update(JSON.stringify([...accountIds].sort()))
    .digest('hex')
    .slice(0, 24);
  return jobIdOf(crm, tenant, 'chunk', accounts, 'backfill', run);
}

/** HubSpot re-delivers for 24 h: keep completed job ids a little longer so a re-delivery stays a no-op. */
const KEEP_COMPLETED_SECONDS = 25 * 3600;

export function enrichJobOptions(trigger: EnrichTrigger, attempts: number, jobId: string): JobsOptions {
  return {
    jobId,
    priority: PRIORITY[trigger],
    attempts,
    backoff: { type: 'capped-exponential' },
    removeOnComplete: { age: KEEP_COMPLETED_SECONDS, count: 100_000 },
    removeOnFail: false,
  };
}

const LONGEST_PART = 128;

/**
 * One part of a job id, escaped injectively: letters, digits, `_` and `-` stay, every other byte of its
 * UTF-8 becomes `~HH` (so `.` and `~` never appear unescaped and `a:b` and `a_b` stay two ids). `~` is
 * not decoded in a URL path, so the id reads back unchanged from /api/jobs/<id>. A part longer than
 * LONGEST_PART escaped is its sha256 instead (`~~` + hex; `~~` cannot come out of the escaping).
 */
function jobIdPart(part: string | number): string {
  const text = String(part);
  const escaped = text.replace(/[^A-Za-z0-9_-]/gu, (c) =>
    [...Buffer.from(c, 'utf8')].map((b) => `~${b.toString(16).toUpperCase().padStart(2, '0')}`).join(''),
  );
  if (escaped.length <= LONGEST_PART) return escaped;
  return `~~${createHash('sha256').update(text).digest('hex')}`;
}

/**
 * A BullMQ job id from its parts (no ':' and not all digits): two different lists of parts never give
 * one id, so no source id can be crafted to take another's job.
 */
export function jobIdOf(...parts: (string | number)[]): string {
  return parts.map(jobIdPart).join('.');
}

/** A backfill's job id (a chunk's or an account's of the run: `….backfill.<run>`), which lives on BACKFILL_QUEUE. */
export const isBackfillJobId = (jobId: string): boolean => jobId.split('.').at(-2) === 'backfill';

export function createEnrichQueue(
  connection: Redis,
  options: { name?: string; prefix?: string } = {},
): Queue<EnrichQueueData> {
  return new Queue<EnrichQueueData>(options.name ?? ENRICH_QUEUE, {
    connection,
    ...(options.prefix ? { prefix: options.prefix } : {}),
  });
}

export interface EnrichJob {
  name: 'enrich';
  data: EnrichJobData;
  opts: JobsOptions;
}

/**
 * The job a CRM's account event asks for; its id makes the event's re-deliveries the same job. With a
 * window, BullMQ's deduplication (throttle: a key with that ttl) keeps every other inbound event of the
 * account within it from becoming a job, whatever its event or notification id.
 */
export function jobForEvent(event: AccountEvent, attempts: number, accountWindowMs = 0): EnrichJob {
  const opts = enrichJobOptions('webhook', attempts, jobIdOf(event.crm, event.tenant, ...event.dedupeParts));
  if (accountWindowMs > 0)
    opts.deduplication = {
      id: jobIdOf(event.crm, event.tenant, event.accountId, 'inbound'),
      ttl: accountWindowMs,
    };
  return {
    name: 'enrich',
    data: {
      crm: event.crm,
      tenant: event.tenant,
      accountId: event.accountId,
      trigger: 'webhook',
      cause: event.cause,
    },
    opts,
  };
}

/** What a producer says of the enrich job it asks for, beyond the account and the trigger. */
export interface EnrichRequest {
  /**
   * Names the job with the account and the trigger: the run that queues it, so the same run queues the
   * same job (a retried sweep, a page queued again, a decision asked twice), or a click's time.
   */
  key: string | number;
  attempts: number;
  /** The run in the store that every outcome of the job names. */
  runId?: string | undefined;
  /** The HTTP request that asked for it (X-Request-Id), for the job's log lines. */
  requestId?: string | undefined;
  cause?: string | undefined;
  review?: ReviewInstruction | undefined;
}

/**
 * The one way an account's enrich job is made: its id from the account, the trigger and the request's
 * key; its priority and retention from the trigger. Every producer (webhooks aside: jobForEvent) goes
 * through it.
 */
export function enrichJob(ref: AccountRef, trigger: EnrichTrigger, request: EnrichRequest): EnrichJob {
  const { key, attempts, runId, requestId, cause, review } = request;
  return {
    name: 'enrich',
    data: {
      crm: ref.crm,
      tenant: ref.tenant,
      accountId: ref.accountId,
      trigger,
      ...(cause !== undefined ? { cause } : {}),
      ...(runId !== undefined ? { runId } : {}),
      ...(requestId !== undefined ? { requestId } : {}),
      ...(review ? { review } : {}),
    },
    opts: enrichJobOptions(trigger, attempts, runJobIdOf(ref.crm, ref.tenant, ref.accountId, trigger, key)),
  };
}

/** BullMQ's addBulk is one round trip; pages keep one call's payload bounded. */
const BULK_PAGE = 500;

/** Queues one job per account (`review` per account, the rest shared); returns their ids in order. */
export async function enqueueEnrich(
  queue: Queue<EnrichQueueData>,
  accounts: readonly (AccountRef & { review?: ReviewInstruction | undefined })[],
  trigger: EnrichTrigger,
  request: Omit<EnrichRequest, 'review'>,
): Promise<string[]> {
  const jobs = accounts.map(({ review, ...ref }) => enrichJob(ref, trigger, { ...request, review }));
  for (let i = 0; i < jobs.length; i += BULK_PAGE) await queue.addBulk(jobs.slice(i, i + BULK_PAGE));
  return jobs.map((j) => j.opts.jobId ?? '');
}
