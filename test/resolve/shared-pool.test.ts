// The pool of search answers shared by the workers of one install (src/resolve/shared-pool.ts): two
// resolvers, each as one worker process builds it (its own pool, its own feed on the install's stream),
// against the sandbox over real HTTP and the real Redis; searches counted at the sandbox. What one
// worker's searches found matches another worker's account without a search, as it would have matched
// in the first worker; without the stream (deleted, unreadable, Redis gone) the account searches.
// @redis-cluster: the pool is one hash-tagged stream, so it also runs on a Redis Cluster.
import { Redis } from 'ioredis';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { RunningBuyerIntelSandbox } from '../../emulators/buyer-intel/server.ts';
import type { BuyerIntelClient } from '../../src/buyer-intel/index.ts';
import { Resolver } from '../../src/resolve/resolver.ts';
import { redisPoolFeed } from '../../src/resolve/shared-pool.ts';
import type { AccountForMatching, MatchDecision } from '../../src/resolve/types.ts';
import { clientFor, startSandbox } from '../helpers/buyer-intel-sandbox.ts';
import { deleteKeysOf, testPrefix, testRedis } from '../helpers/redis.ts';

let sandbox: RunningBuyerIntelSandbox;
let client: BuyerIntelClient;
const redis = testRedis();
let prefix = testPrefix('test-shared-pool');
const streamKey = () => `${prefix}:pool`;
const TTL_S = 600;

beforeAll(async () => {
  sandbox = await startSandbox();
  ({ client } = clientFor(sandbox));
});

beforeEach(async () => {
  await deleteKeysOf(redis, prefix);
  prefix = testPrefix('test-shared-pool');
});

afterAll(async () => {
  await deleteKeysOf(redis, prefix);
  redis.disconnect();
  await sandbox.close();
});

const searches = () => sandbox.stats.count('searchBuyers');
let n = 0;
const account = (name: string, state: string): AccountForMatching => ({
  id: String(++n),
  name,
  state,
  website: null,
});

/** One worker process of the install: a resolver with its own pool, exchanging it through `on`. */
function worker(on: Redis = redis) {
  const feed = redisPoolFeed({ redis: on, key: streamKey(), ttlMs: TTL_S * 1000 });
  const resolver = new Resolver({ client, poolFeed: feed, options: { sharedAnswerTtlSeconds: TTL_S } });
  return { feed, resolver };
}

/** The decision, and the searches it cost. */
async function resolved(resolver: Resolver, a: AccountForMatching) {
  const before = searches();
  const decision = await resolver.resolve(a);
  return { decision, searched: searches() - before };
}

/** What a resolver that keeps no answer decides for the account alone. */
const alone = (a: AccountForMatching): Promise<MatchDecision> =>
  new Resolver({ client, options: { sharedAnswerTtlSeconds: 0 } }).resolve(a);

const outcome = (d: MatchDecision) => (d.status === 'matched' ? `matched ${d.buyerId}` : d.status);

/** Worker A resolves "Erie County" in PA and sends its answers to the stream. */
async function firstWorkerSearches() {
  const a = worker();
  const county = await resolved(a.resolver, account('Erie County', 'PA'));
  expect(county.searched).toBeGreaterThan(0);
  await a.feed.flush();
  return a;
}

describe('one pool of search answers for every worker of an install', () => {
  it('"City of Erie" in worker B after worker A searched "Erie County": no search, the decision its own search makes', async () => {
    await firstWorkerSearches();
    expect(await redis.pttl(streamKey())).toBeGreaterThan(0);
    const b = worker();
    const city = await resolved(b.resolver, account('City of Erie', 'PA'));
    expect(city.searched).toBe(0);
    expect(city.decision.status).toBe('matched');
    expect(outcome(city.decision)).toBe(outcome(await alone(account('City of Erie', 'PA'))));
  });

  it("the rule of a pooled match holds for another worker's answer: a bare place name still searches", async () => {
    await firstWorkerSearches();
    const bare = await resolved(worker().resolver, account('Erie', 'PA'));
    expect(bare.searched).toBeGreaterThan(0);
    expect(outcome(bare.decision)).toBe(outcome(await alone(account('Erie', 'PA'))));
  });

  it('with the stream deleted, worker B searches and decides as it would alone', async () => {
    await firstWorkerSearches();
    await redis.del(streamKey());
    const city = await resolved(worker().resolver, account('City of Erie', 'PA'));
    expect(city.searched).toBeGreaterThan(0);
    expect(outcome(city.decision)).toBe(outcome(await alone(account('City of Erie', 'PA'))));
  });

  it('an entry that is not an answer is skipped: worker B searches', async () => {
    const answer = { k: 'k', s: 'PA', l: 30, b: [[0, { id: 'b1', name: 'Erie City' }]] };
    // A buyer without its name, a reply that is no JSON, an entry without its answers.
    await redis.xadd(
      streamKey(),
      '*',
      'f',
      'x',
      'a',
      JSON.stringify([{ ...answer, b: [[0, { id: 'b1' }]] }]),
    );
    await redis.xadd(streamKey(), '*', 'f', 'x', 'a', '{not json');
    await redis.xadd(streamKey(), '*', 'f', 'x', 'b', JSON.stringify([answer]));
    await redis.pexpire(streamKey(), TTL_S * 1000);
    const city = await resolved(worker().resolver, account('City of Erie', 'PA'));
    expect(city.searched).toBeGreaterThan(0);
    expect(city.decision.status).toBe('matched');
  });

  it('the stream stays bounded: entries of at most maxEntryChars, trimmed to about maxEntries', async () => {
    const feed = redisPoolFeed({
      redis,
      key: streamKey(),
      ttlMs: TTL_S * 1000,
      maxEntries: 10,
      maxEntryChars: 4_000,
    });
    const buyer = (i: number) => ({ id: `b${i}`, name: `Buyer number ${i} of Erie County`, stateCode: 'PA' });
    for (let i = 0; i < 1_000; i++) {
      const buyers = Array.from({ length: 10 }, (_, j) => ({ buyer: buyer(i * 10 + j), rank: j }));
      feed.publish({ search: `search ${i}`, state: 'PA', limit: 30, buyers });
    }
    // Too large for one entry: kept by the worker that received it, never sent.
    const many = Array.from({ length: 200 }, (_, j) => ({ buyer: buyer(10_000 + j), rank: j }));
    feed.publish({ search: 'large', state: 'PA', limit: 30, buyers: many });
    // One connection answers in order: once the last batch is written, every earlier one is.
    await feed.flush();
    const entries = await redis.xrange(streamKey(), '-', '+');
    // ~250 entries written; approximate trimming drops whole nodes (of at most 100 entries).
    expect(entries.length).toBeGreaterThan(0);
    expect(entries.length).toBeLessThan(110);
    for (const [, fields] of entries) expect(fields[3]?.length ?? 0).toBeLessThanOrEqual(4_000);
    expect(entries.some(([, fields]) => fields[3]?.includes('b10000'))).toBe(false);
    expect(await redis.pttl(streamKey())).toBeGreaterThan(0);
  });

  it("the stream's expiry is pushed out once per quarter TTL, and outlasts every entry by the TTL", async () => {
    let expiries = 0;
    // The feed's connection, counting the PEXPIREs its writes carry.
    const counted = new Proxy(redis, {
      get(target, name) {
        const value = Reflect.get(target, name, target);
        if (name !== 'pipeline') return typeof value === 'function' ? value.bind(target) : value;
        return () => {
          const p = target.pipeline();
          const pexpire = p.pexpire.bind(p) as (...args: unknown[]) => typeof p;
          p.pexpire = ((...args: unknown[]) => {
            expiries++;
            return pexpire(...args);
          }) as typeof p.pexpire;
          return p;
        };
      },
    });
    const ttlMs = 4_000;
    const feed = redisPoolFeed({ redis: counted, key: streamKey(), ttlMs });
    const buyers = [{ buyer: { id: 'b1', name: 'Erie County', stateCode: 'PA' }, rank: 0 }];
    for (let i = 0; i < 5; i++) {
      feed.publish({ search: `erie ${i}`, state: 'PA', limit: 30, buyers });
      await feed.flush();
      // Every entry lives at least the TTL from its write.
      expect(await redis.pttl(streamKey())).toBeGreaterThanOrEqual(ttlMs - 200);
    }
    expect(await redis.xlen(streamKey())).toBe(5);
    expect(expiries).toBe(1);
    // A quarter TTL later, the next write pushes it out again.
    await new Promise((r) => setTimeout(r, ttlMs / 4));
    feed.publish({ search: 'erie later', state: 'PA', limit: 30, buyers });
    await feed.flush();
    expect(expiries).toBe(2);
    expect(await redis.pttl(streamKey())).toBeGreaterThan(ttlMs);
  });

  it('with Redis unreachable, worker B searches and decides as it would alone', async () => {
    await firstWorkerSearches();
    const gone = new Redis({
      port: 1,
      lazyConnect: true,
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      retryStrategy: () => null,
    });
    gone.on('error', () => undefined);
    try {
      const b = worker(gone);
      const city = await resolved(b.resolver, account('City of Erie', 'PA'));
      expect(city.searched).toBeGreaterThan(0);
      expect(outcome(city.decision)).toBe(outcome(await alone(account('City of Erie', 'PA'))));
      await b.feed.flush();
    } finally {
      gone.disconnect();
    }
  });
});
