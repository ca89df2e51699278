// The backfill benches' provider runs in a process of its own (bench/provider-process.ts): the data
// set it builds must be the one the bench's accounts came from, its token bucket must refuse what the
// configured rate refuses, its counts and faults must reach it through its control plane, and close()
// must leave no process behind — every figure of the headline run rests on these.
import { describe, expect, it } from 'vitest';
import { startProviderProcess } from '../../bench/provider-process.ts';
import { buildDataset } from '../../emulators/buyer-intel/data/dataset.ts';
import { eventually } from '../helpers/poll.ts';

const now = new Date('2026-12-01T00:00:00Z');
const dataset = buildDataset({ seed: 7, buyerCount: 40, now });
const options = {
  dataset: { seed: 7, now: now.toISOString(), buyerCount: 40 },
  rateLimit: { ratePerSecond: 2, burst: 1 },
  faults: {},
};
const expected = { buyers: dataset.buyers.length, firstBuyerId: dataset.buyers[0]?.id };

describe('the bench provider process', () => {
  it('refuses to start on another data set than the accounts came from', async () => {
    await expect(startProviderProcess(options, { ...expected, firstBuyerId: 'another' })).rejects.toThrow(
      /another data set/,
    );
  });

  it('answers with its token, enforces its bucket, counts, takes faults and closes', async () => {
    const bi = await startProviderProcess(options, expected);
    try {
      const name = dataset.buyers[0]?.name ?? '';
      const search = () =>
        fetch(`${bi.url}/api/external/buyer/quick/search?buyerName=${encodeURIComponent(name)}`, {
          headers: { authorization: `Bearer ${bi.token}` },
        });
      const first = await search();
      expect(first.status).toBe(200);
      const found = (await first.json()) as { buyers: { id: string }[] };
      expect(found.buyers.map((b) => b.id)).toContain(dataset.buyers[0]?.id);
      // Burst 1 at 2/s: a second request at once meets an empty bucket.
      const second = await search();
      expect(second.status).toBe(429);
      expect(Number(second.headers.get('retry-after'))).toBeGreaterThan(0);
      const counts = Object.values(await bi.calls());
      const total = (status: string) => counts.reduce((n, byStatus) => n + (byStatus[status] ?? 0), 0);
      expect(total('200')).toBe(1);
      expect(total('429')).toBe(1);
      await bi.resetCalls();
      expect(Object.values(await bi.calls()).flatMap(Object.values)).toEqual([]);
      await bi.setFaults({ errorRate: 1 });
      // Once the bucket has its next token (2/s), the request gets the fault: 500, not 200.
      const statuses: number[] = [];
      await eventually(
        async () => statuses.push((await search()).status) && statuses.at(-1) !== 429,
        'an admitted request',
        { intervalMs: 100 },
      );
      expect(statuses.at(-1)).toBe(500);
    } finally {
      await bi.close();
    }
    await expect(fetch(bi.url)).rejects.toThrow();
  }, 30_000);
});
