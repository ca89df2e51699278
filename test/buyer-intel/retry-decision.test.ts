import { describe, expect, it } from 'vitest';
import { DEFAULT_RETRY_POLICY, decideRetry } from '../../src/buyer-intel/retry.ts';

const policy = { ...DEFAULT_RETRY_POLICY, maxAttempts: 5, baseDelayMs: 100, maxDelayMs: 1_000 };

describe('decideRetry', () => {
  it('retries 429, 5xx, network errors and timeouts; never other 4xx', () => {
    for (const status of [429, 500, 502, 503])
      expect(decideRetry(1, { kind: 'status', status }, policy).retry).toBe(true);
    expect(decideRetry(1, { kind: 'network' }, policy).retry).toBe(true);
    expect(decideRetry(1, { kind: 'timeout' }, policy).retry).toBe(true);
    for (const status of [400, 401, 403, 404, 415])
      expect(decideRetry(1, { kind: 'status', status }, policy).retry).toBe(false);
  });

  it('stops after maxAttempts', () => {
    expect(decideRetry(5, { kind: 'status', status: 500 }, policy)).toEqual({ retry: false });
  });

  it('backs off exponentially under a cap, jittered within the upper half of each step', () => {
    const delay = (attempt: number, random: () => number, p = policy) => {
      const d = decideRetry(attempt, { kind: 'network' }, p, random);
      return d.retry ? d.delayMs : -1;
    };
    // The ceiling doubles from baseDelayMs: 100, 200, 400, 800 ms.
    expect([1, 2, 3, 4].map((a) => delay(a, () => 1))).toEqual([100, 200, 400, 800]);
    // Never less than half the ceiling, so no retry goes out almost at once.
    expect([1, 2, 3, 4].map((a) => delay(a, () => 0))).toEqual([50, 100, 200, 400]);
    for (let attempt = 1; attempt <= 4; attempt++) {
      const ceiling = 100 * 2 ** (attempt - 1);
      const d = delay(attempt, Math.random);
      expect(d).toBeGreaterThanOrEqual(ceiling / 2);
      expect(d).toBeLessThanOrEqual(ceiling);
    }
    // maxDelayMs caps the ceiling.
    const capped = { ...policy, maxAttempts: 10, maxDelayMs: 300 };
    expect(delay(4, () => 1, capped)).toBe(300);
    expect(delay(9, () => 0, capped)).toBe(150);
  });

  it('waits exactly Retry-After, and gives up when it is longer than we hold a call', () => {
    expect(decideRetry(1, { kind: 'status', status: 429, retryAfterMs: 2_000 }, policy)).toEqual({
      retry: true,
      delayMs: 2_000,
    });
    expect(decideRetry(1, { kind: 'status', status: 429, retryAfterMs: 120_000 }, policy)).toEqual({
      retry: false,
    });
  });
});
