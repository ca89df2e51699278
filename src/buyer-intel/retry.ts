// How the Buyer Intelligence client retries one request, as a plan for the one retry executor
// (src/shared/retry.ts): the client's settings (BUYER_INTEL_MAX_ATTEMPTS and the delays) become the
// executor's plan, so the decision itself is the one every loop shares.

import { answeredAgainstContract, failureFacts, type RetryFacts } from '../shared/errors.ts';
import type { RetryPlan } from '../shared/retry.ts';

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

/**
 * A 2xx answer that failed the contract is transient for the job (the next attempt rarely meets it
 * again) but not asked again within the call: the provider answered, and asking at once would most
 * likely get the same answer. Everything else is read as the error says (429, 5xx, network errors
 * and timeouts transient; every other 4xx permanent).
 */
const classify = (err: unknown): RetryFacts | undefined => {
  const facts = failureFacts(err);
  return facts && answeredAgainstContract(facts) ? { ...facts, permanent: true } : facts;
};

/**
 * The executor's plan for one request: `maxAttempts` tries in all, a Retry-After's wait spending one;
 * a Retry-After longer than `maxRetryAfterMs` ends the call; otherwise the one backoff.
 */
export const requestRetryPlan = (policy: RetryPolicy): RetryPlan => ({
  tries: policy.maxAttempts,
  backoff: { baseMs: policy.baseDelayMs, maxMs: policy.maxDelayMs },
  maxRetryAfterMs: policy.maxRetryAfterMs,
  unknown: 'permanent',
  classify,
});
