// Names as a rep types them (issue 46, kinds 5 and 6): a consolidated government by its two places or
// with its closing words, a state's initial after "U of", a leading "VA", a department on its
// consolidated parent's site or held back behind its parent. Each rule against a small server of our
// own (a plain search over legal names, the state filter honoured), with the look-alikes that must
// stay a person's choice.
import { describe, expect, it } from 'vitest';
import { Resolver } from '../../src/resolve/resolver.ts';
import type { MatchDecision } from '../../src/resolve/types.ts';
import { type WordSearchBuyer as Buyer, wordSearch } from '../helpers/word-search.ts';

const resolve = (buyers: readonly Buyer[], name: string, state: string, website: string | null = null) =>
  new Resolver({ client: wordSearch(buyers).client }).resolve({ id: 'a1', name, state, website });

const matchedId = (d: MatchDecision) => (d.status === 'matched' ? d.buyerId : null);

describe('a consolidated government by its two places', () => {
  const buyers: Buyer[] = [
    {
      id: 'nash',
      name: 'Metropolitan Government of Nashville and Davidson County',
      stateCode: 'TN',
      type: 'City',
    },
    { id: 'dav', name: 'Davidson County', stateCode: 'TN', type: 'County' },
    { id: 'acc', name: 'Unified Government of Athens-Clarke County', stateCode: 'GA', type: 'City' },
    { id: 'clarke', name: 'Clarke County', stateCode: 'GA', type: 'County' },
    { id: 'atc', name: 'Athens Technical Institute', stateCode: 'GA', type: 'HigherEducation' },
    { id: 'macon', name: 'Macon-Bibb County Government', stateCode: 'GA', type: 'City' },
    { id: 'mha', name: 'Macon Housing Authority', stateCode: 'GA', type: 'SpecialDistrict' },
  ];

  it('"Nashville-Davidson" is the metropolitan government, not Davidson County', async () => {
    const d = await resolve(buyers, 'Nashville-Davidson', 'TN');
    expect(matchedId(d), d.explanation).toBe('nash');
    expect(d.explanation).toContain('names both places');
  });

  it('one place and another word is no such reading: "Athens Technical College", "Macon Water Authority"', async () => {
    for (const name of ['Athens Technical College', 'Macon Water Authority', 'Nashville Davidson Airport']) {
      const d = await resolve(buyers, name, name.startsWith('Nashville') ? 'TN' : 'GA');
      expect(d.status, `${name}: ${d.explanation}`).not.toBe('matched');
    }
  });
});

describe('a consolidated government’s closing words read as its prefix', () => {
  const buyers: Buyer[] = [
    { id: 'acc', name: 'Unified Government of Athens-Clarke County', stateCode: 'GA', type: 'City' },
    { id: 'clarke', name: 'Clarke County', stateCode: 'GA', type: 'County' },
    { id: 'laf-in', name: 'City of Lafayette', stateCode: 'IN', type: 'City' },
    { id: 'laf-la', name: 'Lafayette City-Parish Consolidated Government', stateCode: 'LA', type: 'City' },
  ];

  it('"Athens Clarke Co Unified Govt" is the Unified Government of Athens-Clarke County', async () => {
    const d = await resolve(buyers, 'Athens Clarke Co Unified Govt', 'GA');
    expect(matchedId(d), d.explanation).toBe('acc');
    expect(d.explanation).toContain('read as "Unified Government of Athens Clarke Co"');
  });

  it('not against a buyer that is no consolidated government, nor one in another state', async () => {
    const d = await resolve(buyers, 'Lafayette Consolidated Govt', 'IN');
    expect(d.status, d.explanation).not.toBe('matched');
    expect(d.explanation).not.toContain('read as "Consolidated Government of Lafayette"');
  });
});

describe('a single letter after "U of" is the account’s state', () => {
  const buyers: Buyer[] = [
    { id: 'uis', name: 'University of Illinois Springfield', stateCode: 'IL', type: 'HigherEducation' },
    { id: 'spi', name: 'City of Springfield', stateCode: 'IL', type: 'City' },
    { id: 'ums', name: 'Missouri State University', stateCode: 'MO', type: 'HigherEducation' },
    { id: 'mos', name: 'City of Springfield', stateCode: 'MO', type: 'City' },
  ];

  it('"U of I Springfield" filed in IL is the University of Illinois Springfield', async () => {
    const d = await resolve(buyers, 'U of I Springfield', 'IL');
    expect(matchedId(d), d.explanation).toBe('uis');
    expect(d.explanation).toContain('"I" read as Illinois');
  });

  it('a letter that is not the state’s initial is not read so', async () => {
    const d = await resolve(buyers, 'U of I Springfield', 'MO');
    expect(d.status, d.explanation).not.toBe('matched');
  });
});

describe('a department on its parent’s site', () => {
  const buyers: Buyer[] = [
    {
      id: 'lou',
      name: 'Louisville/Jefferson County Metro Government',
      stateCode: 'KY',
      type: 'County',
      url: 'https://louisvilleky.gov',
    },
    {
      id: 'lfd',
      name: 'Louisville Fire Department',
      stateCode: 'KY',
      type: 'FireDepartment',
      url: 'https://louisvilleky.gov/departments/fire',
    },
    {
      id: 'mdc',
      name: 'Miami-Dade County',
      stateCode: 'FL',
      type: 'County',
      url: 'https://miamidadecountyfl.gov',
    },
    {
      id: 'mdfr',
      name: 'Miami-Dade County Fire Rescue',
      stateCode: 'FL',
      type: 'FireDepartment',
      url: 'https://miamidadecountyfl.gov/departments/fire',
    },
    { id: 'kc', name: 'King County', stateCode: 'WA', type: 'County', url: 'https://kingcountywa.gov' },
    {
      id: 'kce',
      name: 'King County Elections',
      stateCode: 'WA',
      type: 'GovernmentAgency',
      url: 'https://kingcountywa.gov/elections',
    },
  ];

  it('a consolidated parent is named by one of its places: "Louisville Fire Department" on louisvilleky.gov', async () => {
    const d = await resolve(buyers, 'Louisville Fire Department', 'KY', 'louisvilleky.gov');
    expect(matchedId(d), d.explanation).toBe('lfd');
    // The government by its own name on its own site is still the government.
    const metro = await resolve(buyers, 'Louisville Metro Government', 'KY', 'louisvilleky.gov');
    expect(matchedId(metro), metro.explanation).toBe('lou');
  });

  it('a short form of the department names it as its full name does: "Miami-Dade Fire Rescue"', async () => {
    const d = await resolve(buyers, 'Miami-Dade Fire Rescue', 'FL', 'miamidadecountyfl.gov');
    expect(matchedId(d), d.explanation).toBe('mdfr');
  });

  it('the owner held back as "a part of it": the candidate that is the owner with that part', async () => {
    const d = await resolve(buyers, 'King County Elections', 'WA', 'kingcountywa.gov');
    expect(matchedId(d), d.explanation).toBe('kce');
    // A part no candidate carries still goes to a person.
    const parks = await resolve(buyers, 'King County Parks', 'WA', 'kingcountywa.gov');
    expect(parks.status, parks.explanation).toBe('needs_review');
  });
});

describe('a leading "VA" before a place of another state is Veterans Affairs', () => {
  const buyers: Buyer[] = [
    { id: 'mpls', name: 'City of Minneapolis', stateCode: 'MN', type: 'City' },
    { id: 'mva', name: 'Minneapolis VA Health Care System', stateCode: 'MN', type: 'Federal' },
    { id: 'ntx', name: 'VA North Texas Health Care System', stateCode: 'TX', type: 'Federal' },
    { id: 'ric', name: 'City of Richmond', stateCode: 'VA', type: 'City' },
    { id: 'ricva', name: 'Richmond VA Medical Center', stateCode: 'VA', type: 'Federal' },
  ];

  it('"VA Minneapolis" filed in MN is the Minneapolis VA, as "Minneapolis VA" is', async () => {
    const d = await resolve(buyers, 'VA Minneapolis', 'MN');
    expect(matchedId(d), d.explanation).toBe('mva');
  });

  it('not in Virginia, and not before more than a place: those names are read as written', async () => {
    const ric = await resolve(buyers, 'VA Richmond', 'VA');
    expect(matchedId(ric), ric.explanation).not.toBe('ricva');
    const ntx = await resolve(buyers, 'VA North Texas Health Care System', 'TX');
    expect(matchedId(ntx), ntx.explanation).toBe('ntx');
  });
});
