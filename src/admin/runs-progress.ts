// How far a run is, as the runs list, the run page and its polling script read it. "finished" means its
// work is done — every queued account has an outcome — not that queueing ended (runs.finished_at is set
// when a backfill has queued its last page, while its accounts are still being worked: issue 42).
import type { Run } from '../store/runs.ts';
import type { OutcomeStatus } from '../store/schema.ts';

export type RunState = 'running' | 'finished' | 'failed';

export interface RunProgressJson {
  id: string;
  state: RunState;
  /** Accounts the run queued (null when the run does not say). */
  total: number | null;
  done: number;
  enriched: number;
  needsReview: number;
  noMatch: number;
  failed: number;
  /** Accounts per minute since the run started, while it runs. */
  perMinute: number | null;
  /** Seconds left at that rate, while it runs and the total is known. */
  etaSeconds: number | null;
  /** The provider holds every worker below the configured rate (its 429s: shared-rate.ts). */
  throttled: boolean;
  ratePerSecond: number | null;
}

/** What the run says it queued: a backfill's `queued`, else `accounts` or `total` when a run records one. */
export function runTotal(run: Pick<Run, 'counts'>): number | null {
  for (const key of ['queued', 'accounts', 'total']) {
    const n = run.counts[key];
    if (typeof n === 'number' && Number.isFinite(n)) return n;
  }
  return null;
}

export function runProgress(
  run: Pick<Run, 'id' | 'counts' | 'startedAt' | 'finishedAt'>,
  outcomes: Record<OutcomeStatus, number>,
  rate: { ratePerSecond: number; throttled: boolean } | null,
  now = Date.now(),
): RunProgressJson {
  const done = outcomes.enriched + outcomes.needs_review + outcomes.no_match + outcomes.error;
  const total = runTotal(run);
  const workLeft = total !== null && done < total;
  // A run that records no total (a refresh, a confirm: one account) is done once it has an outcome.
  const queueing = run.finishedAt === null && (total !== null || done === 0);
  const state: RunState =
    queueing || workLeft ? 'running' : outcomes.error > 0 && outcomes.error === done ? 'failed' : 'finished';
  const minutes = Math.max(1 / 60, (now - run.startedAt.getTime()) / 60_000);
  const perMinute = state === 'running' ? Math.round((done / minutes) * 10) / 10 : null;
  const etaSeconds =
    state === 'running' && total !== null && perMinute ? Math.round(((total - done) / perMinute) * 60) : null;
  return {
    id: run.id,
    state,
    total,
    done,
    enriched: outcomes.enriched,
    needsReview: outcomes.needs_review,
    noMatch: outcomes.no_match,
    failed: outcomes.error,
    perMinute,
    etaSeconds,
    // Only a running run is held back by the provider; a finished one is not waiting on anything.
    throttled: state === 'running' && (rate?.throttled ?? false),
    ratePerSecond: rate?.ratePerSecond ?? null,
  };
}

/** "about 3 min": an ETA as a person reads it. */
export function etaWords(seconds: number | null): string {
  if (seconds === null) return '';
  if (seconds < 60) return 'under a minute';
  if (seconds < 3600) return `about ${Math.round(seconds / 60)} min`;
  return `about ${Math.round((seconds / 3600) * 10) / 10} h`;
}
