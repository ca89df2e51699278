// A run takes its signals from whichever source is cheaper (src/enrich/run-signals.ts), counted where
// the provider counts them (the emulator's call stats): the org-wide feed, read once for every buyer,
// when its pages are fewer than one call per new buyer; the per-buyer call otherwise. From the feed
// every buyer gets the signals the per-buyer call answers (so the same notes), and accounts outside
// a run (webhooks, refreshes) keep the per-buyer call.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { RunningBuyerIntelSandbox } from '../../emulators/buyer-intel/server.ts';
import { cachedBuyerIntel } from '../../src/buyer-intel/cache.ts';
import type { BuyerIntelClient } from '../../src/buyer-intel/client.ts';
import {
  buyerSignalParams,
  FEED_PAGE_SIZE,
  NEW_BUYERS_PER_ACCOUNT,
  planSignals,
  recordSignalPlan,
  runSignals,
  type SignalSettings,
} from '../../src/enrich/run-signals.ts';
import { clientFor, startSandbox } from '../helpers/buyer-intel-sandbox.ts';
import { deleteKeysOf, testPrefix, testRedis } from '../helpers/redis.ts';

const SETTINGS: SignalSettings = {
  filterType: [],
  status: [],
  period: 'LastThreeMonths',
  sort: 'Date',
  maxNotesPerRun: 5,
};
const prefix = testPrefix('test-run-signals');
const redis = testRedis();
let bi: RunningBuyerIntelSandbox;
let client: BuyerIntelClient;
/** Buyers with at least one signal in the window, and some without. */
let buyers: string[];

beforeAll(async () => {
  bi = await startSandbox();
  client = clientFor(bi).client;
  const withRows = [...bi.dataset.rowsByBuyer.keys()].slice(0, 60);
  const without = bi.dataset.buyers.map((b) => b.id).filter((id) => !bi.dataset.rowsByBuyer.has(id));
  buyers = [...withRows, ...without.slice(0, 20)];
});
beforeEach(() => bi.stats.reset());
afterAll(async () => {
  await deleteKeysOf(redis, prefix);
  redis.disconnect();
  await bi.close();
});

const calls = (operation: string) => bi.stats.count(operation);

describe('a run reads signals from the cheaper source', () => {
  it('a large run reads the org-wide feed once and routes each buyer the signals its own call answers', async () => {
    const cached = cachedBuyerIntel(client, { ttlMs: 60_000, maxEntries: 1_000 });
    const feedBefore = calls('listTopRecentSignals');
    const plan = await planSignals(cached, SETTINGS, 10_000);
    const total = (await client.listTopRecentSignals({ ...buyerSignalParamsOf(), pageSize: 1 })).totalItems;
    expect(plan).toEqual({
      source: 'feed',
      feedCalls: Math.ceil(total / FEED_PAGE_SIZE),
      perBuyerCalls: Math.ceil(10_000 * NEW_BUYERS_PER_ACCOUNT),
      totalItems: total,
      indexBytes: expect.any(Number),
    });
    await recordSignalPlan(redis, prefix, 'run-big', plan);
    const signals = runSignals({ client: cached, redis, prefix, settings: SETTINGS });

    const perBuyerBefore = calls('listRecentBuyerSignals');
    const routed = new Map<string, string[]>();
    for (const buyerId of buyers) {
      const got = await signals.signalsOf('run-big', buyerId);
      routed.set(
        buyerId,
        (got ?? []).map((s) => s.row.rowId),
      );
    }
    // The whole run's signals cost the feed's pages (the count's first page included), once.
    expect(calls('listRecentBuyerSignals')).toBe(perBuyerBefore);
    expect(calls('listTopRecentSignals') - feedBefore - 1).toBe(plan.feedCalls);

    let withSignals = 0;
    for (const buyerId of buyers) {
      const own = await client.listRecentBuyerSignals(buyerSignalParams(SETTINGS, buyerId));
      expect(routed.get(buyerId), buyerId).toEqual(own.result.map((s) => s.row.rowId));
      if (own.result.length) withSignals++;
    }
    expect(withSignals).toBeGreaterThan(10);
    // The index a worker holds, estimated from the first page's rows: within a fifth of the feed's.
    const all = await readWholeFeed();
    expect(plan.indexBytes).toBeGreaterThan(all.bytes * 0.8);
    expect(plan.indexBytes).toBeLessThan(all.bytes * 1.2);
  });

  it('a small run keeps one call per new buyer, and so do accounts outside a run', async () => {
    const plan = await planSignals(client, SETTINGS, 5);
    expect(plan.source).toBe('per-buyer');
    expect(plan.perBuyerCalls).toBe(Math.ceil(5 * NEW_BUYERS_PER_ACCOUNT));
    expect(plan.feedCalls).toBeGreaterThan(plan.perBuyerCalls);
    await recordSignalPlan(redis, prefix, 'run-small', plan);
    await recordSignalPlan(redis, prefix, 'run-feed', { ...plan, source: 'feed' });
    const signals = runSignals({ client, redis, prefix, settings: SETTINGS });
    const feedBefore = calls('listTopRecentSignals');
    const buyer = buyers[0] ?? '';
    expect(await signals.signalsOf('run-small', buyer)).toBeUndefined();
    expect(await signals.signalsOf(undefined, buyer)).toBeUndefined();
    expect(calls('listTopRecentSignals')).toBe(feedBefore);
  });
});

describe('a feed too large for a worker to hold', () => {
  it('is not planned, however few its pages; a run planned before it grew asks per buyer', async () => {
    const all = await readWholeFeed();
    const bound = Math.floor(all.bytes / 2);
    const plan = await planSignals(client, SETTINGS, 10_000, bound);
    expect(plan.feedCalls).toBeLessThan(plan.perBuyerCalls);
    expect(plan.indexBytes).toBeGreaterThan(bound);
    expect(plan.source).toBe('per-buyer');

    // A run recorded as reading the feed: the worker stops reading pages at the bound, holds nothing,
    // and every account gets undefined (its own buyer's call), without the feed read again per account.
    await recordSignalPlan(redis, prefix, 'run-grown', { ...plan, source: 'feed' });
    const signals = runSignals({ client, redis, prefix, settings: SETTINGS, maxIndexBytes: bound });
    const feedBefore = calls('listTopRecentSignals');
    for (const buyerId of buyers.slice(0, 10))
      expect(await signals.signalsOf('run-grown', buyerId)).toBeUndefined();
    const read = calls('listTopRecentSignals') - feedBefore;
    expect(read).toBeGreaterThan(0);
    expect(read).toBeLessThan(Math.ceil(all.rows / FEED_PAGE_SIZE));
  });
});

/** The whole feed's rows and the bytes of their JSON, read apart from the code under test. */
async function readWholeFeed(): Promise<{ rows: number; bytes: number }> {
  let rows = 0;
  let bytes = 0;
  for (let pageNumber = 1; ; pageNumber++) {
    const page = await client.listTopRecentSignals({
      ...buyerSignalParamsOf(),
      pageSize: FEED_PAGE_SIZE,
      pageNumber,
    });
    for (const signal of page.result) bytes += Buffer.byteLength(JSON.stringify(signal));
    rows += page.result.length;
    if (page.result.length === 0 || pageNumber >= page.totalPages) return { rows, bytes };
  }
}

function buyerSignalParamsOf() {
  const { buyerId: _b, pageSize: _p, ...filters } = buyerSignalParams(SETTINGS, '');
  return filters;
}
