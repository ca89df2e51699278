// How far the workers are with one backfill run: its jobs that BullMQ has finished, by outcome.
// A run's jobs are told apart by their ids (backfill.ts). BullMQ keeps finished jobs in two sorted
// sets scored by when they finished, so each poll reads only what finished lately (the first one from
// the run's start on, so a resumed run counts what finished before it resumed) and the return value
// of this run's jobs not yet counted: cheap however large the queue's history is. Polling rather than
// QueueEvents because the events stream is trimmed (~10,000 events) and misses what finished while
// no one listened.
import type { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import type { CrmConnector } from '../../connectors/types.ts';
import type { EnrichQueueData } from '../../queues/enrich-queue.ts';
import { isJobOfRun } from './backfill.ts';

export type BackfillOutcome = 'enriched' | 'needs_review' | 'no_match' | 'failed';

export interface BackfillOutcomes {
  /** Every finished job of the run, including any whose result is no longer kept. */
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
  const outcomes = new Map<string, BackfillOutcome | null>();
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

  async function poll(): Promise<BackfillOutcomes> {
    // Failed first: a failed job retried by hand that then completed ends counted once, as completed.
    for (const id of await finishedSince('failed')) if (!outcomes.has(id)) outcomes.set(id, 'failed');
    const completed = (await finishedSince('completed')).filter((id) => {
      const known = outcomes.get(id);
      return known === undefined || known === 'failed';
    });
    for (let i = 0; i < completed.length; i += PAGE) {
      const batch = completed.slice(i, i + PAGE);
      const pipeline = redis.pipeline();
      for (const id of batch) pipeline.hget(queue.toKey(id), 'returnvalue');
      const replies = (await pipeline.exec()) ?? [];
      batch.forEach((id, j) => {
        outcomes.set(id, statusOf(replies[j]?.[1]));
      });
    }
    const counts: BackfillOutcomes = { finished: 0, enriched: 0, needs_review: 0, no_match: 0, failed: 0 };
    for (const outcome of outcomes.values()) {
      counts.finished++;
      if (outcome) counts[outcome]++;
    }
    return counts;
  }

  return { poll };
}

function statusOf(returnvalue: unknown): BackfillOutcome | null {
  if (typeof returnvalue !== 'string') return null;
  try {
    const status = (JSON.parse(returnvalue) as { status?: unknown }).status;
    return status === 'enriched' || status === 'needs_review' || status === 'no_match' ? status : null;
  } catch {
    return null;
  }
}
