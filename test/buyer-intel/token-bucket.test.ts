import { describe, expect, it } from 'vitest';
import { TokenBucket } from '../../src/buyer-intel/token-bucket.ts';

describe('TokenBucket', () => {
  it('allows a burst, then one token per 1/rate seconds', async () => {
    let now = 0;
    const bucket = new TokenBucket({ ratePerSecond: 10, burst: 3 }, () => now);
    for (let i = 0; i < 3; i++) await bucket.take();
    let granted = false;
    const fourth = bucket.take().then(() => {
      granted = true;
    });
    await new Promise((r) => setTimeout(r, 20));
    expect(granted).toBe(false);
    now += 100; // one token's worth of time on the bucket's clock
    await fourth;
    expect(granted).toBe(true);
  });

  it('rejects nonsense settings', () => {
    expect(() => new TokenBucket({ ratePerSecond: 0, burst: 1 })).toThrow(RangeError);
  });
});
