import { describe, expect, it, vi } from 'vitest';
import { TokenBucket } from '../../src/buyer-intel/token-bucket.ts';

describe('TokenBucket', () => {
  it('allows a burst, then one token per 1/rate seconds', async () => {
    // The bucket's clock and its sleep on fake time: "not yet" is then a fact of the clock, not a guess
    // that a real wait was long enough.
    vi.useFakeTimers({ now: 0 });
    try {
      const bucket = new TokenBucket({ ratePerSecond: 10, burst: 3 }, () => Date.now());
      for (let i = 0; i < 3; i++) await bucket.take();
      let granted = false;
      const fourth = bucket.take().then(() => {
        granted = true;
      });
      await vi.advanceTimersByTimeAsync(99);
      expect(granted).toBe(false);
      await vi.advanceTimersByTimeAsync(1); // one token's worth of time: 100 ms at 10 per second
      await fourth;
      expect(granted).toBe(true);
    } finally {
      vi.useRealTimers();
    }
  });

  it('rejects nonsense settings', () => {
    expect(() => new TokenBucket({ ratePerSecond: 0, burst: 1 })).toThrow(RangeError);
  });
});
