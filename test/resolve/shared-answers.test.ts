// What accounts of one buyer cost at the Buyer Intelligence API when two workers resolve them: each
// worker as the service builds it (the cache in front of the client sharing through Redis, the resolver
// keeping its matches in Redis), against the sandbox over real HTTP, searches counted at the sandbox.
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningBuyerIntelSandbox } from '../../emulators/buyer-intel/server.ts';
import { cachedBuyerIntel } from '../../src/buyer-intel/cache.ts';
import type { BuyerIntelClient } from '../../src/buyer-intel/index.ts';
import { Resolver, redisMatchCache } from '../../src/resolve/resolver.ts';
import type { AccountForMatching, MatchDecision } from '../../src/resolve/types.ts';
import { clientFor, startSandbox } from '../helpers/buyer-intel-sandbox.ts';
import { eventually } from '../helpers/poll.ts';

let sandbox: RunningBuyerIntelSandbox;
let client: BuyerIntelClient;
let redis: Redis;
const root = `test:shared-answers:${randomUUID().slice(0, 8)}:`;

beforeAll(async () => {
  sandbox = await startSandbox({ faults: { latencyMs: 20 } });
  ({ client } = clientFor(sandbox));
  redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
});

afterAll(async () => {
  const keys = await redis.keys(`${root}*`);
  if (keys.length) await redis.del(...keys);
  await redis.quit();
  await sandbox.close();
});

const searches = () => sandbox.stats.count('searchBuyers');

/** One deployment (its own Redis keys); each `worker()` is one more process of it. */
function deployment(ttlSeconds = 600) {
  const prefix = `${root}${randomUUID().slice(0, 8)}:`;
  return {
    prefix,
    worker() {
      const cached = cachedBuyerIntel(client, {
        ttlMs: 300_000,
        searchTtlMs: ttlSeconds * 1000,
        maxEntries: 1_000,
        redis: { client: redis, prefix: `${prefix}bi:` },
      });
      return new Resolver({
        client: cached,
        cache: redisMatchCache(redis, `${prefix}match:`),
        options: { sharedAnswerTtlSeconds: ttlSeconds },
      });
    },
  };
}

const account = (name: string, state: string | null, website: string | null = null): AccountForMatching => ({
  id: randomUUID(),
  name,
  state,
  website,
});

const buyerId = (name: string, state: string) =>
  sandbox.dataset.buyers.find((b) => b.name === name && b.stateCode === state)?.id;

/** Every candidate's signals add up to its score: the decision was scored, not copied. */
function expectScored(decision: MatchDecision): void {
  expect(decision.candidates.length).toBeGreaterThan(0);
  for (const c of decision.candidates)
    expect(c.signals.reduce((s, x) => s + x.points, 0)).toBeCloseTo(c.score, 9);
}

describe('accounts of one buyer in two workers', () => {
  it('"Travis Co." then "County of Travis": the second searches nothing and is scored by its own name', async () => {
    const d = deployment();
    const before = searches();
    const first = await d.worker().resolve(account('Travis Co.', 'TX'));
    const made = searches() - before;
    expect(made).toBeGreaterThan(0);
    const second = await d.worker().resolve(account('County of Travis', 'TX'));
    expect(searches() - before).toBe(made);
    const travis = buyerId('Travis County', 'TX');
    expect(first).toMatchObject({ status: 'matched', buyerId: travis, source: 'search' });
    expect(second).toMatchObject({ status: 'matched', buyerId: travis, source: 'search' });
    // Each is explained by how its own name reads.
    expect(first.explanation).toContain('name equal after expanding Co');
    expect(second.explanation).toContain('"Travis County" (TX) with 0.87: name equal, state TX');
    expectScored(second);
  });

  it('the same name in two workers at once costs one search, whatever its case and punctuation', async () => {
    const d = deployment();
    const before = searches();
    const [a, b] = await Promise.all([
      d.worker().resolve(account('City of Austin', 'TX')),
      d.worker().resolve(account('CITY OF AUSTIN.', 'TX')),
    ]);
    expect(searches() - before).toBe(1);
    expect(a).toMatchObject({ status: 'matched', buyerId: buyerId('City of Austin', 'TX') });
    expect(b).toMatchObject({ status: 'matched', buyerId: buyerId('City of Austin', 'TX') });
  });

  it('an answer that matched another account but not this one: it searches as if none were kept', async () => {
    const d = deployment();
    const withSite = await d.worker().resolve(account('St. Louis', 'MO', 'https://www.stlouismo.gov'));
    expect(withSite).toMatchObject({ status: 'matched', buyerId: buyerId('City of St. Louis', 'MO') });
    // "Saint Louis" reads the same, but without the website the kept candidates leave the city, the
    // county and the departments within the margin: it makes its own search, and ends as it would have
    // with nothing kept.
    const alone = await new Resolver({ client }).resolve(account('Saint Louis', 'MO'));
    const before = searches();
    const bare = await d.worker().resolve(account('Saint Louis', 'MO'));
    expect(searches() - before).toBeGreaterThan(0);
    expect(bare).toEqual(alone);
    expect(bare.status).toBe('needs_review');
  });

  it('once the kept answer has expired, the next account of the name searches again', async () => {
    const d = deployment(1);
    const before = searches();
    await d.worker().resolve(account('Travis Co.', 'TX'));
    const made = searches() - before;
    // Redis expires the kept answer and the search's by its own clock: wait for that (bounded).
    const kept = async () => [
      ...(await redis.keys(`${d.prefix}match:answer:*`)),
      ...(await redis.keys(`${d.prefix}bi:search:*`)),
    ];
    expect(await kept()).not.toEqual([]);
    await eventually(async () => (await kept()).length === 0, 'Redis expiring the kept answers');
    const again = await d.worker().resolve(account('County of Travis', 'TX'));
    expect(searches() - before).toBeGreaterThan(made);
    expect(again).toMatchObject({ status: 'matched', buyerId: buyerId('Travis County', 'TX') });
  });
});
