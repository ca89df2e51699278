// What `backfill` shows while it runs and waits: the accounts queued as pages are queued, the run's
// accounts finished (backfill/run-progress.ts) every second, the ETA at their recent pace
// (backfill/pace.ts), the provider's throttling and the CRM's daily pause; and `--wait`, which follows
// until every account finished or until none finished for `--timeout` seconds.
import { setTimeout as delay } from 'node:timers/promises';
import type { BackfillState } from '../backfill/backfill.ts';
import { describePause } from '../backfill/daily-headroom.ts';
import type { BackfillOutcomes } from '../backfill/outcomes.ts';
import { RecentPace } from '../backfill/pace.ts';
import { describeThrottle, type RunProgressOptions, runProgressReader } from '../backfill/run-progress.ts';
import { backfillProgress } from './progress.ts';

const POLL_MS = 1_000;

export type FollowOptions = Omit<RunProgressOptions, 'run'> & {
  /** The accounts the run is expected to queue (the estimate), the bar's total until all are queued. */
  estimate: number;
};

/** How a `--wait` ended. */
export type WaitEnd = 'finished' | 'stalled' | 'interrupted';

export function followBackfill(options: FollowOptions, resumed: BackfillState | null) {
  const progress = backfillProgress();
  const pace = new RecentPace();
  let latest = resumed;
  let outcomes: BackfillOutcomes = { finished: 0, enriched: 0, needs_review: 0, no_match: 0, failed: 0 };
  let reader: ReturnType<typeof runProgressReader> | undefined;
  let throttled: string | undefined;
  let paused: string | undefined;
  const target = () =>
    !latest ? options.estimate : latest.done ? latest.enqueued : Math.max(options.estimate, latest.enqueued);
  const show = () => {
    if (!latest) return;
    progress.update({
      target: target(),
      queued: latest.enqueued,
      outcomes,
      perSecond: pace.perSecond(),
      etaSeconds: pace.etaSeconds(target() - outcomes.finished),
      throttled,
      paused,
    });
  };
  const poll = async () => {
    const run = latest;
    if (!run?.storeRunId) return;
    const { runId, startedAt, storeRunId } = run;
    reader ??= runProgressReader({ ...options, run: { runId, startedAt, storeRunId } });
    const read = await reader.read();
    outcomes = read.outcomes;
    pace.add(outcomes.finished, Date.now());
    throttled = read.throttledTo === undefined ? undefined : describeThrottle(read.throttledTo);
    paused = read.paused ? describePause(read.paused) : undefined;
    show();
  };
  // While queueing, a poll that fails is skipped: queueing uses the same Redis and reports the error.
  let polling: Promise<void> = Promise.resolve();
  const timer = setInterval(() => {
    polling = polling.then(poll).catch(() => undefined);
  }, POLL_MS);
  /** Ends the background polls and takes one more, whose errors do reach the user. */
  const refresh = async () => {
    clearInterval(timer);
    await polling;
    await poll();
  };
  show();
  return {
    queued(state: BackfillState) {
      latest = state;
      show();
    },
    refresh,
    /**
     * Follows until every queued account finished, the signal aborts, or no account finished for
     * `stallMs` — counted from the last one that did, and at the earliest from now (every account is
     * queued by then: listing a large CRM is no stall of the workers).
     */
    async untilFinished(signal: AbortSignal, stallMs: number): Promise<WaitEnd> {
      const since = Date.now();
      await refresh();
      for (;;) {
        if (signal.aborted) return 'interrupted';
        if (outcomes.finished >= (latest?.enqueued ?? 0)) return 'finished';
        const left = Math.max(pace.movedAt ?? since, since) + stallMs - Date.now();
        if (left <= 0) return 'stalled';
        await delay(Math.min(POLL_MS, left), undefined, { signal }).catch(() => undefined);
        await poll();
      }
    },
    outcomes: () => outcomes,
    /** What holds the run back now, for the line a stalled `--wait` ends with. */
    heldBy: () => [throttled, paused && `paused: ${paused}`].filter(Boolean).join('; '),
    stop() {
      clearInterval(timer);
      progress.stop();
    },
  };
}
