// One CRM call of an undo, retried the way every write is: a rate limit (the CRM's 429, or our own call
// budget staying full) is waited out without spending a try, a failure that cannot succeed (a batch
// too large is our mistake, never the CRM's) is not retried, anything else is retried with the
// project's one backoff. A plan for the one executor (src/shared/retry.ts), which reads the error's
// facts only, never a class name.
import type { BackoffPolicy } from '../shared/backoff.ts';
import { retrying } from '../shared/retry.ts';

export interface RetryOptions {
  /** Tries in all, rate-limit waits aside. Default 5. */
  attempts?: number;
  /** The longest an undo waits for one call before giving up. Default 10 minutes. */
  maxWaitMs?: number;
  backoff?: BackoffPolicy;
  sleep?: (ms: number) => Promise<void>;
}

const IN_CALL_BACKOFF: BackoffPolicy = { baseMs: 1_000, maxMs: 30_000 };
/** When a CRM's 429 names no wait (as the job-level decision, queues/failure.ts). */
const RATE_LIMIT_WAIT_MS = 10_000;

export function withRetries<T>(call: () => Promise<T>, options: RetryOptions = {}): Promise<T> {
  return retrying(call, {
    tries: options.attempts ?? 5,
    backoff: options.backoff ?? IN_CALL_BACKOFF,
    waitsSpendTries: false,
    rateLimitWaitMs: RATE_LIMIT_WAIT_MS,
    maxWaitMs: options.maxWaitMs ?? 600_000,
    sleep: options.sleep,
  });
}
