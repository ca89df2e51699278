// The enrich queue: one job per CRM account to enrich. Job ids make re-deliveries and duplicate events
// harmless (BullMQ ignores an add whose id exists), priorities keep a person's click ahead of webhooks
// and webhooks ahead of backfill, and failed jobs stay in the failed set with their reason.
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

/** A BullMQ job id: no ':' and not all digits. */
export function jobIdOf(...parts: (string | number)[]): string {
  return parts.map((p) => String(p).replace(/[^A-Za-z0-9_.-]/g, '_')).join('.');
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

/** The job a CRM's account event asks for; its id makes the event's re-deliveries the same job. */
export function jobForEvent(event: AccountEvent, attempts: number): EnrichJob {
  return {
    name: 'enrich',
    data: {
      crm: event.crm,
      tenant: event.tenant,
      accountId: event.accountId,
      trigger: 'webhook',
      cause: event.cause,
    },
    opts: enrichJobOptions('webhook', attempts, jobIdOf(event.crm, event.tenant, ...event.dedupeParts)),
  };
}
