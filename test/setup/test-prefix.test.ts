// What a file's test prefix leaves in Redis goes after the file, whether or not the file deletes it:
// the suite runs against a developer's own Redis, and files that forgot left ~880 keys over a day.
import { afterAll, describe, expect, it } from 'vitest';
import { keysOf, testPrefix, testRedis } from '../helpers/redis.ts';
import { releaseTestFile } from '../helpers/release.ts';

const redis = testRedis();
afterAll(() => redis.disconnect());

describe('a test prefix', () => {
  it("has its keys deleted when the file's helpers are released, and only its own", async () => {
    const mine = testPrefix('test-prefix');
    const alsoMine = testPrefix('test-prefix');
    // Another file's prefix, not handed out by this helper: left alone.
    const other = `{test-prefix-other-${process.pid}}`;
    await redis.set(`${mine}:a`, '1');
    await redis.set(`${alsoMine}:b`, '1');
    await redis.set(`${other}:c`, '1');
    try {
      await releaseTestFile();
      expect(await keysOf(redis, mine)).toEqual([]);
      expect(await keysOf(redis, alsoMine)).toEqual([]);
      expect(await keysOf(redis, other)).toEqual([`${other}:c`]);
    } finally {
      await redis.del(`${other}:c`);
    }
  });
});
