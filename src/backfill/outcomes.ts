// How far the workers are with one backfill run by its finished jobs: its accounts whose job BullMQ has
// finished, by outcome (what run-progress.ts counts when the store tells less).
// A run's jobs — chunks and single accounts — are told apart by their ids (backfill.ts); a chunk's
// accounts count one by one from its return value, an account it handed off when its own job ends. BullMQ keeps finished jobs in two sorted
// sets scored by when they finished, so each poll reads only what finished lately (the first one from
// the run's start on, so a resumed run counts what finished before it resumed) and the return value
// of this run's jobs not yet counted: cheap however large the queue's history is. Polling rather than
// QueueEvents because the events stream is trimmed (~10,000 events) and misses what finished while
// no one listened.
import type { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import type { CrmConnector } from '../../connectors/types.ts';
import { isChunkResult } from '../../queues/chunk-result.ts';
import type { EnrichQueueData } from '../../queues/enrich-queue.ts';
import { isJobOfRun } from './backfill.ts';

export type BackfillOutcome = 'enriched' | 'needs_review' | 'no_match' | 'failed';

export interface BackfillOutcomes {
  /** Every finished account of the run, including any whose result is no longer kept. */
  finished: number;
  enriched: number;
  needs_review: number;
  no_match: number;
  failed: number;
}

/** Workers stamp jobs with their own clock: read from a little before the run started. */
const CLOCK_SKEW_MS = 10 * 60_000;
/**
 * A job's score is the finishing worker's clock when it asked, not when Redis added it, so a job can
 * land behind ones already read: each poll reads again this far back (already counted ids are skipped).
 */
const LATE_MS = 30_000;
const PAGE = 1_000;

export function trackBackfillOutcomes(options: {
  queue: Queue<EnrichQueueData>;
  redis: Redis;
  connector: Pick<CrmConnector, 'kind' | 'tenant'>;
  runId: string;
  startedAt: string;
}): { poll(): Promise<BackfillOutcomes> } {
  const { queue, redis } = options;
  const ofRun = isJobOfRun(options.connector, options.runId);
  /** By account: a chunk's accounts count one by one, an account handed off by its own job's end. */
  const outcomes = new Map<string, BackfillOutcome | null>();
  /** Job ids already read (each poll reads a little back in time). */
  const seen = new Set<string>();
  const done = new Set<string>();
  const since = Date.parse(options.startedAt) - CLOCK_SKEW_MS;
  const from = { failed: since, completed: since };

  /** This run's ids finished at or after `from[set]`; moves `from[set]` on. */
  async function finishedSince(set: 'completed' | 'failed'): Promise<string[]> {
    const ids: string[] = [];
    let latest = from[set];
    for (let offset = 0; ; offset += PAGE) {
      const page = await redis.zrangebyscore(
        queue.toKey(set),
        from[set],
        '+inf',
        'WITHSCORES',
        'LIMIT',
        offset,
        PAGE,
      );
      for (let i = 0; i < page.length; i += 2) {
        const id = page[i] ?? '';
        latest = Math.max(latest, Number(page[i + 1]));
        if (ofRun(id)) ids.push(id);
      }
      if (page.length < PAGE * 2) break;
    }
    from[set] = Math.max(from[set], latest - LATE_MS);
    return ids;
  }

  /** The accounts a finished job holds, each with its outcome (null: its result is no longer kept). */
  async function read(ids: string[], failed: boolean): Promise<[string, BackfillOutcome | null][]> {
    const found: [string, BackfillOutcome | null][] = [];
    for (let i = 0; i < ids.length; i += PAGE) {
      const pipeline = redis.pipeline();
      const page = ids.slice(i, i + PAGE);
      for (const id of page) pipeline.hmget(queue.toKey(id), 'data', 'returnvalue');
      for (const [j, [err, reply]] of ((await pipeline.exec()) ?? []).entries()) {
        if (err) throw err;
        const [data, returned] = (reply ?? []) as (string | null)[];
        // A job whose data is no longer kept still finished: it counts under its id.
        const job = (parse(data) as JobData | null) ?? { accountId: `job ${page[j]}` };
        found.push(...(failed ? failedAccounts(job) : completedAccounts(job, returned)));
      }
    }
    return found;
  }

  async function poll(): Promise<BackfillOutcomes> {
    // Failed first: a failed job retried by hand that then completed ends counted once, as completed.
    const failed = (await finishedSince('failed')).filter((id) => !seen.has(id));
    for (const [account, outcome] of await read(failed, true))
      if (!outcomes.has(account)) outcomes.set(account, outcome);
    for (const id of failed) seen.add(id);
    const completed = (await finishedSince('completed')).filter((id) => !done.has(id));
    for (const [account, outcome] of await read(completed, false)) outcomes.set(account, outcome);
    for (const id of completed) done.add(id);
    const counts: BackfillOutcomes = { finished: 0, enriched: 0, needs_review: 0, no_match: 0, failed: 0 };
    for (const outcome of outcomes.values()) {
      counts.finished++;
      if (outcome) counts[outcome]++;
    }
    return counts;
  }

  return { poll };
}

/** What the tracker reads of a job's data: a chunk's accounts, or its account. */
type JobData = { accountId?: string | undefined; accountIds?: string[] | undefined };

function parse(json: string | null | undefined): unknown {
  if (typeof json !== 'string') return null;
  try {
    return JSON.parse(json) as unknown;
  } catch {
    return null;
  }
}

function outcomeOf(status: unknown): BackfillOutcome | null {
  return status === 'enriched' || status === 'needs_review' || status === 'no_match' ? status : null;
}

/** Every account of a job that failed for good (a chunk fails whole only before its accounts ran). */
function failedAccounts(job: JobData): [string, BackfillOutcome][] {
  return job.accountIds ? job.accountIds.map((a) => [a, 'failed']) : [[String(job.accountId), 'failed']];
}

/** A completed job's accounts: its own, or those its chunk finished (not those it handed off). */
function completedAccounts(
  job: JobData,
  returned: string | null | undefined,
): [string, BackfillOutcome | null][] {
  const value = parse(returned);
  if (!job.accountIds)
    return [[String(job.accountId), outcomeOf((value as { status?: unknown } | null)?.status)]];
  if (!isChunkResult(value)) return job.accountIds.map((a) => [a, null]);
  return value.accounts.flatMap((a): [string, BackfillOutcome | null][] => {
    if ('result' in a) return [[a.accountId, outcomeOf((a.result as { status?: unknown } | null)?.status)]];
    if ('recorded' in a) return [[a.accountId, outcomeOf(a.recorded)]];
    return [];
  });
}
