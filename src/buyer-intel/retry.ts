// The retry decision is a pure function so it can be tested without a clock or a network.

import { backoffDelay } from '../shared/backoff.ts';

export interface RetryPolicy {
  /** Total attempts including the first; 1 disables retries. */
  maxAttempts: number;
  baseDelayMs: number;
  maxDelayMs: number;
  /**
   * The longest `Retry-After` we wait for inside one call. A longer one ends the call with the
   * RateLimitError (carrying `retryAfterMs`), so a queue can park the job instead of holding a worker.
   */
  maxRetryAfterMs: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = {
  maxAttempts: 4,
  baseDelayMs: 250,
  maxDelayMs: 8_000,
  maxRetryAfterMs: 30_000,
};

export type AttemptOutcome =
  | { kind: 'status'; status: number; retryAfterMs?: number | undefined }
  | { kind: 'network' }
  | { kind: 'timeout' };

export type RetryDecision = { retry: false } | { retry: true; delayMs: number };

export function isRetryableOutcome(outcome: AttemptOutcome): boolean {
  if (outcome.kind !== 'status') return true;
  return outcome.status === 429 || outcome.status >= 500;
}

/**
 * Decide whether attempt number `attempt` (1-based) should be followed by another.
 * Retries 429, 5xx, network errors and timeouts, never other 4xx. Waits for `Retry-After` when the
 * server sent one; otherwise the project's one backoff (src/shared/backoff.ts) within the policy.
 */
export function decideRetry(
  attempt: number,
  outcome: AttemptOutcome,
  policy: RetryPolicy,
  random: () => number = Math.random,
): RetryDecision {
  if (attempt >= policy.maxAttempts || !isRetryableOutcome(outcome)) return { retry: false };
  if (outcome.kind === 'status' && outcome.retryAfterMs !== undefined) {
    if (outcome.retryAfterMs > policy.maxRetryAfterMs) return { retry: false };
    return { retry: true, delayMs: outcome.retryAfterMs };
  }
  const delayMs = backoffDelay(attempt, { baseMs: policy.baseDelayMs, maxMs: policy.maxDelayMs }, random);
  return { retry: true, delayMs };
}
