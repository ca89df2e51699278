import { describe, expect, it } from 'vitest';
import { parseWebAddress, registrableDomain } from '../../src/resolve/domains.ts';
import { editDistance } from '../../src/resolve/normalize.ts';
import { type ScoreResult, scoreCandidate } from '../../src/resolve/score.ts';
import { DEFAULT_WEIGHTS } from '../../src/resolve/weights.ts';

const sum = (r: ScoreResult) => r.signals.reduce((s, x) => s + x.points, 0);
const points = (r: ScoreResult, signal: string) =>
  r.signals.filter((s) => s.signal === signal).reduce((s, x) => s + x.points, 0);

const cityOfAustinTX = {
  name: 'City of Austin',
  stateCode: 'TX',
  type: 'City',
  url: 'https://www.austintexas.gov',
};
const austinIsd = {
  name: 'Austin Independent School District',
  stateCode: 'TX',
  type: 'SchoolDistrict',
  url: 'https://www.austinisd.org',
};

describe('scoreCandidate', () => {
  it('explains an ISD match signal by signal, and the signals add up to the score', () => {
    const r = scoreCandidate({ name: 'Austin ISD', state: 'Texas', website: 'austinisd.org' }, austinIsd);
    expect(points(r, 'name')).toBe(DEFAULT_WEIGHTS.name);
    expect(r.signals.find((s) => s.signal === 'name')?.detail).toContain('core tokens equal');
    expect(r.signals.find((s) => s.signal === 'state')).toEqual({
      signal: 'state',
      points: 0.2,
      detail: 'TX = TX',
    });
    expect(points(r, 'website')).toBe(DEFAULT_WEIGHTS.website);
    expect(points(r, 'type')).toBe(DEFAULT_WEIGHTS.typeAgreement);
    expect(r.score).toBe(1);
    expect(points(r, 'clamp')).toBeLessThan(0);
    expect(sum(r)).toBeCloseTo(r.score, 9);
    expect(r.reasons).toContain('name equal after expanding ISD');
  });

  it('another state is strong evidence against, not a wall: it costs points and asks for independent evidence', () => {
    const r = scoreCandidate(
      { name: 'City of Austin', state: 'Minnesota', website: 'https://austintexas.gov' },
      cityOfAustinTX,
    );
    expect(r.otherState).toBe(true);
    // The website is the buyer's own home page: the independent evidence a match across states needs,
    // and it places the account where the buyer is, as the state would have.
    expect(r.independent).toBe(true);
    expect(r.signals.find((s) => s.signal === 'state')?.points).toBe(0.2);
    // Another page on the buyer's site says less: the state then costs nothing, and earns nothing.
    const section = scoreCandidate(
      { name: 'City of Austin', state: 'Minnesota', website: 'https://austintexas.gov/department/parks' },
      cityOfAustinTX,
    );
    expect(section.independent).toBe(true);
    expect(section.signals.find((s) => s.signal === 'state')?.points).toBe(0);
    expect(sum(r)).toBeCloseTo(r.score, 9);
    const nameOnly = scoreCandidate({ name: 'City of Austin', state: 'MN', website: null }, cityOfAustinTX);
    expect(nameOnly.otherState).toBe(true);
    expect(nameOnly.independent).toBe(false);
    expect(nameOnly.signals.find((s) => s.signal === 'state')).toEqual({
      signal: 'state',
      points: -0.3,
      detail: 'account in MN, buyer in TX',
    });
    expect(nameOnly.score).toBeLessThan(r.score);
  });

  it('an unknown account state is not compared, and a state in the name is used', () => {
    const unknown = scoreCandidate({ name: 'City of Austin', state: 'Tejas', website: null }, cityOfAustinTX);
    expect(unknown.signals.find((s) => s.signal === 'state')).toMatchObject({ points: 0 });
    expect(unknown.otherState).toBe(false);
    const fromName = scoreCandidate(
      { name: 'City of Austin, MN', state: null, website: null },
      cityOfAustinTX,
    );
    expect(fromName.otherState).toBe(true);
  });

  it('"City of Austin" against the county: same place, conflicting type', () => {
    const r = scoreCandidate(
      { name: 'City of Austin', state: 'TX', website: null },
      { name: 'Austin County', stateCode: 'TX', type: 'County', url: 'https://www.austincounty.com' },
    );
    expect(points(r, 'type')).toBe(DEFAULT_WEIGHTS.typeConflict);
    expect(r.score).toBeLessThan(0.5);
    const right = scoreCandidate({ name: 'City of Austin', state: 'TX', website: null }, cityOfAustinTX);
    expect(right.score).toBeGreaterThanOrEqual(0.75);
  });

  it('website: home page, a section of the same site, a shared registrable domain, a mismatch', () => {
    const police = {
      name: 'Austin Police Department',
      stateCode: 'TX',
      type: 'PoliceDepartment',
      url: 'https://www.austintexas.gov/department/police',
    };
    const account = { name: 'Austin', state: 'TX', website: 'http://austintexas.gov/' };
    expect(scoreCandidate(account, cityOfAustinTX).web).toBe('home-page');
    expect(scoreCandidate(account, police).web).toBe('section');
    expect(
      scoreCandidate({ ...account, website: 'https://www.austintexas.gov/department/police/' }, police).web,
    ).toBe('home-page');
    expect(scoreCandidate({ ...account, website: 'library.austintexas.gov' }, cityOfAustinTX).web).toBe(
      'domain',
    );
    const other = scoreCandidate({ ...account, website: 'austincounty.com' }, cityOfAustinTX);
    expect(other.web).toBe('mismatch');
    expect(points(other, 'website')).toBe(DEFAULT_WEIGHTS.websiteMismatch);
  });

  it('email domains count when the website does not, free mail does not', () => {
    const ut = {
      name: 'The University of Texas at Austin',
      stateCode: 'TX',
      type: 'HigherEducation',
      url: 'https://www.utexas.edu',
    };
    const r = scoreCandidate(
      { name: 'UT Austin', state: 'TX', website: null, emailDomains: ['austin.utexas.edu'] },
      ut,
    );
    expect(points(r, 'email-domain')).toBe(DEFAULT_WEIGHTS.emailDomain);
    const free = scoreCandidate(
      { name: 'UT Austin', state: 'TX', website: null, emailDomains: ['gmail.com'] },
      ut,
    );
    expect(free.signals.some((s) => s.signal === 'email-domain')).toBe(false);
  });

  it('reads an acronym as the initials of the buyer name (common name)', () => {
    const ut = {
      name: 'The University of Texas at Austin',
      stateCode: 'TX',
      type: 'HigherEducation',
      url: null,
    };
    const r = scoreCandidate({ name: 'UT Austin', state: 'TX', website: null }, ut);
    expect(points(r, 'acronym')).toBeGreaterThan(0);
    // Equal names once read, at the reading's credit.
    expect(r.nameSimilarity).toBe(DEFAULT_WEIGHTS.readingCredit);
    expect(r.score).toBeGreaterThanOrEqual(0.75);
    expect(sum(r)).toBeCloseTo(r.score, 9);
  });

  it('tolerates a typo in a name token', () => {
    const r = scoreCandidate(
      { name: 'Springfeild Public Schools', state: 'MA', website: null },
      {
        name: 'Springfield Public Schools',
        stateCode: 'MA',
        type: 'SchoolDistrict',
        url: null,
      },
    );
    expect(r.nameSimilarity).toBeGreaterThan(0.7);
    expect(r.signals.find((s) => s.signal === 'typo')?.detail).toContain('springfeild → springfield');
  });

  it('weights are configurable', () => {
    const r = scoreCandidate({ name: 'Austin ISD', state: 'TX', website: null }, austinIsd, {
      name: 0.4,
      state: 0.3,
    });
    expect(points(r, 'name')).toBe(0.4);
    expect(points(r, 'state')).toBe(0.3);
    expect(() => scoreCandidate({ name: 'x', website: null }, austinIsd, { name: Number.NaN })).toThrow(
      RangeError,
    );
  });
});

describe("a rep's short form of the buyer's name, and numbers written in Roman numerals", () => {
  const buyer = (name: string, type: string | null = null, stateCode = 'OK') => ({ name, stateCode, type });
  const read = (account: string, name: string, type: string | null = null, state = 'OK') =>
    scoreCandidate({ name: account, state }, buyer(name, type, state));

  it("reads the buyer's own words from its first word on, the rest left off, as its name", () => {
    for (const [account, name, type, state] of [
      ['United Keetoowah Band', 'United Keetoowah Band of Cherokee Indians', 'IndigenousGovernment', 'OK'],
      ['FBI Chicago', 'FBI Chicago Field Office', 'Federal', 'IL'],
      [
        'Bi-State Development',
        'Bi-State Development Agency of the Missouri-Illinois Metropolitan District',
        null,
        'MO',
      ],
    ] as const) {
      const r = read(account, name, type, state);
      expect(r.nameSimilarity, account).toBe(1);
      expect(
        r.signals.some((s) => s.signal === 'short-form'),
        account,
      ).toBe(true);
      expect(r.reasons.join(', ')).toContain(`a short form of "${name}"`);
      expect(r.score, account).toBeGreaterThanOrEqual(0.75);
    }
  });

  it('is not a short form where a word is dropped before the name, read through a typo, or of another kind', () => {
    const cases = [
      ['City of San Francisco', 'City of South San Francisco', 'City', 'CA'],
      ['Texas Legislature', 'Texas Legislative Council', 'LegislativeBody', 'TX'],
      ['Shelby County', 'Shelby County Emergency Communications District', 'District', 'TN'],
    ] as const;
    for (const [account, name, type, state] of cases) {
      const r = read(account, name, type, state);
      expect(
        r.signals.some((s) => s.signal === 'short-form'),
        account,
      ).toBe(false);
      expect(r.nameSimilarity, account).toBeLessThan(1);
    }
    // A place's name alone says no kind: the county, the city and their districts all begin with it.
    const place = read('Santa Clara', 'Santa Clara Valley Water District', 'SpecialDistrict', 'CA');
    expect(place.signals.some((s) => s.signal === 'short-form')).toBe(false);
  });

  it('a numbered body by its number within its county: "IU 22"', () => {
    const r = read('IU 22', 'Bucks County Intermediate Unit 22', 'District', 'PA');
    expect(r.nameSimilarity).toBe(1);
    expect(read('IU 23', 'Bucks County Intermediate Unit 22', 'District', 'PA').nameSimilarity).toBeLessThan(
      1,
    );
  });

  it('reads a Roman numeral after a word that numbers bodies, and only there', () => {
    expect(read('FEMA Region IV', 'FEMA Region 4', 'Federal', 'GA').nameSimilarity).toBe(1);
    expect(read('FEMA Region IV', 'FEMA Region 6', 'Federal', 'GA').numberConflict).toBe(true);
    expect(read('Louis XIV Academy', 'Louis 14 Academy').nameSimilarity).toBeLessThan(1);
  });
});

describe('web address helpers', () => {
  it('parses hosts without www. and registrable domains of US public-sector sites', () => {
    expect(parseWebAddress('https://www.AustinTexas.gov/')).toEqual({ host: 'austintexas.gov', path: '' });
    expect(parseWebAddress('austinisd.org/about')).toEqual({ host: 'austinisd.org', path: '/about' });
    expect(parseWebAddress('not a url')).toBeNull();
    expect(registrableDomain('www.austintexas.gov')).toBe('austintexas.gov');
    expect(registrableDomain('ci.austin.mn.us')).toBe('austin.mn.us');
    expect(registrableDomain('springfield.k12.or.us')).toBe('springfield.k12.or.us');
    expect(registrableDomain('springfield.il.us')).toBe('springfield.il.us');
    expect(registrableDomain('dps.texas.gov')).toBe('texas.gov');
    expect(registrableDomain('council.leeds.gov.uk')).toBe('leeds.gov.uk');
  });

  it('edit distance counts a transposition as one edit', () => {
    expect(editDistance('springfeild', 'springfield')).toBe(1);
    expect(editDistance('austn', 'austin')).toBe(1);
    expect(editDistance('austin', 'boston')).toBe(3);
  });
});
