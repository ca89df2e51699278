// How fast a run's accounts finish now: accounts per second over the last minute of readings, not since
// the start, so the ETA follows what the run does now (a worker added, the provider throttling us, the
// queue parked behind webhook jobs) instead of its average since the first page. And when the count
// last moved, which is what `backfill --wait --timeout` measures: a run that keeps moving is alive
// however long it takes.

/** The recent past the pace is taken over. */
export const PACE_WINDOW_MS = 60_000;

interface Reading {
  at: number;
  count: number;
}

export class RecentPace {
  readonly #windowMs: number;
  #readings: Reading[] = [];
  #movedAt: number | undefined;

  constructor(windowMs = PACE_WINDOW_MS) {
    this.#windowMs = windowMs;
  }

  /** The count as read at `at` (ms since the epoch); readings come in time order. */
  add(count: number, at: number): void {
    const last = this.#readings.at(-1);
    if (last === undefined || count > last.count) this.#movedAt = at;
    this.#readings.push({ at, count });
    // The oldest reading kept is the last one at or before the window's start, so the window is spanned
    // whole (a minute of readings every second is 60 of them).
    while ((this.#readings[1]?.at ?? at) <= at - this.#windowMs) this.#readings.shift();
  }

  /** Accounts per second across the window; undefined before two readings apart in time. */
  perSecond(): number | undefined {
    const first = this.#readings[0];
    const last = this.#readings.at(-1);
    if (!first || !last || last.at <= first.at) return undefined;
    return ((last.count - first.count) * 1000) / (last.at - first.at);
  }

  /** Seconds until `remaining` more accounts finish at the recent pace; undefined while none finish. */
  etaSeconds(remaining: number): number | undefined {
    if (remaining <= 0) return 0;
    const rate = this.perSecond();
    return rate !== undefined && rate > 0 ? remaining / rate : undefined;
  }

  /** When the count last went up (the first reading counts as a move); undefined before any reading. */
  get movedAt(): number | undefined {
    return this.#movedAt;
  }
}
