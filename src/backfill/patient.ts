// Listing a CRM's accounts for a backfill (and its estimate) through a rate-limit storm: a failure that
// may succeed later (a 429, a 5xx, a network error: `permanent: false`) is waited out — the CRM's
// Retry-After when it sent one, else the project's backoff — and the same page is asked again, as
// long as the waits of this page stay within the budget (`maxWaitMs`). A permanent failure, or a
// longer wait than the budget allows (a daily limit), ends the listing at once with that failure.
// The waiting is the one executor's (src/shared/retry.ts); this file is the listing's plan.
import type { BackoffPolicy } from '../shared/backoff.ts';
import { retrying } from '../shared/retry.ts';

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

/** Calls `list` until it answers, waiting out transient failures within the budget. */
export function listPatiently<T>(list: () => Promise<T>, patience: ListingPatience = {}): Promise<T> {
  return retrying(list, {
    tries: Number.POSITIVE_INFINITY,
    backoff: patience.policy ?? DEFAULT_POLICY,
    maxWaitMs: patience.maxWaitMs ?? DEFAULT_LISTING_WAIT_MS,
    // Only a failure that says it may pass is waited out; one that says nothing ends the listing.
    unknown: 'permanent',
    sleep: patience.sleep,
    signal: patience.signal,
    onRetry: patience.onWait && ((failure, ms) => patience.onWait?.(ms, failure)),
  });
}
