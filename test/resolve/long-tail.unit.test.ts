// The long tail of public buyers: numbers that are names, consolidated governments, buyers known by
// another name, bodies that span states, contradictions in the account itself, types the resolver does
// not know — each against a small server of our own (a plain search over legal names, attributes by
// id), so the rule is what is tested, not a search index's kindness.
import { describe, expect, it } from 'vitest';
import { Resolver } from '../../src/resolve/resolver.ts';
import { scoreCandidate } from '../../src/resolve/score.ts';
import { type WordSearchBuyer as Buyer, wordSearch as server } from '../helpers/word-search.ts';

const account = (name: string, state: string | null, extra: Record<string, unknown> = {}) => ({
  id: 'a1',
  name,
  state,
  website: null,
  ...extra,
});

describe('numbers in names are identity', () => {
  const buyers: Buyer[] = [
    {
      id: 'usd512',
      name: 'Shawnee Mission Unified School District 512',
      stateCode: 'KS',
      type: 'SchoolDistrict',
    },
    {
      id: 'usd513',
      name: 'Shawnee Heights Unified School District 513',
      stateCode: 'KS',
      type: 'SchoolDistrict',
    },
    { id: 'd65', name: 'Evanston/Skokie School District 65', stateCode: 'IL', type: 'SchoolDistrict' },
    { id: 'd64', name: 'Park Ridge-Niles School District 64', stateCode: 'IL', type: 'SchoolDistrict' },
  ];

  it('"USD 512" is matched to the district of that number, never to another number', async () => {
    const { client } = server(buyers);
    const decision = await new Resolver({ client }).resolve(account('USD 512', 'KS'));
    expect(decision.status, decision.explanation).toBe('matched');
    if (decision.status === 'matched') expect(decision.buyerId).toBe('usd512');
    expect(decision.explanation).toContain('number 512');
  });

  it('a district of another number conflicts and is never matched, whatever else agrees', () => {
    const r = scoreCandidate(
      { name: 'Shawnee Mission USD 513', state: 'KS' },
      { name: 'Shawnee Mission Unified School District 512', stateCode: 'KS', type: 'SchoolDistrict' },
    );
    expect(r.numberConflict).toBe(true);
    expect(r.signals.find((s) => s.signal === 'number')?.points).toBeLessThan(0);
  });

  it('"District 65" finds the district that carries 65, not its neighbour 64', async () => {
    const { client } = server(buyers);
    const decision = await new Resolver({ client }).resolve(account('District 65', 'IL'));
    expect(decision.status, decision.explanation).toBe('matched');
    if (decision.status === 'matched') expect(decision.buyerId).toBe('d65');
  });
});

describe('consolidated governments are named by their places', () => {
  const buyers: Buyer[] = [
    { id: 'lou', name: 'Louisville/Jefferson County Metro Government', stateCode: 'KY', type: 'County' },
    {
      id: 'nash',
      name: 'Metropolitan Government of Nashville and Davidson County',
      stateCode: 'TN',
      type: 'City',
    },
    { id: 'jeff', name: 'City of Jeffersontown', stateCode: 'KY', type: 'City' },
  ];

  it('"City of Louisville" is the metro government, its type agreeing as a city', async () => {
    const { client } = server(buyers);
    const decision = await new Resolver({ client }).resolve(account('City of Louisville', 'KY'));
    expect(decision.status, decision.explanation).toBe('matched');
    if (decision.status === 'matched') expect(decision.buyerId).toBe('lou');
    expect(decision.explanation).toContain('consolidated');
  });

  it('"Nashville, TN" is the metropolitan government; "Davidson County" too', async () => {
    const { client } = server(buyers);
    for (const name of ['Nashville, TN', 'Davidson County']) {
      const decision = await new Resolver({ client }).resolve(account(name, 'TN'));
      expect(decision.status, name).toBe('matched');
      if (decision.status === 'matched') expect(decision.buyerId).toBe('nash');
    }
  });

  it('"City of Jefferson" does not read as the metro government: Jefferson names its county, not its city', () => {
    const r = scoreCandidate(
      { name: 'City of Jefferson', state: 'KY' },
      { name: 'Louisville/Jefferson County Metro Government', stateCode: 'KY', type: 'County' },
    );
    expect(r.signals.some((s) => s.signal === 'consolidated')).toBe(false);
  });
});

describe('a buyer known by another name', () => {
  /** The account matches `id` by its common name, read from its attributes in at most `reads` calls. */
  async function matchedByItsOtherName(
    buyers: Buyer[],
    name: string,
    state: string,
    expected: { id: string; otherName: string; reads: number },
  ) {
    const { client, calls } = server(buyers);
    const decision = await new Resolver({ client }).resolve(account(name, state));
    expect(decision.status, decision.explanation).toBe('matched');
    if (decision.status === 'matched') expect(decision.buyerId).toBe(expected.id);
    expect(decision.explanation).toContain(`other name "${expected.otherName}"`);
    expect(calls.attributes).toBeLessThanOrEqual(expected.reads);
  }

  it('is matched by its common name once its attributes are read, at no more than two attribute calls', () =>
    matchedByItsOtherName(
      [
        {
          id: 'ventura',
          name: 'City of San Buenaventura',
          stateCode: 'CA',
          type: 'City',
          attributes: { CommonName: 'Ventura' },
        },
        { id: 'ventura-co', name: 'Ventura County', stateCode: 'CA', type: 'County' },
      ],
      'City of Ventura',
      'CA',
      { id: 'ventura', otherName: 'Ventura', reads: 2 },
    ));

  // "RESA" read as initials earns the reading's share of the name; the common name, all of it: the score
  // then lands on 0.75 to three decimals, the same figure the decision compares.
  it('is read when its common name would carry it exactly to the threshold, as the decision rounds it', () =>
    matchedByItsOtherName(
      [
        {
          id: 'resa',
          name: 'Wayne County Regional Educational Service Agency',
          stateCode: 'MI',
          type: 'District',
          attributes: { CommonName: 'Wayne RESA' },
        },
        { id: 'county', name: 'Wayne County', stateCode: 'MI', type: 'County' },
        { id: 'sheriff', name: "Wayne County Sheriff's Office", stateCode: 'MI', type: 'PoliceDepartment' },
      ],
      'Wayne RESA',
      'MI',
      { id: 'resa', otherName: 'Wayne RESA', reads: 3 },
    ));
});

describe('the state is strong evidence, not a wall', () => {
  const port: Buyer = {
    id: 'panynj',
    name: 'Port Authority of New York and New Jersey',
    stateCode: 'NY',
    type: 'TransportationAgency',
    url: 'https://www.panynj.gov',
  };

  it('a body filed under its neighbouring state is found by a search across states and offered for review', async () => {
    const { client, calls } = server([{ ...port, name: 'Delaware River Port Authority', stateCode: 'NJ' }]);
    const decision = await new Resolver({ client }).resolve(account('Delaware River Port Authority', 'PA'));
    expect(decision.status).toBe('needs_review');
    expect(decision.candidates[0]?.buyerId).toBe('panynj');
    expect(decision.explanation).toContain('in NJ, not PA');
    expect(calls.search).toBeLessThanOrEqual(4);
  });

  it('with its website, the body in the other state is matched automatically', async () => {
    const { client } = server([port]);
    const decision = await new Resolver({ client }).resolve(
      account('Port Authority of New York and New Jersey', 'NJ', { website: 'panynj.gov' }),
    );
    expect(decision.status, decision.explanation).toBe('matched');
  });

  it('a state in the name that contradicts the state field blocks an automatic match', async () => {
    const { client } = server([
      { id: 'pdx', name: 'City of Portland', stateCode: 'OR', type: 'City' },
      { id: 'pme', name: 'City of Portland', stateCode: 'ME', type: 'City' },
    ]);
    const decision = await new Resolver({ client }).resolve(account('City of Portland, OR', 'ME'));
    expect(decision.status).toBe('needs_review');
    expect(decision.explanation).toContain('ME and its name says OR');
  });
});

describe('unknowns are neutral, what the account holds is evidence', () => {
  it('a provider type the resolver does not know never conflicts with the name', () => {
    const r = scoreCandidate(
      { name: 'Harris County Library District', state: 'TX' },
      { name: 'Harris County Library District', stateCode: 'TX', type: 'UncategorizedDistrict' },
    );
    expect(r.typeConflict).toBe(false);
  });

  it('the account’s zip and city tell two same-named buyers apart', async () => {
    const { client } = server([
      {
        id: 'fd-a',
        name: 'Springfield Fire Department',
        stateCode: 'IL',
        type: 'FireDepartment',
        attributes: { Zip: '62701', City: 'Springfield' },
      },
      {
        id: 'fd-b',
        name: 'Springfield Fire Department',
        stateCode: 'IL',
        type: 'FireDepartment',
        attributes: { Zip: '62401', City: 'Effingham' },
      },
    ]);
    const decision = await new Resolver({ client }).resolve(
      account('Springfield Fire Department', 'IL', { zip: '62701-1234', city: 'Springfield' }),
    );
    expect(decision.status, decision.explanation).toBe('matched');
    if (decision.status === 'matched') expect(decision.buyerId).toBe('fd-a');
    expect(decision.explanation).toContain('zip 62701');
  });

  it('an account known only by its email domain is found by that domain', async () => {
    const { client } = server([
      {
        id: 'lfucg',
        name: 'Lexington-Fayette Urban County Government',
        stateCode: 'KY',
        url: 'https://www.lexingtonky.gov',
      },
    ]);
    const r = scoreCandidate(
      { name: 'Lexington-Fayette Urban County Government', state: 'KY', emailDomains: ['lexingtonky.gov'] },
      {
        name: 'Lexington-Fayette Urban County Government',
        stateCode: 'KY',
        url: 'https://www.lexingtonky.gov',
      },
    );
    expect(r.independent).toBe(true);
    const decision = await new Resolver({ client }).resolve({
      id: 'a2',
      name: null,
      state: 'KY',
      website: null,
      emailDomains: ['lexingtonky.gov'],
    });
    expect(decision.status).not.toBe('no_match');
  });
});

describe('ids decide', () => {
  // 48 is Texas's FIPS code: an NCES district id of Texas starts with it.
  const austinIsd: Buyer = {
    id: 'aisd',
    name: 'Austin Independent School District',
    stateCode: 'TX',
    type: 'SchoolDistrict',
    url: 'https://www.austinisd.org',
    attributes: { NcesId: '4808940' },
  };

  it('an id the name search cannot reach is found through the words of the web address', async () => {
    const { client } = server([austinIsd]);
    const decision = await new Resolver({ client }).resolve({
      ...account('Zq Schools', 'TX'),
      website: 'austinisd.org',
      ids: { nces: '4808940' },
    });
    expect(decision.status, decision.explanation).toBe('matched');
    if (decision.status === 'matched') expect(decision.source).toBe('id');
  });

  it('an id found on no buyer is never a silent no_match: a person reviews, told which id', async () => {
    const { client } = server([austinIsd]);
    const decision = await new Resolver({ client }).resolve({
      ...account('Qqq', 'TX'),
      ids: { nces: '4899999' },
    });
    expect(decision.status).toBe('needs_review');
    expect(decision.explanation).toContain('NCES id 4899999');
  });
});

describe('names that span states, offices, numbers written with hyphens', () => {
  it('a name naming both states ("NY & NJ") matches the body in the other one', async () => {
    const { client } = server([
      {
        id: 'panynj',
        name: 'Port Authority of New York and New Jersey',
        stateCode: 'NY',
        type: 'SpecialDistrict',
      },
      { id: 'drpa', name: 'Delaware River Port Authority', stateCode: 'NJ', type: 'SpecialDistrict' },
    ]);
    const decision = await new Resolver({ client }).resolve(account('Port Authority of NY & NJ', 'NJ'));
    expect(decision.status, decision.explanation).toBe('matched');
    if (decision.status === 'matched') expect(decision.buyerId).toBe('panynj');
  });

  it('"Tarrant County 911" is the 9-1-1 district: its number tells it from the county', async () => {
    const { client } = server([
      { id: 'tc', name: 'Tarrant County', stateCode: 'TX', type: 'County' },
      { id: 'tc911', name: 'Tarrant County 9-1-1 District', stateCode: 'TX', type: 'District' },
    ]);
    const decision = await new Resolver({ client }).resolve(account('Tarrant County 911', 'TX'));
    expect(decision.status, decision.explanation).toBe('matched');
    if (decision.status === 'matched') expect(decision.buyerId).toBe('tc911');
  });

  it('a name that only resembles the buyer’s, however close, goes to a person', async () => {
    const { client } = server([
      {
        id: 'water',
        name: 'Northside Regional Water Authority',
        stateCode: 'TX',
        type: 'SpecialDistrict',
      },
    ]);
    const decision = await new Resolver({ client }).resolve(
      account('Northside Regional Water Reclamation Authority', 'TX'),
    );
    expect(decision.status).toBe('needs_review');
    expect(decision.explanation).toContain('only resembles "Northside Regional Water Authority" (TX)');
    expect(decision.candidates[0]?.buyerId).toBe('water');
  });

  it('a closing VA that contradicts the account’s state is Veterans Affairs, not Virginia', async () => {
    const { client } = server([
      { id: 'city', name: 'City of Minneapolis', stateCode: 'MN', type: 'City' },
      { id: 'va', name: 'Minneapolis VA Health Care System', stateCode: 'MN', type: 'Federal' },
    ]);
    const decision = await new Resolver({ client }).resolve(account('Minneapolis VA', 'MN'));
    expect(decision.candidates.map((c) => c.buyerId)).toContain('va');
    expect(decision.status === 'matched' ? decision.buyerId : decision.candidates[0]?.buyerId).toBe('va');
    expect(decision.explanation).not.toContain('its name says VA');
  });

  it('a department named in full on its city’s site is the department, not the city', async () => {
    const { client } = server([
      {
        id: 'city',
        name: 'City of Tacoma',
        stateCode: 'WA',
        type: 'City',
        url: 'https://www.cityoftacoma.org',
      },
      {
        id: 'tpd',
        name: 'Tacoma Police Department',
        stateCode: 'WA',
        type: 'PoliceDepartment',
        url: 'https://www.tacomapd.org',
      },
    ]);
    const police = await new Resolver({ client }).resolve(
      account('Tacoma Police Department', 'WA', { website: 'https://www.cityoftacoma.org' }),
    );
    expect(police.status).toBe('matched');
    if (police.status === 'matched') expect(police.buyerId).toBe('tpd');
    // The city by its own name on its own site is still the city.
    const city = await new Resolver({ client }).resolve(
      account('City of Tacoma', 'WA', { website: 'https://www.cityoftacoma.org' }),
    );
    expect(city.status === 'matched' && city.buyerId).toBe('city');
  });

  it('a government’s name with its sheriff’s page as website: a person chooses between the two', async () => {
    const { client } = server([
      {
        id: 'hc',
        name: 'Harris County',
        stateCode: 'TX',
        type: 'County',
        url: 'https://www.harriscountytx.gov',
      },
      {
        id: 'hcso',
        name: "Harris County Sheriff's Office",
        stateCode: 'TX',
        type: 'PoliceDepartment',
        url: 'https://www.harriscountytx.gov/departments/sheriff',
      },
    ]);
    const decision = await new Resolver({ client }).resolve(
      account('Harris County', 'TX', { website: 'https://www.harriscountytx.gov/departments/sheriff' }),
    );
    expect(decision.status).toBe('needs_review');
    expect(decision.explanation).toContain('website is "Harris County Sheriff\'s Office"');
    const sheriff = await new Resolver({ client }).resolve(
      account('Harris County Sheriffs Office', 'TX', { website: 'harriscountytx.gov/departments/sheriff' }),
    );
    expect(sheriff.status).toBe('matched');
    if (sheriff.status === 'matched') expect(sheriff.buyerId).toBe('hcso');
  });
});
