// The Buyer Intelligence client's retries of one request: its plan (src/buyer-intel/retry.ts) as the one
// executor's decision (src/shared/retry.ts) reads it from the errors the transport raises.
import { describe, expect, it } from 'vitest';
import {
  ConnectionError,
  errorForStatus,
  ResponseValidationError,
  TimeoutError,
} from '../../src/buyer-intel/errors.ts';
import { DEFAULT_RETRY_POLICY, requestRetryPlan } from '../../src/buyer-intel/retry.ts';
import { nextRetry } from '../../src/shared/retry.ts';

const plan = requestRetryPlan({
  ...DEFAULT_RETRY_POLICY,
  maxAttempts: 5,
  baseDelayMs: 100,
  maxDelayMs: 1_000,
});
const op = { operation: 'getBuyer' };
const status = (s: number, retryAfterMs?: number) => errorForStatus(s, { ...op, retryAfterMs });
const decide = (tries: number, err: unknown, p = plan, random = Math.random) =>
  nextRetry(err, { tries, waitedMs: 0 }, p, random);

describe('the Buyer Intelligence request plan', () => {
  it('retries 429, 5xx, network errors and timeouts; never other 4xx or a bad 2xx', () => {
    for (const s of [429, 500, 502, 503]) expect(decide(1, status(s)).retry, String(s)).toBe(true);
    expect(decide(1, new ConnectionError('refused', op)).retry).toBe(true);
    expect(decide(1, new TimeoutError('slow', op)).retry).toBe(true);
    for (const s of [400, 401, 403, 404, 415, 418]) expect(decide(1, status(s)).retry, String(s)).toBe(false);
    const garbled = new ResponseValidationError('bad', { ...op, status: 200, path: 'id' });
    expect(decide(1, garbled).retry).toBe(false);
    // ...which the job's next attempt may still retry: the error itself stays transient.
    expect(garbled.permanent).toBe(false);
    // Something that is no failure of the transport (an abort) is not retried either.
    expect(decide(1, new Error('aborted')).retry).toBe(false);
  });

  it('stops after maxAttempts', () => {
    expect(decide(4, status(500)).retry).toBe(true);
    expect(decide(5, status(500))).toEqual({ retry: false });
  });

  it('backs off exponentially under a cap, jittered within the upper half of each step', () => {
    const delay = (tries: number, random: () => number, p = plan) => {
      const d = decide(tries, new ConnectionError('refused', op), p, random);
      return d.retry ? d.delayMs : -1;
    };
    // The ceiling doubles from baseDelayMs: 100, 200, 400, 800 ms.
    expect([1, 2, 3, 4].map((a) => delay(a, () => 1))).toEqual([100, 200, 400, 800]);
    // Never less than half the ceiling, so no retry goes out almost at once.
    expect([1, 2, 3, 4].map((a) => delay(a, () => 0))).toEqual([50, 100, 200, 400]);
    const capped = requestRetryPlan({
      ...DEFAULT_RETRY_POLICY,
      maxAttempts: 10,
      baseDelayMs: 100,
      maxDelayMs: 300,
    });
    expect(delay(4, () => 1, capped)).toBe(300);
    expect(delay(9, () => 0, capped)).toBe(150);
  });

  it('waits exactly Retry-After (0: at once), and gives up when it is longer than we hold a call', () => {
    expect(decide(1, status(429, 2_000))).toEqual({ retry: true, delayMs: 2_000, spendsTry: true });
    expect(decide(1, status(429, 0))).toEqual({ retry: true, delayMs: 0, spendsTry: true });
    expect(decide(1, status(429, 120_000))).toEqual({ retry: false });
    // A Retry-After's wait spends a try like any other.
    expect(decide(5, status(429, 2_000))).toEqual({ retry: false });
  });
});
