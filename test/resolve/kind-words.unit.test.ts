// Accounts that write the kind of buyer after the place — "Mansfield, City of", "Columbus City",
// "Rochester City Hall" — against the sandbox's data set, where the place also has a school district
// whose name holds "City" ("Mansfield City Schools", "Rochester City School District"). Read as a word
// of the place, "City" made the district's name the account's exactly, and the district was matched
// automatically in the city's stead.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningBuyerIntelSandbox } from '../../emulators/buyer-intel/server.ts';
import { Resolver } from '../../src/resolve/resolver.ts';
import type { MatchDecision } from '../../src/resolve/types.ts';
import { clientFor, startSandbox } from '../helpers/buyer-intel-sandbox.ts';

let sandbox: RunningBuyerIntelSandbox;
let resolver: Resolver;

beforeAll(async () => {
  sandbox = await startSandbox();
  resolver = new Resolver({ client: clientFor(sandbox).client });
});
afterAll(() => sandbox.close());

const resolve = (name: string, state: string | null): Promise<MatchDecision> =>
  resolver.resolve({ id: randomUUID(), name, state, website: null });

function buyerId(name: string, state: string): string {
  const found = sandbox.dataset.buyers.find((b) => b.name === name && b.stateCode === state);
  if (!found) throw new Error(`the sandbox has no ${name} in ${state}`);
  return found.id;
}

/** What the account came to: the matched buyer's name, or the status. */
async function outcome(name: string, state: string | null): Promise<string> {
  const d = await resolve(name, state);
  return d.status === 'matched' ? `${d.buyerName ?? d.buyerId}` : d.status;
}

describe('the kind of buyer written after the place', () => {
  it('"Mansfield, City of" is the city of Mansfield, not Mansfield City Schools', async () => {
    const cases: [string, string, string][] = [
      ['Mansfield, City of', 'OH', 'City of Mansfield'],
      ['Yonkers, City of', 'NY', 'City of Yonkers'],
      ['Jamaica, City of', 'NY', 'City of Jamaica'],
      ['Rochester, City of', 'NY', 'City of Rochester'],
      ['Columbus City of', 'OH', 'City of Columbus'],
      ['Cleveland, City Of', 'OH', 'City of Cleveland'],
    ];
    for (const [name, state, city] of cases) {
      const d = await resolve(name, state);
      expect(d.status, name).toBe('matched');
      if (d.status === 'matched') expect(d.buyerId, name).toBe(buyerId(city, state));
      expect(d.explanation, name).toContain('type agrees (city/town by "city of")');
    }
  });

  it('without a state, "Mansfield, City of" is a review between the cities of OH and TX', async () => {
    const d = await resolve('Mansfield, City of', null);
    expect(d.status).toBe('needs_review');
    expect(
      d.candidates
        .slice(0, 2)
        .map((c) => `${c.name} ${c.stateCode}`)
        .sort(),
    ).toEqual(['City of Mansfield OH', 'City of Mansfield TX']);
  });

  it('the other kinds of municipality, inverted, are matched to their buyer', async () => {
    const cases: [string, string, string][] = [
      ['Travis, County of', 'TX', 'Travis County'],
      ['Montpelier, Town of', 'VT', 'Town of Montpelier'],
      ['Caro, Village of', 'MI', 'Village of Caro'],
      ['Clinton, Charter Township of', 'MI', 'Charter Township of Clinton'],
    ];
    for (const [name, state, expected] of cases) expect(await outcome(name, state), name).toBe(expected);
  });

  it('"Rochester City Hall" is the city, the hall standing for the government in it', async () => {
    expect(await outcome('Rochester City Hall', 'NY')).toBe('City of Rochester');
    expect(await outcome('Montpelier Town Hall', 'VT')).toBe('Town of Montpelier');
  });

  it('"Columbus City" in OH is the city: Columbus is a place, "Columbus City" is none', async () => {
    expect(await outcome('Columbus City', 'OH')).toBe('City of Columbus');
    expect(await outcome('Mansfield City', 'OH')).toBe('City of Mansfield');
    // A place named so keeps its "City": the bare name of Kansas City says no kind of buyer.
    expect(await outcome('Kansas City', 'MO')).toBe('needs_review');
    // "Mansfield City" is a place in CT: with no state to say otherwise, its name says no kind.
    const d = await resolve('Mansfield City', null);
    expect(d.status).toBe('needs_review');
  });

  it('over every place with a school district named "X City …", the city’s spellings never match the district', async () => {
    const districts = sandbox.dataset.buyers.filter(
      (b) => b.type === 'SchoolDistrict' && / City (Schools|School District)$/.test(b.name ?? ''),
    );
    const places = districts.flatMap((d) => {
      const place = (d.name ?? '').replace(/ City (Schools|School District)$/, '');
      const city = sandbox.dataset.buyers.find(
        (b) => b.name === `City of ${place}` && b.stateCode === d.stateCode,
      );
      return city && d.stateCode ? [{ place, state: d.stateCode, city: city.id }] : [];
    });
    expect(places.length).toBeGreaterThanOrEqual(20);
    const missed: string[] = [];
    const wrong: string[] = [];
    for (const { place, state, city } of places) {
      for (const name of [`${place}, City of`, `${place} City of`, `${place} City Hall`, `${place} City`]) {
        const d = await resolve(name, state);
        const line = `${name} (${state}): ${d.explanation}`;
        if (d.status === 'matched' && d.buyerId !== city) wrong.push(line);
        // "New York City" is a place's own name: it may go to review; the others say the city.
        else if (d.status !== 'matched' && !name.endsWith(' City')) missed.push(line);
      }
    }
    expect(wrong).toEqual([]);
    expect(missed).toEqual([]);
  }, 60_000);
});

describe("the kind a name says against the buyer's", () => {
  it('"Forest Preserves of Cook County" is the preserve district: "County" names where it is', async () => {
    expect(await outcome('Forest Preserves of Cook County', 'IL')).toBe(
      'Forest Preserve District of Cook County',
    );
  });

  it('a tribe by another of its styles is matched; another nation of the same people is not', async () => {
    expect(await outcome('Zuni Tribe', 'NM')).toBe('Pueblo of Zuni');
    expect(await outcome('Mashantucket Pequot Tribe', 'CT')).toBe('Mashantucket Pequot Tribal Nation');
    // The Seminole Nation is in Oklahoma; filed under FL it may be the Seminole Tribe of Florida or a
    // misfiled state: a person decides.
    expect(await outcome('Seminole Nation', 'FL')).toBe('needs_review');
  });
});
