// Listing a CRM's accounts for a backfill (and its estimate) through a rate-limit storm: a failure that
// may succeed later (a 429, a 5xx, a network error: `permanent: false`) is waited out — the CRM's
// Retry-After when it sent one, else the project's backoff — and the same page is asked again, as
// long as the waits of this page stay within the budget (`maxWaitMs`). A permanent failure, or a
// longer wait than the budget allows (a daily limit), ends the listing at once with that failure.
import { setTimeout as sleep } from 'node:timers/promises';
import { type BackoffPolicy, backoffDelay } from '../shared/backoff.ts';

export interface ListingPatience {
  /** The most a single page may wait in total before its failure ends the listing. Default 10 min. */
  maxWaitMs?: number | undefined;
  policy?: BackoffPolicy | undefined;
  /** Waits `ms` (tests count the waits instead of sleeping); rejects when `signal` aborts. */
  sleep?: ((ms: number, signal?: AbortSignal) => Promise<void>) | undefined;
  /** Told each wait, with the failure that caused it (for progress lines). */
  onWait?: ((ms: number, failure: unknown) => void) | undefined;
  signal?: AbortSignal | undefined;
}

const DEFAULT_POLICY: BackoffPolicy = { baseMs: 1_000, maxMs: 60_000 };
export const DEFAULT_LISTING_WAIT_MS = 10 * 60_000;

// Node's own timer: resolves after `ms`, rejects (AbortError) when the signal aborts.
const sleepFor = (ms: number, signal?: AbortSignal) => sleep(ms, undefined, { signal });

/** Read from the failure's fields (the one error root's), never its class. */
const transient = (err: unknown): { retryAfterMs: number | undefined } | undefined => {
  const e = err as { permanent?: unknown; retryAfterMs?: unknown } | null;
  if (typeof e !== 'object' || e === null || e.permanent !== false) return undefined;
  return { retryAfterMs: typeof e.retryAfterMs === 'number' ? e.retryAfterMs : undefined };
};

/** Calls `list` until it answers, waiting out transient failures within the budget. */
export async function listPatiently<T>(list: () => Promise<T>, patience: ListingPatience = {}): Promise<T> {
  const budget = patience.maxWaitMs ?? DEFAULT_LISTING_WAIT_MS;
  const pause = patience.sleep ?? sleepFor;
  let waited = 0;
  for (let attempt = 1; ; attempt++) {
    try {
      return await list();
    } catch (err) {
      const failure = transient(err);
      if (!failure) throw err;
      const wait = Math.max(
        failure.retryAfterMs ?? 0,
        backoffDelay(attempt, patience.policy ?? DEFAULT_POLICY),
      );
      if (waited + wait > budget) throw err;
      patience.onWait?.(wait, err);
      await pause(wait, patience.signal);
      waited += wait;
    }
  }
}
