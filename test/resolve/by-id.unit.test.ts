// Matching by the ids an account carries (src/resolve/by-id.ts), through the Resolver, against the Buyer
// Intelligence emulator over real HTTP — which does not take an id as a search criterion (it answers
// 400) — and against small proxies in front of it standing for other providers: one without the
// criteria search at all (404), one that narrows by an id criterion, one that ignores it.
import { randomUUID } from 'node:crypto';
import express from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SandboxBuyer } from '../../emulators/buyer-intel/data/dataset.ts';
import { buyerBrief } from '../../emulators/buyer-intel/present.ts';
import type { RunningBuyerIntelSandbox } from '../../emulators/buyer-intel/server.ts';
import type { BuyerIntelClient } from '../../src/buyer-intel/index.ts';
import { Resolver } from '../../src/resolve/resolver.ts';
import type { AccountForMatching, MatchDecision } from '../../src/resolve/types.ts';
import { listen } from '../../src/service/listen.ts';
import { clientFor, startSandbox } from '../helpers/buyer-intel-sandbox.ts';

let sandbox: RunningBuyerIntelSandbox;
let client: BuyerIntelClient;
const proxies: { close(): Promise<void> }[] = [];

beforeAll(async () => {
  sandbox = await startSandbox();
  ({ client } = clientFor(sandbox));
});

afterAll(async () => {
  await Promise.all(proxies.map((p) => p.close()));
  await sandbox.close();
});

function buyer(name: string, stateCode: string): SandboxBuyer {
  const found = sandbox.dataset.buyers.find((b) => b.name === name && b.stateCode === stateCode);
  if (!found) throw new Error(`the emulator has no ${name} in ${stateCode}`);
  return found;
}

const attribute = (b: SandboxBuyer, key: string): unknown =>
  (sandbox.dataset.attributesOf(b.id) as Record<string, unknown> | undefined)?.[key];

const account = (over: Partial<AccountForMatching> & { name: string | null }): AccountForMatching => ({
  id: randomUUID(),
  state: null,
  website: null,
  ...over,
});

/** The emulator's calls a resolve made, by operation. */
async function counting(resolver: Resolver, acct: AccountForMatching) {
  sandbox.stats.reset();
  const decision = await resolver.resolve(acct);
  const calls = {
    search: sandbox.stats.count('searchBuyers'),
    attributes: sandbox.stats.count('getBuyerAttributesBulk'),
    criteria: sandbox.stats.count('searchBuyersByCriteria'),
    total: sandbox.stats.count(),
  };
  return { decision, calls };
}

function matched(decision: MatchDecision): Extract<MatchDecision, { status: 'matched' }> {
  if (decision.status !== 'matched') throw new Error(`not matched: ${decision.explanation}`);
  return decision;
}

/**
 * A provider in front of the emulator: POST /api/external/buyer/search is answered by `criteria`
 * (counted), every other request is passed through as it is.
 */
async function provider(
  criteria: express.RequestHandler,
): Promise<{ url: string; criteriaCalls: () => number }> {
  let calls = 0;
  const app = express();
  app.use(express.raw({ type: () => true }));
  app.post('/api/external/buyer/search', (req, res, next) => {
    calls++;
    criteria(req, res, next);
  });
  app.use(async (req, res) => {
    const upstream = await fetch(`${sandbox.url}${req.originalUrl}`, {
      method: req.method,
      headers: { authorization: req.headers.authorization ?? '', accept: 'application/json' },
    });
    res
      .status(upstream.status)
      .type('application/json')
      .send(Buffer.from(await upstream.arrayBuffer()));
  });
  const listening = await listen(app);
  proxies.push(listening);
  return { url: listening.url, criteriaCalls: () => calls };
}

const ID_KEYS = ['NcesId', 'IpedsIdNumeric', 'CensusIdPid6', 'CensusIdGidId'];

describe('ids first, against the emulator (no id criterion)', () => {
  it('an NCES id with a leading zero matches its district by id, kept as text', async () => {
    const jefferson = buyer('Jefferson County Schools', 'AL');
    const nces = attribute(jefferson, 'NcesId');
    expect(nces).toMatch(/^01\d{5}$/);
    const resolver = new Resolver({ client });
    const { decision, calls } = await counting(
      resolver,
      account({ name: 'Jefferson County Schools', state: 'AL', ids: { nces: String(nces) } }),
    );
    const m = matched(decision);
    expect(m).toMatchObject({ buyerId: jefferson.id, source: 'id', confidence: 1 });
    expect(m.explanation).toBe(`Matched "Jefferson County Schools" (AL) by its NCES id ${nces}`);
    expect(m.candidates).toEqual([
      expect.objectContaining({
        buyerId: jefferson.id,
        score: 1,
        signals: [{ signal: 'id', points: 1, detail: `NCES id ${nces}` }],
      }),
    ]);
    // The criteria search is asked once, refuses the id; the name's best is checked: few calls.
    expect(calls.criteria).toBe(1);
    expect(calls.attributes).toBe(1);
    expect(calls.total).toBeLessThanOrEqual(4);

    // Learnt for this process: the next NCES id goes straight to the candidates.
    const fresno = buyer('Fresno Unified School District', 'CA');
    const again = await counting(
      resolver,
      account({ name: 'Fresno USD', state: 'CA', ids: { nces: String(attribute(fresno, 'NcesId')) } }),
    );
    expect(matched(again.decision)).toMatchObject({ buyerId: fresno.id, source: 'id' });
    expect(again.calls.criteria).toBe(0);
    expect(again.calls.total).toBeLessThanOrEqual(3);
  });

  it('an NCES id settles a name two states share, without a state (its digits name the state)', async () => {
    const missouri = buyer('Springfield Public Schools', 'MO');
    const { decision, calls } = await counting(
      new Resolver({ client }),
      account({ name: 'Springfield Public Schools', ids: { nces: String(attribute(missouri, 'NcesId')) } }),
    );
    expect(matched(decision)).toMatchObject({ buyerId: missouri.id, source: 'id' });
    // Massachusetts' district ranks first by name but its state cannot hold a Missouri id: not checked.
    expect(calls.attributes).toBe(1);
  });

  it('an IPEDS id the API sends as a number matches by its text', async () => {
    const kansas = buyer('University of Kansas City', 'KS');
    const ipeds = attribute(kansas, 'IpedsIdNumeric');
    expect(typeof ipeds).toBe('number');
    const { decision } = await counting(
      new Resolver({ client }),
      account({ name: 'University of Kansas City', ids: { ipeds: ` ${String(ipeds)} ` } }),
    );
    const m = matched(decision);
    expect(m).toMatchObject({ buyerId: kansas.id, source: 'id', confidence: 1 });
    expect(m.explanation).toBe(`Matched "University of Kansas City" (KS) by its IPEDS id ${ipeds}`);
  });

  it('a Census PID6 picks one city of many with the same name', async () => {
    const columbus = buyer('City of Columbus', 'GA');
    const { decision, calls } = await counting(
      new Resolver({ client }),
      account({ name: 'Columbus', ids: { census: String(attribute(columbus, 'CensusIdPid6')) } }),
    );
    expect(matched(decision)).toMatchObject({ buyerId: columbus.id, source: 'id' });
    expect(decision.explanation).toContain('by its Census PID6');
    expect(calls.attributes).toBeLessThanOrEqual(5);
  });

  it('a buyer id typed in the CRM is confirmed in one call, and beats an ambiguous name', async () => {
    const portland = buyer('Portland School District', 'OR');
    const { decision, calls } = await counting(
      new Resolver({ client }),
      account({ name: 'Portland Schools', ids: { buyer: portland.id.toUpperCase() } }),
    );
    const m = matched(decision);
    expect(m).toMatchObject({ buyerId: portland.id, buyerName: 'Portland School District', source: 'id' });
    expect(m.explanation).toBe(`Matched "Portland School District" (OR) by its buyer id ${portland.id}`);
    expect(calls.attributes).toBe(1);
    expect(calls.criteria).toBe(0);
  });

  it('an id that contradicts a confident name match goes to review, the id’s buyer first', async () => {
    const city = buyer('City of Austin', 'TX');
    const district = buyer('Austin Independent School District', 'TX');
    const nces = String(attribute(district, 'NcesId'));
    const { decision } = await counting(
      new Resolver({ client }),
      account({ name: 'City of Austin', state: 'TX', ids: { nces } }),
    );
    expect(decision.status).toBe('needs_review');
    expect(decision.candidates.map((c) => c.buyerId).slice(0, 2)).toEqual([district.id, city.id]);
    expect(decision.explanation).toMatch(
      new RegExp(
        `^Needs review: the NCES id ${nces} names "Austin Independent School District" \\(TX\\), but the name matches "City of Austin" \\(TX\\) with 0\\.\\d\\d`,
      ),
    );
  });

  it('an id naming a buyer of another state than the account’s goes to review', async () => {
    const district = buyer('Austin Independent School District', 'TX');
    const { decision } = await counting(
      new Resolver({ client }),
      account({ name: 'Austin ISD', state: 'CA', ids: { buyer: district.id } }),
    );
    expect(decision.status).toBe('needs_review');
    expect(decision.candidates[0]?.buyerId).toBe(district.id);
    expect(decision.explanation).toContain('but the account is in CA');
  });

  it('two ids that name different buyers go to review', async () => {
    const district = buyer('Austin Independent School District', 'TX');
    const city = buyer('City of Austin', 'TX');
    const gid = String(attribute(city, 'CensusIdGidId'));
    const { decision } = await counting(
      new Resolver({ client }),
      account({ name: 'Austin ISD', state: 'TX', ids: { buyer: district.id, census: gid } }),
    );
    expect(decision.status).toBe('needs_review');
    expect(decision.explanation).toContain(
      `its Census GID is ${String(attribute(district, 'CensusIdGidId'))}, not ${gid}`,
    );
  });

  it('a malformed id is named in the reason and not used: the name decides', async () => {
    const district = buyer('Austin Independent School District', 'TX');
    const { decision, calls } = await counting(
      new Resolver({ client }),
      account({
        name: 'Austin ISD',
        state: 'TX',
        ids: { nces: '631021', ipeds: 'abc', buyer: 'not-a-uuid' },
      }),
    );
    const m = matched(decision);
    expect(m).toMatchObject({ buyerId: district.id, source: 'search' });
    expect(m.explanation).toContain(
      'Not used: buyer id "not-a-uuid" is not one (a UUID); NCES id "631021" is one digit short: a leading zero may have been lost (keep the field as text); IPEDS id "abc" is not one (6 digits)',
    );
    expect(calls.attributes).toBe(0);
  });

  it('a buyer id the API does not know is said, and the name’s match waits for a person', async () => {
    const unknown = randomUUID();
    const { decision } = await counting(
      new Resolver({ client }),
      account({ name: 'City of Austin', state: 'TX', ids: { buyer: unknown } }),
    );
    expect(decision.status).toBe('needs_review');
    expect(decision.candidates[0]?.buyerId).toBe(buyer('City of Austin', 'TX').id);
    expect(decision.explanation).toMatch(
      new RegExp(
        `^Needs review: the buyer id ${unknown} matches no buyer of the API, and a buyer id was typed`,
      ),
    );
  });

  it('an id no candidate holds: the name’s match stands when its buyer has no such id, not when it has another', async () => {
    const city = buyer('City of Austin', 'TX');
    expect(attribute(city, 'NcesId') ?? null).toBeNull();
    const noNces = await counting(
      new Resolver({ client }),
      account({ name: 'City of Austin', state: 'TX', ids: { nces: '4899999' } }),
    );
    expect(matched(noNces.decision)).toMatchObject({ buyerId: city.id, source: 'search' });
    expect(noNces.decision.explanation).toMatch(
      /^NCES id 4899999 matched no buyer \(checked the \d closest by name\)\. Matched "City of Austin" \(TX\)/,
    );

    const otherGid = await counting(
      new Resolver({ client }),
      account({ name: 'City of Austin', state: 'TX', ids: { census: '48999999900000' } }),
    );
    expect(otherGid.decision.status).toBe('needs_review');
    expect(otherGid.decision.explanation).toContain(
      `"City of Austin" has Census GID ${String(attribute(city, 'CensusIdGidId'))}`,
    );
  });

  it('an account without ids is resolved by name as before, with no attribute call', async () => {
    const { decision, calls } = await counting(
      new Resolver({ client }),
      account({ name: 'City of Austin', state: 'TX', ids: { nces: '  ' } }),
    );
    expect(matched(decision).source).toBe('search');
    expect(calls).toMatchObject({ attributes: 0, criteria: 0, search: 1 });
  });
});

describe('ids first, against other providers', () => {
  it('without the criteria search (404): falls back to the candidates, and asks no more', async () => {
    const p = await provider((_req, res) => {
      res.status(404).json({ status: 404, message: 'no such route' });
    });
    const resolver = new Resolver({ client: clientFor(sandbox, { baseUrl: p.url }).client });
    const district = buyer('Houston County Schools', 'AL');
    const first = await resolver.resolve(
      account({ name: 'Houston County Schools', ids: { nces: String(attribute(district, 'NcesId')) } }),
    );
    expect(matched(first)).toMatchObject({ buyerId: district.id, source: 'id' });
    const college = buyer('Columbus State University', 'GA');
    const second = await resolver.resolve(
      account({
        name: 'Columbus State',
        state: 'GA',
        ids: { ipeds: String(attribute(college, 'IpedsIdNumeric')) },
      }),
    );
    expect(matched(second)).toMatchObject({ buyerId: college.id, source: 'id' });
    const third = await resolver.resolve(
      account({ name: 'Houston County Schools', ids: { nces: String(attribute(district, 'NcesId')) } }),
    );
    expect(matched(third).buyerId).toBe(district.id);
    // The 404 says the operation is missing, not that the NCES id was refused: no call for the IPEDS id.
    expect(p.criteriaCalls()).toBe(1);
  });

  it('without the criteria search, a nameless account with an id goes to review saying why', async () => {
    const p = await provider((_req, res) => {
      res.status(404).json({ status: 404, message: 'no such route' });
    });
    const resolver = new Resolver({ client: clientFor(sandbox, { baseUrl: p.url }).client });
    const district = buyer('Houston County Schools', 'AL');
    const nces = String(attribute(district, 'NcesId'));
    const decision = await resolver.resolve(account({ name: null, ids: { nces } }));
    expect(decision).toMatchObject({ status: 'needs_review', confidence: 0, candidates: [] });
    expect(decision.explanation).toBe(
      `Needs review: its NCES id ${nces} could not be looked up: the account has no name to search by, and this provider has no search by registry id; a person typed it, so a person decides.`,
    );
  });

  it('without the criteria search, two accounts whose web-address searches are out at once: neither fails', async () => {
    // The first two 404s are held until both calls are in, so each account hears it while the other's
    // call is out, as a run's first chunk does.
    const held: (() => void)[] = [];
    const p = await provider((_req, res) => {
      const send = () => res.status(404).json({ status: 404, message: 'no such route' });
      if (p.criteriaCalls() > 2) return send();
      held.push(send);
      if (held.length === 2) for (const release of held.splice(0)) release();
    });
    const resolver = new Resolver({ client: clientFor(sandbox, { baseUrl: p.url }).client });
    const decisions = await Promise.all(
      ['https://www.austintexas.gov', 'https://www.traviscountytx.gov'].map((website) =>
        resolver.resolve(account({ name: null, website })),
      ),
    );
    // Each then found by the documented name search of its address's words, which is that buyer's site.
    expect(decisions.map((d) => matched(d).buyerName)).toEqual(['City of Austin', 'Travis County']);
    expect(p.criteriaCalls()).toBe(2);
  });

  it('that narrows by an id criterion: one search and one confirming call find the buyer', async () => {
    const p = await provider((req, res) => {
      const body = JSON.parse(Buffer.from(req.body as Buffer).toString('utf8') || '{}') as Record<
        string,
        unknown
      >;
      const key = ID_KEYS.find((k) => body[k] !== undefined);
      const found = sandbox.dataset.buyers.filter(
        (b) => key && String(attribute(b, key)) === String(body[key]),
      );
      res.json({ buyers: found.slice(0, Number(body.limit ?? 10)).map(buyerBrief) });
    });
    const resolver = new Resolver({ client: clientFor(sandbox, { baseUrl: p.url }).client });
    const washington = buyer('Washington County', 'MN');
    sandbox.stats.reset();
    const decision = await resolver.resolve(
      account({ name: 'Washington', ids: { census: String(attribute(washington, 'CensusIdGidId')) } }),
    );
    expect(matched(decision)).toMatchObject({ buyerId: washington.id, source: 'id' });
    expect(p.criteriaCalls()).toBe(1);
    expect(sandbox.stats.count('getBuyerAttributesBulk')).toBe(1);

    // Known to narrow: an id it finds nothing for matched no buyer (said without a count of candidates),
    // and the name decides — here into review, as the name's buyer holds another GID.
    const none = await resolver.resolve(
      account({ name: 'Travis County', state: 'TX', ids: { census: '48999999900000' } }),
    );
    expect(none.status).toBe('needs_review');
    expect(none.explanation).toMatch(
      /^Needs review: Census GID 48999999900000 matched no buyer, and "Travis County" has Census GID \d{14}, so/,
    );
    expect(p.criteriaCalls()).toBe(2);
  });

  it('that ignores the id criterion and answers arbitrary buyers: none is trusted', async () => {
    const p = await provider((_req, res) => {
      res.json({ buyers: sandbox.dataset.buyers.slice(0, 3).map(buyerBrief) });
    });
    const resolver = new Resolver({ client: clientFor(sandbox, { baseUrl: p.url }).client });
    const district = buyer('Denver Public Schools', 'CO');
    const nces = String(attribute(district, 'NcesId'));
    const decision = await resolver.resolve(
      account({ name: 'Denver Public Schools', state: 'CO', ids: { nces } }),
    );
    expect(matched(decision)).toMatchObject({ buyerId: district.id, source: 'id' });
    expect(decision.explanation).toBe(`Matched "Denver Public Schools" (CO) by its NCES id ${nces}`);
    await resolver.resolve(account({ name: 'Denver Public Schools', state: 'CO', ids: { nces } }));
    expect(p.criteriaCalls()).toBe(1);
  });
});
