// What to do with a job that threw: wait out a rate limit without spending an attempt (the whole queue
// for the Buyer Intelligence API, which every job shares; only the job for one CRM tenant's limit, so
// one org out of API calls does not stall the others), fail at once when retrying cannot help, or
// retry with backoff. Pure, so every branch is testable.

import { AccountNotFoundError, CrmAuthError, CrmRateLimitError } from '../connectors/types.ts';
import {
  AuthenticationError,
  BadRequestError,
  BuyerIntelError,
  NotFoundError,
  PermissionDeniedError,
  RateLimitError,
} from '../src/buyer-intel/errors.ts';
import { backoffDelay } from '../src/shared/backoff.ts';

export type FailureAction =
  /** The Buyer Intelligence API (shared by every job) is rate-limited: park the whole queue. */
  | { action: 'rate-limit'; delayMs: number; reason: string }
  /** One CRM tenant's limit: only this job waits, other tenants' jobs go on. */
  | { action: 'defer'; delayMs: number; reason: string }
  | { action: 'fail'; reason: string }
  | { action: 'retry'; reason: string };

/** When an upstream 429 names no wait, park the queue this long. */
export const DEFAULT_RATE_LIMIT_DELAY_MS = 10_000;

export function classifyFailure(err: unknown): FailureAction {
  const message = err instanceof Error ? err.message : String(err);
  if (err instanceof RateLimitError) {
    return {
      action: 'rate-limit',
      delayMs: err.retryAfterMs ?? DEFAULT_RATE_LIMIT_DELAY_MS,
      reason: message,
    };
  }
  if (err instanceof CrmRateLimitError) {
    return { action: 'defer', delayMs: Math.max(1, err.retryAfterMs), reason: message };
  }
  if (err instanceof AccountNotFoundError)
    return { action: 'fail', reason: `CRM account not found: ${message}` };
  if (err instanceof CrmAuthError) return { action: 'fail', reason: `CRM credentials refused: ${message}` };
  if (err instanceof AuthenticationError || err instanceof PermissionDeniedError) {
    return { action: 'fail', reason: `Buyer Intelligence credentials refused: ${message}` };
  }
  if (err instanceof NotFoundError || err instanceof BadRequestError)
    return { action: 'fail', reason: message };
  if (err instanceof BuyerIntelError && !err.retryable && err.name === 'InvalidArgumentError') {
    return { action: 'fail', reason: message };
  }
  if (
    err instanceof Error &&
    [
      'MappingError',
      'ConfigError',
      'PermanentWriteError',
      'HubSpotRequestError',
      'SalesforceRequestError',
    ].includes(err.name)
  ) {
    return { action: 'fail', reason: message };
  }
  return { action: 'retry', reason: message };
}

/** BullMQ job retries: 2 s, 4 s, 8 s ... never more than 5 minutes. */
const JOB_BACKOFF = { baseMs: 2_000, maxMs: 5 * 60_000 } as const;

/** BullMQ's `backoffStrategy`: the project's one backoff with the job-retry policy. */
export function cappedExponentialBackoff(attemptsMade: number, random: () => number = Math.random): number {
  return backoffDelay(attemptsMade, JOB_BACKOFF, random);
}
