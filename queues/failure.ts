// What to do with a job that threw: wait out a rate limit without spending an attempt (the whole queue
// for a limit every job shares, like the Buyer Intelligence API's; only the job for one CRM tenant's
// limit, so one org out of API calls does not stall the others), fail at once when retrying cannot
// help, or retry with backoff. It reads only the facts of the error root (`failureFacts` in
// src/shared/errors.ts, which the in-call executor src/shared/retry.ts reads too), never a class name,
// so a new upstream's errors are handled the day they extend IntegrationError. Pure, so every branch
// is testable.

import { backoffDelay } from '../src/shared/backoff.ts';
import { failureFacts, type RetryFacts } from '../src/shared/errors.ts';
import { askedWaitMs } from '../src/shared/retry.ts';

export type FailureAction =
  /** A limit shared by every job (the Buyer Intelligence API) was hit: park the whole queue. */
  | { action: 'rate-limit'; delayMs: number; reason: string }
  /** Any other wait (one CRM tenant's limit): only this job waits, other tenants' jobs go on. */
  | { action: 'defer'; delayMs: number; reason: string }
  | { action: 'fail'; reason: string }
  | { action: 'retry'; reason: string };

/** When an upstream 429 names no wait, wait this long. */
export const DEFAULT_RATE_LIMIT_DELAY_MS = 10_000;

/** BullMQ job retries: 2 s, 4 s, 8 s ... never more than 5 minutes. */
const JOB_BACKOFF = { baseMs: 2_000, maxMs: 5 * 60_000 } as const;

export function classifyFailure(err: unknown): FailureAction {
  const message = err instanceof Error ? err.message : String(err);
  const facts = failureFacts(err);
  if (!facts) return { action: 'retry', reason: message };
  const waitMs = askedWaitMs(facts, DEFAULT_RATE_LIMIT_DELAY_MS);
  if (waitMs !== undefined) {
    const delayMs = Math.max(1, waitMs);
    return facts.limit === 'shared'
      ? { action: 'rate-limit', delayMs, reason: message }
      : { action: 'defer', delayMs, reason: message };
  }
  if (facts.permanent) return { action: 'fail', reason: failReason(facts, message) };
  return { action: 'retry', reason: message };
}

/** The failed job's reason, which the account's status field shows: says what a person must fix. */
function failReason(facts: RetryFacts, message: string): string {
  if (facts.status === 401 || facts.status === 403) return `credentials refused: ${message}`;
  return message;
}

/** BullMQ's `backoffStrategy`: the project's one backoff with the job-retry policy. */
export function cappedExponentialBackoff(attemptsMade: number, random: () => number = Math.random): number {
  return backoffDelay(attemptsMade, JOB_BACKOFF, random);
}
