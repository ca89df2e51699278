// One lock and one constant-time compare: the owner-checked release of a Redis lock is written once
// (src/shared/redis-lock.ts: the enrich worker's, a real-time note's, an undo's, a digest run's, a
// token refresh's and the provider cache's leases all use it), and secrets and signatures are compared
// in src/shared/compare.ts only. Two copies drift: one by SHA and one as text per call, one hashing
// first and one leaking the length.
import { describe, expect, it } from 'vitest';
import { productionSources } from '../helpers/source-files.ts';

const production = productionSources;

/** A Lua release that deletes a key only when it holds the caller's value: a lock's. */
const OWNER_RELEASE = /redis\.call\(\s*'get'\s*,\s*KEYS\[1\]\s*\)\s*==\s*ARGV\[1\][^`]*'del'/i;

const where = (test: (source: string) => boolean) =>
  production()
    .filter(({ source }) => test(source))
    .map(({ path }) => path);

describe('one of each', () => {
  it('releases a Redis lock in src/shared/redis-lock.ts only', () => {
    expect(
      OWNER_RELEASE.test(
        "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) end",
      ),
    ).toBe(true);
    expect(where((s) => OWNER_RELEASE.test(s) || s.includes('bisLockRelease'))).toEqual([
      'src/shared/redis-lock.ts',
    ]);
  });

  it('compares secrets and signatures in src/shared/compare.ts only', () => {
    expect(where((s) => /\btimingSafeEqual\b/.test(s))).toEqual(['src/shared/compare.ts']);
  });
});
