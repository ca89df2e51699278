// The one Retry-After reading every client waits by: what a server's header makes us wait.
import { describe, expect, it } from 'vitest';
import { parseRetryAfter, RETRY_AFTER_MAX_MS } from '../../src/shared/retry-after.ts';

const now = Date.parse('2026-11-21T10:00:00Z');

describe('parseRetryAfter', () => {
  it('reads delay-seconds as milliseconds, rounding a fraction up', () => {
    expect(parseRetryAfter('3', now)).toBe(3_000);
    expect(parseRetryAfter(' 12 ', now)).toBe(12_000);
    // Rounded up, never down: half a second is not "now", and 1.0001 s is not 1 s.
    expect(parseRetryAfter('0.5', now)).toBe(500);
    expect(parseRetryAfter('1.0001', now)).toBe(1_001);
  });

  it('reads 0 as "now", not as no header', () => {
    expect(parseRetryAfter('0', now)).toBe(0);
  });

  it('reads the three HTTP-date forms as the time until then, and a past date as now', () => {
    expect(parseRetryAfter('Sat, 21 Nov 2026 10:00:05 GMT', now)).toBe(5_000);
    expect(parseRetryAfter('Saturday, 21-Nov-26 10:00:05 GMT', now)).toBe(5_000);
    // asctime names no zone; it is GMT whatever the machine's zone.
    expect(parseRetryAfter('Sat Nov 21 10:00:05 2026', now)).toBe(5_000);
    expect(parseRetryAfter('Fri, 20 Nov 2026 10:00:05 GMT', now)).toBe(0);
  });

  it('bounds a huge wait to a day', () => {
    expect(parseRetryAfter('99999999', now)).toBe(RETRY_AFTER_MAX_MS);
    expect(parseRetryAfter('Sat, 21 Nov 2099 10:00:05 GMT', now)).toBe(RETRY_AFTER_MAX_MS);
    expect(RETRY_AFTER_MAX_MS).toBe(86_400_000);
  });

  it('gives undefined for an absent or unreadable header, so the caller keeps its own policy', () => {
    for (const v of [null, undefined, '', '  ', 'soon', '-1', '1e3', '12/01/2026', 'Sat, 21 Nov 2026'])
      expect(parseRetryAfter(v, now), String(v)).toBeUndefined();
  });
});
