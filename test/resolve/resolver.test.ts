// The resolver against the Buyer Intelligence sandbox over real HTTP, with its cache on real Redis.
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SandboxBuyer } from '../../emulators/buyer-intel/data/dataset.ts';
import type { RunningBuyerIntelSandbox } from '../../emulators/buyer-intel/server.ts';
import type { BuyerIntelClient } from '../../src/buyer-intel/index.ts';
import { Resolver, redisMatchCache } from '../../src/resolve/resolver.ts';
import type { AccountForMatching, MatchDecision, ScoredCandidate } from '../../src/resolve/types.ts';
import { clientFor, startSandbox } from '../helpers/buyer-intel-sandbox.ts';

let sandbox: RunningBuyerIntelSandbox;
let client: BuyerIntelClient;
let urls: string[];
let redis: Redis;
const prefix = `test:resolve:${randomUUID()}:`;

beforeAll(async () => {
  sandbox = await startSandbox();
  ({ client, urls } = clientFor(sandbox));
  redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
});

afterAll(async () => {
  const keys = await redis.keys(`${prefix}*`);
  if (keys.length) await redis.del(...keys);
  await redis.quit();
  await sandbox.close();
});

function buyer(name: string, stateCode: string): SandboxBuyer {
  const found = sandbox.dataset.buyers.find((b) => b.name === name && b.stateCode === stateCode);
  if (!found) throw new Error(`the sandbox has no ${name} in ${stateCode}`);
  return found;
}

const account = (over: Partial<AccountForMatching> & { name: string | null }): AccountForMatching => ({
  id: randomUUID(),
  state: null,
  website: null,
  ...over,
});

const searches = () => sandbox.stats.count('searchBuyers');

/** Resolves and counts the searches it made. */
async function resolveCounting(
  resolver: Resolver,
  acct: AccountForMatching,
): Promise<{ decision: MatchDecision; calls: number }> {
  const before = searches();
  const decision = await resolver.resolve(acct);
  return { decision, calls: searches() - before };
}

function expectExplained(decision: MatchDecision): void {
  expect(decision.explanation.length).toBeGreaterThan(20);
  if (decision.status === 'no_match') return;
  expect(decision.candidates.length).toBeGreaterThan(0);
  expect(decision.candidates.length).toBeLessThanOrEqual(5);
  for (const c of decision.candidates) {
    expect(c.score).toBeGreaterThanOrEqual(0);
    expect(c.score).toBeLessThanOrEqual(1);
    expect(c.signals.reduce((s, x) => s + x.points, 0)).toBeCloseTo(c.score, 9);
    for (const s of c.signals) expect(s.detail).not.toBe('');
  }
  const scores = decision.candidates.map((c) => c.score);
  expect(scores).toEqual([...scores].sort((a, b) => b - a));
}

const ids = (candidates: ScoredCandidate[]) => candidates.map((c) => c.buyerId);

describe('Resolver against the sandbox', () => {
  it('"City of Austin" in TX is the Texas city: not Minnesota, not the county', async () => {
    const resolver = new Resolver({ client });
    const { decision, calls } = await resolveCounting(
      resolver,
      account({ name: 'City of Austin', state: 'TX' }),
    );
    expect(calls).toBe(1);
    expect(decision.status).toBe('matched');
    if (decision.status !== 'matched') return;
    expect(decision.buyerId).toBe(buyer('City of Austin', 'TX').id);
    expect(decision.buyerId).not.toBe(buyer('City of Austin', 'MN').id);
    expect(decision.buyerId).not.toBe(buyer('Austin County', 'TX').id);
    expect(decision.source).toBe('search');
    expect(decision.buyerName).toBe('City of Austin');
    expect(decision.confidence).toBeGreaterThanOrEqual(0.75);
    expect(decision.explanation).toMatch(
      /^Matched "City of Austin" \(TX\) with 0\.\d\d: name equal, state TX/,
    );
    expectExplained(decision);
  });

  it('"Austin ISD" in Texas is the Austin Independent School District', async () => {
    const { decision } = await resolveCounting(
      new Resolver({ client }),
      account({ name: 'Austin ISD', state: 'Texas' }),
    );
    expect(decision.status).toBe('matched');
    if (decision.status !== 'matched') return;
    expect(decision.buyerId).toBe(buyer('Austin Independent School District', 'TX').id);
    expect(decision.explanation).toContain('after expanding ISD');
    const top = decision.candidates[0];
    expect(top?.signals.find((s) => s.signal === 'name')).toMatchObject({
      points: 0.55,
      detail: expect.stringContaining('core tokens equal'),
    });
    expectExplained(decision);
  });

  it('"Austin" in TX with no other hint needs review, listing the city, the county and the ISD with scores', async () => {
    const { decision } = await resolveCounting(
      new Resolver({ client }),
      account({ name: 'Austin', state: 'TX' }),
    );
    expect(decision.status).toBe('needs_review');
    if (decision.status !== 'needs_review') return;
    expect(ids(decision.candidates)).toEqual(
      expect.arrayContaining([
        buyer('City of Austin', 'TX').id,
        buyer('Austin County', 'TX').id,
        buyer('Austin Independent School District', 'TX').id,
      ]),
    );
    expect(decision.candidates.every((c) => c.stateCode === 'TX')).toBe(true);
    expect(decision.confidence).toBe(decision.candidates[0]?.score);
    expect(decision.explanation).toContain('within 0.1');
    expectExplained(decision);
  });

  it('"Springfield" without a state needs review, with Springfields of several states', async () => {
    const { decision } = await resolveCounting(new Resolver({ client }), account({ name: 'Springfield' }));
    expect(decision.status).toBe('needs_review');
    if (decision.status !== 'needs_review') return;
    expect(new Set(decision.candidates.map((c) => c.stateCode)).size).toBeGreaterThan(1);
    expect(decision.candidates.every((c) => c.name.includes('Springfield'))).toBe(true);
    expect(decision.candidates[0]?.signals.find((s) => s.signal === 'state')?.detail).toBe(
      'account has no state; not compared',
    );
    expectExplained(decision);
  });

  it('"Springfield" in IL with the city’s website is the Illinois city', async () => {
    const springfieldIL = buyer('City of Springfield', 'IL');
    expect(springfieldIL.url).toBeTruthy();
    const { decision } = await resolveCounting(
      new Resolver({ client }),
      account({ name: 'Springfield', state: 'IL', website: springfieldIL.url }),
    );
    expect(decision.status).toBe('matched');
    if (decision.status !== 'matched') return;
    expect(decision.buyerId).toBe(springfieldIL.id);
    expect(decision.explanation).toContain(
      `website ${new URL(springfieldIL.url ?? '').hostname.replace(/^www\./, '')}`,
    );
    expectExplained(decision);
  });

  it('"City of Austin" in "Minnesota" is the Minnesota city', async () => {
    const { decision } = await resolveCounting(
      new Resolver({ client }),
      account({ name: 'City of Austin', state: 'Minnesota' }),
    );
    expect(decision.status).toBe('matched');
    if (decision.status !== 'matched') return;
    expect(decision.buyerId).toBe(buyer('City of Austin', 'MN').id);
    expectExplained(decision);
  });

  it('a nonsense name is no_match, after one search in its state and one across states', async () => {
    const { decision, calls } = await resolveCounting(
      new Resolver({ client }),
      account({ name: 'Zzyzx Flux Capacitor Authority', state: 'TX' }),
    );
    expect(decision.status).toBe('no_match');
    expect(decision.candidates).toEqual([]);
    expect(decision.explanation).toMatch(/^No match for "Zzyzx Flux Capacitor Authority"/);
    expect(decision.explanation).toContain('in any state');
    expect(calls).toBe(2);
  });

  it('an account without a name is no_match without a search', async () => {
    const { decision, calls } = await resolveCounting(new Resolver({ client }), account({ name: '  ' }));
    expect(decision.status).toBe('no_match');
    expect(calls).toBe(0);
  });

  describe('a state mismatch never matches', () => {
    // The real API silently ignores a state it does not recognise: this client sends none at all, so
    // the results come from every state and only our own check stands between them and a match.
    const stateIgnoring = (): Pick<BuyerIntelClient, 'searchBuyers'> => ({
      searchBuyers: ({ buyerStateCode: _ignored, ...rest }) => client.searchBuyers(rest),
    });

    it('with namesakes in other states only, a person chooses: listed, never matched on the name alone', async () => {
      const { decision } = await resolveCounting(
        new Resolver({ client: stateIgnoring() }),
        account({ name: 'City of Austin', state: 'WY' }),
      );
      expect(decision.status).toBe('needs_review');
      expect(decision.candidates.length).toBeGreaterThan(0);
      for (const c of decision.candidates) {
        expect(c.stateCode).not.toBe('WY');
        expect(c.signals).toContainEqual({
          signal: 'state',
          points: -0.3,
          detail: `account in WY, buyer in ${c.stateCode}`,
        });
      }
      expect(decision.explanation).toContain('not WY');
    });

    it('a website pointing at another state’s namesake contradicts the state field: a person chooses', async () => {
      const { decision } = await resolveCounting(
        new Resolver({ client: stateIgnoring() }),
        account({ name: 'City of Austin', state: 'Minnesota', website: 'https://www.austintexas.gov' }),
      );
      expect(decision.status).toBe('needs_review');
      const ids = decision.candidates.map((c) => c.buyerId);
      expect(ids).toContain(buyer('City of Austin', 'MN').id);
      expect(ids).toContain(buyer('City of Austin', 'TX').id);
    });

    it('over many names, every matched buyer is in the account’s state', async () => {
      const resolver = new Resolver({ client: stateIgnoring() });
      const cases: [string, string][] = [
        ['Springfield', 'OR'],
        ['City of Springfield', 'MA'],
        ['Springfield Public Schools', 'MO'],
        ['Portland', 'ME'],
        ['City of Columbus', 'GA'],
        ['Kansas City', 'KS'],
        ['Austin', 'MN'],
      ];
      for (const [name, state] of cases) {
        const { decision } = await resolveCounting(resolver, account({ name, state }));
        if (decision.status === 'matched') expect(buyerState(decision.buyerId), name).toBe(state);
        // Another state's buyer is listed only below the account's own.
        const first = decision.candidates[0];
        if (first && decision.candidates.some((c) => c.stateCode === state))
          expect(first.stateCode, name).toBe(state);
        expectExplained(decision);
      }
    });
  });

  it('an unrecognised state searches without a state and compares none', async () => {
    const before = urls.length;
    const { decision } = await resolveCounting(
      new Resolver({ client }),
      account({ name: 'City of Austin', state: 'Tejas' }),
    );
    const sent = urls.slice(before);
    // The name only, never with a state: its candidates read exactly as it does, so the name written
    // another way ("austin") would find the same Austins again.
    expect(sent).toHaveLength(1);
    for (const url of sent) expect(new URL(url).searchParams.has('buyerStateCode')).toBe(false);
    expect(decision.status).toBe('needs_review');
    if (decision.status !== 'needs_review') return;
    expect(ids(decision.candidates).slice(0, 2).sort()).toEqual(
      [buyer('City of Austin', 'TX').id, buyer('City of Austin', 'MN').id].sort(),
    );
    expect(decision.candidates[0]?.signals).toContainEqual({
      signal: 'state',
      points: 0,
      detail: 'account state "Tejas" not recognised; not compared',
    });
    expectExplained(decision);
  });

  it('a pinned buyer id wins and skips the search', async () => {
    const before = searches();
    const pinned = buyer('Travis County', 'TX').id;
    const decision = await new Resolver({ client }).resolve(
      account({ name: 'City of Austin', state: 'TX', pinnedBuyerId: pinned }),
    );
    expect(searches() - before).toBe(0);
    expect(decision).toMatchObject({ status: 'matched', buyerId: pinned, source: 'pinned', confidence: 1 });
  });

  it('retries once with the canonical name when the first search finds nothing', async () => {
    const queries: string[] = [];
    // A stricter search than the sandbox's: nothing for the census-style name as typed.
    const strict: Pick<BuyerIntelClient, 'searchBuyers'> = {
      searchBuyers: (params) => {
        queries.push(params.buyerName);
        return params.buyerName === 'Austin city'
          ? Promise.resolve({ buyers: [] })
          : client.searchBuyers(params);
      },
    };
    const decision = await new Resolver({ client: strict }).resolve(
      account({ name: 'Austin city', state: 'MN' }),
    );
    expect(queries).toEqual(['Austin city', 'austin']);
    expect(decision.status).toBe('matched');
    if (decision.status === 'matched') expect(decision.buyerId).toBe(buyer('City of Austin', 'MN').id);
  });

  describe('with the Redis cache', () => {
    it('an account resolved again is read as it is now: a name corrected since finds its own buyer', async () => {
      const resolver = new Resolver({ client, cache: redisMatchCache(redis, prefix) });
      const acct = account({ name: 'Austin ISD', state: 'TX' });
      const first = await resolveCounting(resolver, acct);
      expect(first.decision).toMatchObject({ status: 'matched', source: 'search' });
      // A person corrects the name (no buyer pinned yet): no match made for the old name comes back.
      const second = await resolveCounting(resolver, { ...acct, name: 'Travis County' });
      expect(second.calls).toBeGreaterThan(0);
      expect(second.decision).toMatchObject({
        status: 'matched',
        source: 'search',
        buyerId: buyer('Travis County', 'TX').id,
      });
    });

    it('an unreadable kept answer is ignored: the account searches', async () => {
      const acct = account({ name: 'Travis County', state: 'TX' });
      const resolver = new Resolver({ client, cache: redisMatchCache(redis, prefix) });
      await resolveCounting(resolver, acct);
      const kept = await redis.keys(`${prefix}answer:*`);
      expect(kept.length).toBeGreaterThan(0);
      for (const key of kept) await redis.set(key, '{not json', 'EX', 60);
      const { decision, calls } = await resolveCounting(
        new Resolver({ client, cache: redisMatchCache(redis, prefix) }),
        acct,
      );
      expect(calls).toBeGreaterThan(0);
      expect(decision).toMatchObject({ status: 'matched', buyerId: buyer('Travis County', 'TX').id });
    });
  });

  it('every matched or needs_review decision is explained and its signals add up', async () => {
    const resolver = new Resolver({ client });
    const cases: Partial<AccountForMatching>[] = [
      { name: 'UT Austin', state: 'TX', website: 'utexas.edu' },
      { name: 'Travis County', state: 'TX' },
      { name: 'Austin Community College', state: 'TX' },
      { name: 'Austin Fire Dept', state: 'TX' },
      { name: 'Springfield Public Schools', state: 'MA' },
      { name: 'City of Portland', state: 'Maine' },
      { name: 'Portland', state: 'OR' },
      { name: 'Columbus', state: 'OH' },
      { name: 'Kansas City', state: 'MO' },
      { name: 'Springfield', state: 'MO' },
      { name: 'Univ. of Texas at Austin', state: 'TX' },
      { name: 'Austin', state: 'TX', website: 'austintexas.gov' },
      { name: 'City of Springfield, IL', state: null },
    ];
    const statuses: string[] = [];
    for (const c of cases) {
      const { decision, calls } = await resolveCounting(resolver, account({ name: null, ...c }));
      expect(calls).toBeLessThanOrEqual(2);
      statuses.push(`${c.name}: ${decision.status}`);
      expectExplained(decision);
    }
    expect(statuses).toEqual([
      'UT Austin: matched',
      'Travis County: matched',
      'Austin Community College: matched',
      'Austin Fire Dept: matched',
      'Springfield Public Schools: matched',
      'City of Portland: matched',
      'Portland: needs_review',
      'Columbus: needs_review',
      'Kansas City: needs_review',
      'Springfield: needs_review',
      'Univ. of Texas at Austin: matched',
      'Austin: matched',
      'City of Springfield, IL: matched',
    ]);
  });

  it('rejects options out of range', () => {
    expect(() => new Resolver({ client, options: { acceptThreshold: 1.5 } })).toThrow(RangeError);
    expect(() => new Resolver({ client, options: { searchLimit: 0 } })).toThrow(RangeError);
    expect(() => new Resolver({ client, options: { acceptThreshold: undefined } })).not.toThrow();
  });
});

function buyerState(id: string): string | undefined {
  return sandbox.dataset.buyersById.get(id)?.stateCode;
}
