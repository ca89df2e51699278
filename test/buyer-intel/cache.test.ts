// The coalescing cache in front of the Buyer Intelligence client, counted at the sandbox over real HTTP.
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { RunningBuyerIntelSandbox } from '../../emulators/buyer-intel/server.ts';
import { cachedBuyerIntel } from '../../src/buyer-intel/cache.ts';
import { cacheLeases } from '../../src/buyer-intel/cache-leases.ts';
import type { BuyerIntelClient } from '../../src/buyer-intel/index.ts';
import { runUrgent } from '../../src/shared/urgency.ts';
import { clientFor, startSandbox } from '../helpers/buyer-intel-sandbox.ts';
import { eventually } from '../helpers/poll.ts';

let sandbox: RunningBuyerIntelSandbox;
let client: BuyerIntelClient;

beforeAll(async () => {
  sandbox = await startSandbox({ faults: { latencyMs: 30 } });
  // No retries: a scripted 500 reaches the caller.
  ({ client } = clientFor(sandbox, { retry: { maxAttempts: 1 } }));
});
afterAll(() => sandbox.close());
afterEach(() => {
  sandbox.stats.reset();
  sandbox.faults.clear();
});

const buyerId = (i = 0) => sandbox.dataset.buyers[i]?.id ?? '';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** `redis` with its MGETs counted (`reads()`), every other command passed through. */
function countingMgets(redis: Redis): { counted: Redis; reads: () => number } {
  let n = 0;
  const counted = new Proxy(redis, {
    get(target, name) {
      const value = Reflect.get(target, name, target);
      if (typeof value !== 'function') return value;
      if (name !== 'mget') return value.bind(target);
      return (...args: Parameters<Redis['mget']>) => {
        n++;
        return target.mget(...args);
      };
    },
  });
  return { counted, reads: () => n };
}

describe('cachedBuyerIntel', () => {
  it('coalesces 10 concurrent identical attribute calls into one upstream call', async () => {
    const cached = cachedBuyerIntel(client, { ttlMs: 60_000, maxEntries: 100 });
    const results = await Promise.all(
      // The same attribute set in different orders is the same key.
      Array.from({ length: 10 }, (_, i) =>
        cached.getBuyerAttributesBulk(buyerId(), i % 2 ? ['Name', 'Population'] : ['Population', 'Name']),
      ),
    );
    expect(sandbox.stats.count('getBuyerAttributesBulk')).toBe(1);
    expect(new Set(results.map((r) => JSON.stringify(r))).size).toBe(1);
    expect(results[0]?.buyerData?.Name).toBe(sandbox.dataset.buyers[0]?.name);
    expect(cached.stats).toMatchObject({ misses: 1, coalesced: 9 });

    // Different attributes or a different buyer are different calls.
    await cached.getBuyerAttributesBulk(buyerId(), ['Name']);
    await cached.getBuyerAttributesBulk(buyerId(1), ['Name', 'Population']);
    expect(sandbox.stats.count('getBuyerAttributesBulk')).toBe(3);
  });

  it('coalesces concurrent signal calls and searches, keyed by their params', async () => {
    const cached = cachedBuyerIntel(client, { ttlMs: 60_000, maxEntries: 100 });
    await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        cached.listRecentBuyerSignals({
          buyerId: buyerId(),
          relativeDatePeriodFrom: 'LastYear',
          filterType: i % 2 ? ['RFP', 'Meeting'] : ['Meeting', 'RFP'],
        }),
      ),
    );
    await Promise.all(
      Array.from({ length: 10 }, () =>
        cached.searchBuyers({ buyerName: 'City of Austin', buyerStateCode: 'TX' }),
      ),
    );
    expect(sandbox.stats.count('listRecentBuyerSignals')).toBe(1);
    expect(sandbox.stats.count('searchBuyers')).toBe(1);
    await cached.listRecentBuyerSignals({ buyerId: buyerId(), relativeDatePeriodFrom: 'LastSixMonths' });
    expect(sandbox.stats.count('listRecentBuyerSignals')).toBe(2);
  });

  it('reuses a result within the TTL and calls again after it expires', async () => {
    let clock = 1_000_000;
    const cached = cachedBuyerIntel(client, { ttlMs: 400, maxEntries: 100, now: () => clock });
    await cached.getBuyerAttributesBulk(buyerId(), ['Name']);
    clock += 399;
    await cached.getBuyerAttributesBulk(buyerId(), ['Name']);
    expect(sandbox.stats.count('getBuyerAttributesBulk')).toBe(1);
    expect(cached.stats.hits).toBe(1);
    clock += 2;
    await cached.getBuyerAttributesBulk(buyerId(), ['Name']);
    expect(sandbox.stats.count('getBuyerAttributesBulk')).toBe(2);
  });

  it('a search is one answer whatever its case, punctuation and spacing; another state, limit or word is another', async () => {
    const cached = cachedBuyerIntel(client, { ttlMs: 60_000, maxEntries: 100 });
    const austin = await cached.searchBuyers({ buyerName: 'City of Austin', buyerStateCode: 'TX' });
    for (const buyerName of ['CITY OF AUSTIN', ' City  of Austin. ', 'city-of-austin'])
      expect(await cached.searchBuyers({ buyerName, buyerStateCode: 'TX' })).toEqual(austin);
    expect(sandbox.stats.count('searchBuyers')).toBe(1);
    await cached.searchBuyers({ buyerName: 'City of Austin', buyerStateCode: 'MN' });
    await cached.searchBuyers({ buyerName: 'City of Austin', buyerStateCode: 'TX', limit: 5 });
    await cached.searchBuyers({ buyerName: 'Town of Austin', buyerStateCode: 'TX' });
    expect(sandbox.stats.count('searchBuyers')).toBe(4);
  });

  it('keeps a search answer for searchTtlMs, a buyer’s attributes for ttlMs', async () => {
    let clock = 1_000_000;
    const cached = cachedBuyerIntel(client, {
      ttlMs: 400,
      searchTtlMs: 10_000,
      maxEntries: 100,
      now: () => clock,
    });
    const both = () =>
      Promise.all([
        cached.searchBuyers({ buyerName: 'Travis County', buyerStateCode: 'TX' }),
        cached.getBuyerAttributesBulk(buyerId(), ['Name']),
      ]);
    await both();
    clock += 401;
    await both();
    expect(sandbox.stats.count('searchBuyers')).toBe(1);
    expect(sandbox.stats.count('getBuyerAttributesBulk')).toBe(2);
    clock += 10_000;
    await both();
    expect(sandbox.stats.count('searchBuyers')).toBe(2);
    expect(sandbox.stats.count('getBuyerAttributesBulk')).toBe(3);
  });

  it('evicts the least recently used entry past maxEntries', async () => {
    const cached = cachedBuyerIntel(client, { ttlMs: 60_000, maxEntries: 2 });
    await cached.getBuyerAttributesBulk(buyerId(0), ['Name']);
    await cached.getBuyerAttributesBulk(buyerId(1), ['Name']);
    await cached.getBuyerAttributesBulk(buyerId(0), ['Name']); // 0 is now the most recent
    await cached.getBuyerAttributesBulk(buyerId(2), ['Name']); // evicts 1
    expect(cached.size).toBe(2);
    await cached.getBuyerAttributesBulk(buyerId(0), ['Name']);
    expect(sandbox.stats.count('getBuyerAttributesBulk')).toBe(3);
    await cached.getBuyerAttributesBulk(buyerId(1), ['Name']);
    expect(sandbox.stats.count('getBuyerAttributesBulk')).toBe(4);
  });

  it('keeps at most maxChars of answers, by their JSON, the least recently used going first', async () => {
    const chars = async (i: number) =>
      JSON.stringify(await client.getBuyerAttributesBulk(buyerId(i), ['Name', 'Type'])).length;
    // Room for the answers of buyers 1 and 2, not for 0's as well.
    const maxChars = (await chars(1)) + (await chars(2));
    const cached = cachedBuyerIntel(client, {
      ttlMs: 60_000,
      maxEntries: 100,
      maxChars,
      maxEntryChars: maxChars,
    });
    sandbox.stats.reset();
    for (const i of [0, 1, 2]) await cached.getBuyerAttributesBulk(buyerId(i), ['Name', 'Type']);
    expect(cached.size).toBe(2);
    await cached.getBuyerAttributesBulk(buyerId(2), ['Name', 'Type']);
    await cached.getBuyerAttributesBulk(buyerId(1), ['Name', 'Type']);
    expect(sandbox.stats.count('getBuyerAttributesBulk')).toBe(3);
    await cached.getBuyerAttributesBulk(buyerId(0), ['Name', 'Type']);
    expect(sandbox.stats.count('getBuyerAttributesBulk')).toBe(4);
  });

  it('keeps no answer over a twentieth of maxChars in process: a page of the feed pushes no search out', async () => {
    const search = { buyerName: sandbox.dataset.buyers[0]?.name ?? '', limit: 10 };
    const feed = { pageSize: 100, pageNumber: 1 };
    const chars = (value: unknown) => JSON.stringify(value).length;
    const pageChars = chars(await client.listTopRecentSignals(feed));
    const searchChars = chars(await client.searchBuyers(search));
    // Room for the page or the search, not both: kept, the page would push the search out.
    const maxChars = pageChars + Math.floor(searchChars / 2);
    expect(searchChars).toBeLessThan(maxChars / 20);
    const cached = cachedBuyerIntel(client, { ttlMs: 60_000, maxEntries: 100, maxChars });
    sandbox.stats.reset();
    await cached.searchBuyers(search);
    await cached.listTopRecentSignals(feed);
    expect(cached.size).toBe(1);
    await cached.searchBuyers(search);
    expect(sandbox.stats.count('searchBuyers')).toBe(1);
    // Without Redis to share it, the page is read again.
    await cached.listTopRecentSignals(feed);
    expect(sandbox.stats.count('listTopRecentSignals')).toBe(2);
  });

  it('never caches an error: every waiter sees it, and the next call goes upstream again', async () => {
    const cached = cachedBuyerIntel(client, { ttlMs: 60_000, maxEntries: 100 });
    sandbox.faults.inject({ kind: 'status', status: 500, match: 'getBuyerAttributesBulk' });
    const failed = await Promise.allSettled(
      Array.from({ length: 5 }, () => cached.getBuyerAttributesBulk(buyerId(), ['Name'])),
    );
    expect(failed.every((r) => r.status === 'rejected')).toBe(true);
    expect(sandbox.stats.count('getBuyerAttributesBulk')).toBe(1);
    expect(cached.stats.errors).toBe(1);

    const ok = await cached.getBuyerAttributesBulk(buyerId(), ['Name']);
    expect(ok.buyerData?.Name).toBe(sandbox.dataset.buyers[0]?.name);
    expect(sandbox.stats.count('getBuyerAttributesBulk')).toBe(2);
  });

  it("one caller's abort fails only that caller", async () => {
    const cached = cachedBuyerIntel(client, { ttlMs: 60_000, maxEntries: 100 });
    const controller = new AbortController();
    const aborted = cached.getBuyerAttributesBulk(buyerId(), ['Name'], { signal: controller.signal });
    const other = cached.getBuyerAttributesBulk(buyerId(), ['Name']);
    controller.abort(new Error('gave up'));
    await expect(aborted).rejects.toThrow('gave up');
    await expect(other).resolves.toMatchObject({ buyerId: buyerId() });
    expect(sandbox.stats.count('getBuyerAttributesBulk')).toBe(1);
  });

  describe('shared through Redis', () => {
    const redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
    const prefix = `bis-test-cache-${randomUUID().slice(0, 8)}:`;
    afterAll(async () => {
      const keys = await redis.keys(`${prefix}*`);
      if (keys.length) await redis.del(...keys);
      redis.disconnect();
    });

    it('a second process (another cache instance) reuses what the first fetched, until the TTL', async () => {
      const a = cachedBuyerIntel(client, { ttlMs: 1_000, maxEntries: 100, redis: { client: redis, prefix } });
      const b = cachedBuyerIntel(client, { ttlMs: 1_000, maxEntries: 100, redis: { client: redis, prefix } });
      const first = await a.getBuyerAttributesBulk(buyerId(3), ['Name', 'Type']);
      const second = await b.getBuyerAttributesBulk(buyerId(3), ['Type', 'Name']);
      expect(second).toEqual(first);
      expect(sandbox.stats.count('getBuyerAttributesBulk')).toBe(1);
      expect(b.stats.sharedHits).toBe(1);
      expect(
        await redis.pttl(`${prefix}attributes:${JSON.stringify([buyerId(3), 'Name,Type'])}`),
      ).toBeGreaterThan(0);
      // Redis expires the shared copy by its own clock: wait for that (bounded); a process without a
      // copy of its own then calls upstream again.
      const key = `${prefix}attributes:${JSON.stringify([buyerId(3), 'Name,Type'])}`;
      await eventually(async () => (await redis.exists(key)) === 0, 'Redis expiring the shared copy');
      const c = cachedBuyerIntel(client, { ttlMs: 1_000, maxEntries: 100, redis: { client: redis, prefix } });
      await c.getBuyerAttributesBulk(buyerId(3), ['Name', 'Type']);
      expect(sandbox.stats.count('getBuyerAttributesBulk')).toBe(2);
    });

    it('concurrent misses of two processes make one upstream call (a lease in Redis)', async () => {
      const options = { ttlMs: 60_000, maxEntries: 100, redis: { client: redis, prefix } };
      const a = cachedBuyerIntel(client, options);
      const b = cachedBuyerIntel(client, options);
      const [x, y] = await Promise.all([
        a.listRecentBuyerSignals({ buyerId: buyerId(4), relativeDatePeriodFrom: 'LastYear' }),
        b.listRecentBuyerSignals({ buyerId: buyerId(4), relativeDatePeriodFrom: 'LastYear' }),
      ]);
      expect(y).toEqual(x);
      expect(sandbox.stats.count('listRecentBuyerSignals')).toBe(1);
      expect(a.stats.misses + b.stats.misses).toBe(1);
      expect(a.stats.sharedHits + b.stats.sharedHits).toBe(1);
    });

    it("a lease holds the answer's own key: a reader waits on it while its holder lives, and takes over a dead holder's", async () => {
      // The reader's connection, counting its reads: the answer lands once it has read the lease twice.
      const { counted, reads } = countingMgets(redis);
      const options = { ttlMs: 60_000, maxEntries: 100, redis: { client: counted, prefix } };
      const attributesAt = (i: number) => `${prefix}attributes:${JSON.stringify([buyerId(i), 'Name'])}`;
      // Another process's call in flight: its lease, then its answer, in the key this one reads; the
      // process's key says it is alive.
      const answer = { buyerId: buyerId(6), attributes: { Name: 'held by another process' } };
      await redis.set(`${prefix}~alive:4242`, '1', 'PX', 60_000);
      await redis.set(attributesAt(6), '~lease:4242:abc', 'PX', 60_000);
      const waiting = cachedBuyerIntel(client, options).getBuyerAttributesBulk(buyerId(6), ['Name']);
      await eventually(async () => reads() >= 2, 'the reader polling the lease');
      await redis.set(attributesAt(6), JSON.stringify(answer), 'PX', 60_000);
      await expect(waiting).resolves.toEqual(answer);
      expect(sandbox.stats.count('getBuyerAttributesBulk')).toBe(0);
      // A process that died holding a lease (its key gone; the lease would last a minute): the reader
      // calls upstream, and its answer replaces the lease.
      await redis.set(attributesAt(7), '~lease:4243:def', 'PX', 60_000);
      const b = cachedBuyerIntel(client, options);
      await expect(b.getBuyerAttributesBulk(buyerId(7), ['Name'])).resolves.toMatchObject({
        buyerId: buyerId(7),
      });
      expect(sandbox.stats.count('getBuyerAttributesBulk')).toBe(1);
      expect(JSON.parse((await redis.get(attributesAt(7))) ?? 'null')).toMatchObject({ buyerId: buyerId(7) });
      expect(await redis.keys(`${prefix}lease:*`)).toEqual([]);
    });

    it("one process's waits on other processes' leases read together: one MGET per poll, not one per key", async () => {
      const { counted, reads } = countingMgets(redis);
      const options = { ttlMs: 60_000, maxEntries: 100, redis: { client: counted, prefix } };
      const cache = cachedBuyerIntel(client, options);
      const keyOf = (i: number) => `${prefix}attributes:${JSON.stringify([buyerId(i), 'Type'])}`;
      // Another live process holds the leases of 20 keys; this one's accounts ask for them a few ms
      // apart, as a chunk's accounts reach their buyers.
      await redis.set(`${prefix}~alive:4250`, '1', 'PX', 60_000);
      const ids = Array.from({ length: 20 }, (_, i) => 20 + i);
      for (const i of ids) await redis.set(keyOf(i), `~lease:4250:k${i}`, 'PX', 60_000);
      const waits: Promise<unknown>[] = [];
      for (const i of ids) {
        waits.push(cache.getBuyerAttributesBulk(buyerId(i), ['Type']));
        await sleep(7);
      }
      await sleep(2_500);
      const polled = reads();
      for (const i of ids) {
        const answer = { buyerId: buyerId(i), attributes: { Type: 'answered by the other process' } };
        await redis.set(keyOf(i), JSON.stringify(answer), 'PX', 60_000);
      }
      await expect(Promise.all(waits)).resolves.toHaveLength(20);
      expect(sandbox.stats.count('getBuyerAttributesBulk')).toBe(0);
      expect(cache.stats.sharedWaits).toBe(20);
      // ~2.6 s of waiting: ~30 polls of each key. Each key on its own timer read alone (~600 MGETs);
      // together, a few per poll while the keys' spacings differ, then one.
      expect(polled).toBeGreaterThan(5);
      expect(polled).toBeLessThan(150);
    });

    it("a holder's key is set once per half lease while its leases come and go, and lives while it holds one", async () => {
      let alive = 0;
      const counted = new Proxy(redis, {
        get(target, name) {
          const value = Reflect.get(target, name, target);
          if (typeof value !== 'function') return value;
          if (name !== 'set') return value.bind(target);
          return (...args: Parameters<Redis['set']>) => {
            if (String(args[0]).includes('~alive:')) alive++;
            return (target.set as (...a: unknown[]) => unknown)(...args);
          };
        },
      });
      const leases = cacheLeases({ client: counted, prefix, leaseMs: 600, holdMs: 10_000 });
      // Five misses one after another, each its lease and its end: the key is set once.
      let lease = '';
      for (let i = 0; i < 5; i++) {
        lease = (await leases.take(`${prefix}lease-test:${i}`)) ?? '';
        expect(await redis.exists(leases.holderKeyOf(lease))).toBe(1);
        await leases.done(`${prefix}lease-test:${i}`, lease, false);
      }
      expect(alive).toBe(1);
      // A lease held past the key's life: renewed every half lease, so a waiter still finds it.
      const held = (await leases.take(`${prefix}lease-test:held`)) ?? '';
      await sleep(1_000);
      expect(await redis.exists(leases.holderKeyOf(held))).toBe(1);
      expect(alive).toBeGreaterThanOrEqual(3);
      await leases.done(`${prefix}lease-test:held`, held, false);
      // Held by nobody: the key lapses, and a waiter takes a dead holder's leases over.
      await sleep(700);
      expect(await redis.exists(leases.holderKeyOf(held))).toBe(0);
    });

    it('a process whose lease holder fails calls upstream itself; the error is cached nowhere', async () => {
      const options = { ttlMs: 60_000, maxEntries: 100, redis: { client: redis, prefix } };
      const a = cachedBuyerIntel(client, options);
      const b = cachedBuyerIntel(client, options);
      sandbox.faults.inject({ kind: 'status', status: 500, match: 'getBuyerAttributesBulk' });
      const [x, y] = await Promise.allSettled([
        a.getBuyerAttributesBulk(buyerId(5), ['Name']),
        (async () => {
          await sleep(5);
          return b.getBuyerAttributesBulk(buyerId(5), ['Name']);
        })(),
      ]);
      expect(x.status).toBe('rejected');
      expect(y).toMatchObject({ status: 'fulfilled', value: { buyerId: buyerId(5) } });
      expect(sandbox.stats.count('getBuyerAttributesBulk')).toBe(2);
      await a.getBuyerAttributesBulk(buyerId(5), ['Name']);
      expect(a.stats.sharedHits).toBe(1);
      expect(sandbox.stats.count('getBuyerAttributesBulk')).toBe(2);
    });
  });

  describe('a call a person waits on (a webhook, a refresh) never waits behind a backfill’s', () => {
    /** A provider whose backfill calls hang until released (far back in its pace), a person's answer at once. */
    function stalledBackfill() {
      let release = () => {};
      const held = new Promise<void>((r) => {
        release = r;
      });
      const calls: string[] = [];
      const stub = {
        async getBuyerAttributesBulk(id: string) {
          const who = calls.length === 0 ? 'backfill' : 'person';
          calls.push(who);
          if (who === 'backfill') await held;
          return { buyerId: id, buyerData: { Name: who } };
        },
      } as unknown as BuyerIntelClient;
      return { stub, calls, release };
    }

    it('in one process: it makes its own call, and later calls join it', async () => {
      const { stub, calls, release } = stalledBackfill();
      const cached = cachedBuyerIntel(stub, { ttlMs: 60_000, maxEntries: 100 });
      const backfill = cached.getBuyerAttributesBulk('b1', ['Name']);
      const person = await runUrgent(() => cached.getBuyerAttributesBulk('b1', ['Name']));
      expect(person.buyerData?.Name).toBe('person');
      // Another backfill account of the buyer: the person's answer, not a wait on the stalled call.
      expect((await cached.getBuyerAttributesBulk('b1', ['Name'])).buyerData?.Name).toBe('person');
      expect(calls).toEqual(['backfill', 'person']);
      release();
      await backfill;
    });

    it('across processes: it does not wait on another process’s lease', async () => {
      const redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
      const prefix = `bis-test-cache-${randomUUID().slice(0, 8)}:`;
      try {
        const { stub, calls, release } = stalledBackfill();
        const options = { ttlMs: 60_000, maxEntries: 100, redis: { client: redis, prefix } };
        const a = cachedBuyerIntel(stub, options);
        const b = cachedBuyerIntel(stub, options);
        const backfill = a.getBuyerAttributesBulk('b2', ['Name']);
        await eventually(async () => calls.length === 1, 'the backfill’s call holding the lease');
        // Answered while the backfill's call still holds its lease: it called upstream itself.
        const person = await runUrgent(() => b.getBuyerAttributesBulk('b2', ['Name']));
        expect(person.buyerData?.Name).toBe('person');
        expect(calls).toEqual(['backfill', 'person']);
        release();
        await backfill;
      } finally {
        const keys = await redis.keys(`${prefix}*`);
        if (keys.length) await redis.del(...keys);
        redis.disconnect();
      }
    });
  });
});
