// A name of kind words only ("Tribal Council", "Fire District") with a zip and no city or county: the
// zip names the place, the only part of the account that says which buyer (issue 46: "Tribal Council"
// AZ at 86039, the Hopi Tribe's zip, was no match — no search used the zip's place). Against a stand-in
// API whose answers each test sets. And a place then kind words only ("Dallas VA Medical Center"):
// its buyer may hold the place in its attributes only, so the place's buyers are asked for last.
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { BuyerCriteria, QuickSearchParams } from '../../src/buyer-intel/client.ts';
import type { BuyerBrief } from '../../src/buyer-intel/schemas.ts';
import { normalizeName } from '../../src/resolve/normalize.ts';
import { kindWordsOnly } from '../../src/resolve/prepare.ts';
import { Resolver, type ResolverClient } from '../../src/resolve/resolver.ts';

const brief = (name: string, stateCode: string, type: string): BuyerBrief => ({
  id: randomUUID(),
  name,
  stateCode,
  type,
  url: null,
});

/** Name searches answer from `byName`; criteria searches by city from `byCity`. */
function api(byName: (q: string) => BuyerBrief[], byCity: (city: string, state: string) => BuyerBrief[]) {
  const calls: string[] = [];
  const client: ResolverClient = {
    async searchBuyers(p: QuickSearchParams) {
      calls.push(`name "${p.buyerName}"${p.buyerStateCode ? ` in ${p.buyerStateCode}` : ''}`);
      return { buyers: byName(p.buyerName) };
    },
    async searchBuyersByCriteria(c: BuyerCriteria) {
      calls.push(`criteria city ${c.city ?? '-'} state ${c.stateCode ?? '-'} url ${c.url ?? '-'}`);
      return { buyers: c.city && c.stateCode ? byCity(c.city, c.stateCode) : [] };
    },
  };
  return { client, calls };
}

describe('a name of kind words only, placed by its zip', () => {
  it('reads "Tribal Council", "Board of Education", "Water Department" as kind words only; not "Hopi Tribe"', () => {
    for (const n of ['Tribal Council', 'Board of Education', 'Fire District', 'Water Department'])
      expect(kindWordsOnly(normalizeName(n)), n).toBe(true);
    for (const n of ['Hopi Tribe', 'Naperville Fire District', 'Acme LLC'])
      expect(kindWordsOnly(normalizeName(n)), n).toBe(false);
  });

  it('"Tribal Council" AZ 86039: the buyers of Kykotsmovi Village are searched, the Hopi Tribe offered for review', async () => {
    const hopi = brief('Hopi Tribe', 'AZ', 'IndigenousGovernment');
    const { client, calls } = api(
      () => [],
      (city, state) => (city === 'Kykotsmovi Village' && state === 'AZ' ? [hopi] : []),
    );
    const decision = await new Resolver({ client }).resolve({
      id: 'a',
      name: 'Tribal Council',
      state: 'AZ',
      zip: '86039',
      website: null,
    });
    expect(calls).toContain('name "Kykotsmovi Village Tribal Council" in AZ');
    expect(calls).toContain('criteria city Kykotsmovi Village state AZ url -');
    // A place and a kind are not a name: never automatic on them.
    expect(decision.status).toBe('needs_review');
    expect(decision.candidates.map((c) => c.buyerId)).toContain(hopi.id);
  });

  it('"Fire District" IL 60540: read with Naperville, the zip\'s place, it is the Naperville Fire District', async () => {
    const fire = brief('Naperville Fire District', 'IL', 'SpecialDistrict');
    const { client, calls } = api(
      (q) => (/naperville/i.test(q) ? [fire] : []),
      () => [],
    );
    const decision = await new Resolver({ client }).resolve({
      id: 'b',
      name: 'Fire District',
      state: 'IL',
      zip: '60540',
      website: null,
    });
    expect(calls).toContain('name "Naperville Fire District" in IL');
    expect(decision.candidates[0]?.buyerId).toBe(fire.id);
  });

  it("a zip of another state than the account's names no place for it", async () => {
    const { client, calls } = api(
      () => [],
      () => [],
    );
    await new Resolver({ client }).resolve({
      id: 'c',
      name: 'Tribal Council',
      state: 'NM',
      zip: '86039',
      website: null,
    });
    expect(calls.some((c) => /Kykotsmovi/.test(c))).toBe(false);
  });
});

describe('a place then kind words only', () => {
  const county = brief('Dallas County', 'TX', 'County');
  const city = brief('City of Dallas', 'TX', 'City');
  const va = brief('VA North Texas Health Care System', 'TX', 'Federal');

  it('"Dallas VA Medical Center" TX: the buyers of Dallas, scored by "VA Medical Center", offer the VA first', async () => {
    const { client, calls } = api(
      (q) => (/dallas/i.test(q) ? [county, city] : []),
      (c, state) => (c === 'Dallas' && state === 'TX' ? [county, city, va] : []),
    );
    const decision = await new Resolver({ client }).resolve({
      id: 'd',
      name: 'Dallas VA Medical Center',
      state: 'TX',
      website: null,
    });
    expect(calls.at(-1)).toBe('criteria city Dallas state TX url -');
    expect(decision.status).toBe('needs_review');
    expect(decision.candidates[0]?.buyerId).toBe(va.id);
    expect(decision.explanation).toMatch(/a place and a kind are not a name/);
  });

  it('a name its search matches asks for no place: "Dallas Police Department"', async () => {
    const police = brief('Dallas Police Department', 'TX', 'PoliceDepartment');
    const { client, calls } = api(
      (q) => (/police/i.test(q) ? [police, city] : []),
      () => [county, city, police],
    );
    const decision = await new Resolver({ client }).resolve({
      id: 'e',
      name: 'Dallas Police Department',
      state: 'TX',
      website: null,
    });
    expect(decision.status).toBe('matched');
    expect(calls.some((c) => c.startsWith('criteria city'))).toBe(false);
  });
});
