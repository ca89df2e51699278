// The enrich queue: one job per CRM account to enrich. Job ids make re-deliveries and duplicate events
// harmless (BullMQ ignores an add whose id exists), priorities keep a person's click ahead of webhooks
// and webhooks ahead of backfill, and failed jobs stay in the failed set with their reason.
import { createHash } from 'node:crypto';
import { type JobsOptions, Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import type { AccountEvent, CrmKind } from '../connectors/types.ts';
import type { ReviewInstruction } from '../src/enrich/review-instruction.ts';

export const ENRICH_QUEUE = 'enrich';

/** BullMQ: a lower number runs first. A review decision (one or a bulk approve) waits behind a click. */
export const PRIORITY = { refresh: 1, review: 2, webhook: 5, cli: 5, backfill: 50 } as const;
export type EnrichTrigger = keyof typeof PRIORITY;

export interface EnrichJobData {
  crm: CrmKind;
  /** Portal id / org id. */
  tenant: string;
  accountId: string;
  trigger: EnrichTrigger;
  /** What caused it, for the operator: e.g. `company.creation event 123`. */
  cause?: string;
  /** The run it belongs to in the store (a webhook delivery, a backfill, a refresh, a re-enrichment…). */
  runId?: string;
  /** A person's review decision the job applies (see src/review/instruction.ts). */
  review?: ReviewInstruction;
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

export function createEnrichQueue(
  connection: Redis,
  options: { name?: string; prefix?: string } = {},
): Queue<EnrichJobData> {
  return new Queue<EnrichJobData>(options.name ?? ENRICH_QUEUE, {
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
