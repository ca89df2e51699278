// What a run's accounts of neighbouring buyers cost: one resolver (one worker process) resolves them in
// turn, against the sandbox over real HTTP, searches counted at the sandbox; every decision is compared
// with the one a resolver that keeps nothing makes for the same account alone.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningBuyerIntelSandbox } from '../../emulators/buyer-intel/server.ts';
import { cachedBuyerIntel } from '../../src/buyer-intel/cache.ts';
import type { BuyerIntelClient } from '../../src/buyer-intel/index.ts';
import { Resolver } from '../../src/resolve/resolver.ts';
import type { AccountForMatching, MatchDecision } from '../../src/resolve/types.ts';
import { clientFor, startSandbox } from '../helpers/buyer-intel-sandbox.ts';

let sandbox: RunningBuyerIntelSandbox;
let client: BuyerIntelClient;

beforeAll(async () => {
  sandbox = await startSandbox();
  ({ client } = clientFor(sandbox));
});

afterAll(async () => {
  await sandbox.close();
});

const searches = () => sandbox.stats.count('searchBuyers');
let n = 0;
const account = (name: string, state: string | null, website: string | null = null): AccountForMatching => ({
  id: String(++n),
  name,
  state,
  website,
});

/** The decision, and the searches it cost. */
async function resolved(resolver: Resolver, a: AccountForMatching) {
  const before = searches();
  const decision = await resolver.resolve(a);
  return { decision, searched: searches() - before };
}

/** What a resolver that keeps no answer decides for the account alone. */
async function alone(a: AccountForMatching): Promise<MatchDecision> {
  return new Resolver({ client, options: { sharedAnswerTtlSeconds: 0 } }).resolve(a);
}

const outcome = (d: MatchDecision) => (d.status === 'matched' ? `matched ${d.buyerId}` : d.status);

describe('the buyers earlier searches found, offered to the next accounts', () => {
  it('"Erie County" then "City of Erie" in PA: the city is matched from the county\'s answer, as its own search would', async () => {
    const resolver = new Resolver({ client });
    const county = await resolved(resolver, account('Erie County', 'PA'));
    expect(county.searched).toBeGreaterThan(0);
    const city = await resolved(resolver, account('City of Erie', 'PA'));
    expect(city.searched).toBe(0);
    expect(city.decision.status).toBe('matched');
    expect(outcome(city.decision)).toBe(outcome(await alone(account('City of Erie', 'PA'))));
  });

  it('a bare place name still searches: the kinds of buyer it may mean are what its own search finds', async () => {
    const resolver = new Resolver({ client });
    await resolved(resolver, account('Erie County', 'PA'));
    const bare = await resolved(resolver, account('Erie', 'PA'));
    expect(bare.searched).toBeGreaterThan(0);
    expect(outcome(bare.decision)).toBe(outcome(await alone(account('Erie', 'PA'))));
  });

  it('nothing is kept across states: the same name in another state searches', async () => {
    const resolver = new Resolver({ client });
    await resolved(resolver, account('Erie County', 'PA'));
    const elsewhere = await resolved(resolver, account('City of Erie', 'NY'));
    expect(elsewhere.searched).toBeGreaterThan(0);
  });
});

describe('an account whose search waits for its slot in the pace', () => {
  it('"City of Erie" behind "Erie County": the county\'s answer matches it while it waits, and its search is never sent', async () => {
    const expected = outcome(await alone(account('City of Erie', 'PA')));
    const county = await resolved(
      new Resolver({ client, options: { sharedAnswerTtlSeconds: 0 } }),
      account('Erie County', 'PA'),
    );
    // Two searches a second, one at a time: the city's first search waits half a second behind the
    // county's, as the service's client and cache call it (the cache lets a given-up call go).
    const paced = clientFor(sandbox, { rateLimit: { ratePerSecond: 2, burst: 1 } }).client;
    const resolver = new Resolver({ client: cachedBuyerIntel(paced, { ttlMs: 0, maxEntries: 100 }) });
    const before = searches();
    const [, city] = await Promise.all([
      resolver.resolve(account('Erie County', 'PA')),
      resolver.resolve(account('City of Erie', 'PA')),
    ]);
    expect(city.status).toBe('matched');
    expect(outcome(city)).toBe(expected);
    expect(searches() - before).toBe(county.searched);
  });
});

describe("a company's legal form", () => {
  it('without a web address or email domain is no match without a search; with one, the search is made', async () => {
    const resolver = new Resolver({ client });
    const bare = await resolved(resolver, account('Erie Consulting Group LLC', 'PA'));
    expect(bare.searched).toBe(0);
    expect(bare.decision.status).toBe('no_match');
    expect(bare.decision.explanation).toContain("company's legal form");
    const withSite = await resolved(
      resolver,
      account('Erie Consulting Group LLC', 'PA', 'erieconsulting.com'),
    );
    expect(withSite.searched).toBeGreaterThan(0);
  });
});
