// The evidence a person uses beyond the name as written, one rule each: readings of the name (typos,
// initials, short forms, nicknames, the buyer's web address), the phrase that decides the type, a
// company's legal form and the API's order. Each is a signal of its own, and the signals add up.
import { describe, expect, it } from 'vitest';
import { normalizeName } from '../../src/resolve/normalize.ts';
import { prepare } from '../../src/resolve/prepare.ts';
import { readCompound, stateDotNickname } from '../../src/resolve/readings.ts';
import { type ScoreResult, scoreCandidate } from '../../src/resolve/score.ts';
import { DEFAULT_WEIGHTS } from '../../src/resolve/weights.ts';

const sum = (r: ScoreResult) => r.signals.reduce((s, x) => s + x.points, 0);
const points = (r: ScoreResult, signal: string) =>
  r.signals.filter((s) => s.signal === signal).reduce((s, x) => s + x.points, 0);
const tokens = (name: string) => normalizeName(name).tokens;

const houstonIsd = {
  name: 'Houston Independent School District',
  stateCode: 'TX',
  type: 'SchoolDistrict',
  url: 'https://www.houstonisd.org',
};
const txdot = {
  name: 'Texas Department of Transportation',
  stateCode: 'TX',
  type: 'StateAgency',
  url: 'https://www.txdot.gov',
};
const sacramento = { name: 'City of Sacramento', stateCode: 'CA', type: 'City', url: null };

describe('typos', () => {
  it('"City of Sacremento" in CA is Sacramento, at nine tenths of the name, enough with state and type', () => {
    const r = scoreCandidate({ name: 'City of Sacremento', state: 'CA', website: null }, sacramento);
    expect(points(r, 'name')).toBe(0);
    expect(points(r, 'typo')).toBeCloseTo(DEFAULT_WEIGHTS.name * DEFAULT_WEIGHTS.typoCredit, 9);
    expect(r.score).toBeGreaterThanOrEqual(0.75);
    expect(r.reasons[0]).toBe('typo sacremento → sacramento');
    expect(sum(r)).toBeCloseTo(r.score, 9);
  });

  it('one edit from 5 letters, two from 9; never the first letter, never short words', () => {
    const score = (name: string, buyer: string) =>
      scoreCandidate({ name, state: 'TX', website: null }, { name: buyer, stateCode: 'TX', type: 'City' });
    expect(points(score('City of Dalas', 'City of Dallas'), 'typo')).toBeGreaterThan(0);
    expect(points(score('City of Albuqurqe', 'City of Albuquerque'), 'typo')).toBeGreaterThan(0);
    expect(points(score('City of Wacco', 'City of Waco'), 'typo')).toBe(0); // Waco has 4 letters
    expect(points(score('City of Tustin', 'City of Austin'), 'typo')).toBe(0); // first letter
    expect(score('City of Tustin', 'City of Austin').nameSimilarity).toBe(0);
  });

  it('corrects misspelt type words, but not the words a misspelling would hide', () => {
    expect(normalizeName('Travis Countty').typeHint).toBe('county');
    expect(normalizeName('Travis Countty').typos).toEqual(['Countty → county']);
    expect(normalizeName('Fairfax County Pubic Schools').typeHint).toBe('school-district');
    expect(normalizeName('Country Club Hills').typeHint).toBeNull();
    expect(normalizeName('City of Independence').tokens).toEqual(['independence']);
    expect(normalizeName('Portland Schools').typos).toEqual([]);
  });
});

describe('initials, short forms and nicknames', () => {
  it('reads a word as initials or short forms of consecutive words, never mixing the two', () => {
    expect(readCompound('aisd', tokens('Austin Independent School District'))).toMatchObject({
      words: 'austin independent school district',
      how: 'initials',
    });
    expect(readCompound('ut', tokens('The University of Texas at Austin'))?.words).toBe(
      'university of texas',
    );
    expect(readCompound('capmetro', tokens('Capital Metropolitan Transportation Authority'))).toMatchObject({
      words: 'capital metropolitan',
      how: 'short forms',
    });
    expect(readCompound('ga', tokens('Georgia Department of Education'))?.how).toBe('code');
    // "la" is the beginning of too many words: Lakewood is not LA.
    expect(readCompound('lausd', tokens('Lakewood Unified School District'))).toBeNull();
    expect(readCompound('lausd', tokens('Los Angeles Unified School District'))?.how).toBe('initials');
  });

  it('an acronym with the buyer’s own website is a match; alone it says no kind and waits for a person', () => {
    const withSite = scoreCandidate({ name: 'HISD', state: 'TX', website: 'houstonisd.org' }, houstonIsd);
    expect(points(withSite, 'acronym')).toBeGreaterThan(0);
    expect(points(withSite, 'website')).toBe(DEFAULT_WEIGHTS.website);
    expect(withSite.score).toBeGreaterThanOrEqual(0.75);
    const alone = scoreCandidate({ name: 'HISD', state: 'TX', website: null }, houstonIsd);
    expect(points(alone, 'type')).toBeLessThan(DEFAULT_WEIGHTS.typeAgreement); // a bare name's prior at most
    expect(alone.score).toBeLessThan(0.75);
  });

  it('"UT Austin": the initials beside a word that matches', () => {
    const r = scoreCandidate(
      { name: 'UT Austin', state: 'TX', website: null },
      { name: 'The University of Texas at Austin', stateCode: 'TX', type: 'HigherEducation' },
    );
    expect(r.reasons[0]).toBe('UT read as the initials of "university of texas"');
    expect(r.score).toBeGreaterThanOrEqual(0.75);
  });

  it('common abbreviations inside agency names earn the full name', () => {
    const agency = (name: string) => ({ name, stateCode: 'GA', type: 'StateAgency' });
    for (const [typed, legal] of [
      ['Georgia DOT', 'Georgia Department of Transportation'],
      ['GA Dept of Ed', 'Georgia Department of Education'],
      ['Georgia Dept. of Transportation', 'Georgia Department of Transportation'],
      ['Georgia Tech', 'Georgia Institute of Technology'],
    ] as const) {
      const r = scoreCandidate({ name: typed, state: 'GA', website: null }, agency(legal));
      expect(r.nameSimilarity, typed).toBe(1);
      expect(r.score, typed).toBeGreaterThanOrEqual(0.75);
    }
  });

  it('state DOT nicknames: the table, <state>DOT, and one letter for the account’s state', () => {
    expect(stateDotNickname('Caltrans', null)?.name).toBe('California Department of Transportation');
    expect(stateDotNickname('TxDOT', 'TX')?.stateCode).toBe('TX');
    expect(stateDotNickname('NYSDOT', null)?.stateCode).toBe('NY');
    expect(stateDotNickname('WSDOT', 'WA')?.stateCode).toBe('WA');
    expect(stateDotNickname('FDOT', null)?.stateCode).toBe('FL'); // the one state beginning with F
    expect(stateDotNickname('ODOT', null)).toBeNull(); // Ohio, Oklahoma or Oregon
    expect(stateDotNickname('ODOT', 'OR')?.stateCode).toBe('OR');
    expect(stateDotNickname('TxDOT', 'CA')).toBeNull();
    expect(stateDotNickname('DOT', 'TX')).toBeNull();
    const r = scoreCandidate({ name: 'TxDOT', state: 'TX', website: null }, txdot);
    expect(points(r, 'nickname')).toBe(DEFAULT_WEIGHTS.name);
    expect(r.reasons[0]).toBe('TxDOT is the Texas Department of Transportation');
    expect(r.score).toBeGreaterThanOrEqual(0.75);
  });

  it('a name that is the buyer’s web address names it ("SEPTA", septa.org); a state portal’s agency label does not', () => {
    const septa = {
      name: 'Southeastern Pennsylvania Transportation Authority',
      stateCode: 'PA',
      type: 'SpecialDistrict',
      url: 'https://www.septa.org',
    };
    const r = scoreCandidate({ name: 'SEPTA', state: 'PA', website: null }, septa);
    expect(points(r, 'name')).toBe(0);
    expect(points(r, 'domain-name')).toBe(DEFAULT_WEIGHTS.name);
    expect(r.related).toBe(true);
    const dot = scoreCandidate(
      { name: 'DOT', state: 'CA', website: null },
      {
        name: 'California Department of Transportation',
        stateCode: 'CA',
        type: 'StateAgency',
        url: 'https://dot.ca.gov',
      },
    );
    expect(points(dot, 'domain-name')).toBe(0);
  });

  it('no name: a website that is the buyer’s own site stands in for it; another page of it does not', () => {
    const city = { name: 'City of Denver', stateCode: 'CO', type: 'City', url: 'https://www.denverco.gov' };
    const fire = {
      ...city,
      name: 'Denver Fire Department',
      url: 'https://www.denverco.gov/departments/fire',
    };
    const own = scoreCandidate({ name: null, website: 'denverco.gov' }, city);
    expect(points(own, 'domain-name')).toBe(DEFAULT_WEIGHTS.name);
    expect(own.score).toBeGreaterThanOrEqual(0.75);
    expect(points(scoreCandidate({ name: null, website: 'denverco.gov' }, fire), 'domain-name')).toBe(0);
  });
});

describe('the phrase decides the type', () => {
  it.each([
    ['Los Angeles Unified', 'school-district'],
    ['Fresno Unified', 'school-district'],
    ['Mesa Public Schools', 'school-district'],
    ['New York City Department of Education', 'school-district'],
    ['NYC DOE', 'school-district'],
    ['Chicago Board of Education', 'school-district'],
    ['Los Angeles County Office of Education', 'school-district'],
    ['Georgia Department of Education', 'state-agency'],
    ['New York State Department of Education', 'state-agency'],
    ['Department of Education', 'state-agency'],
    ['Texas Department of Transportation', 'state-agency'],
    ['State of Texas', 'state'],
    ['Denver, CO', 'city'],
    ['Orange County, CA', 'county'],
    ['Unified Government of Wyandotte County and Kansas City', 'city'],
    ['Maricopa Community Colleges', 'higher-education'],
  ])('"%s" is a %s', (name, hint) => {
    expect(normalizeName(name).typeHint).toBe(hint);
  });

  it('a conflict between the name’s kind and the buyer’s type is flagged: "State of Texas" is not a university', () => {
    const r = scoreCandidate(
      { name: 'State of Texas', state: 'TX', website: null },
      { name: 'Texas State University', stateCode: 'TX', type: 'HigherEducation' },
    );
    expect(r.typeConflict).toBe(true);
    expect(points(r, 'type')).toBe(DEFAULT_WEIGHTS.typeConflict);
    expect(r.score).toBeLessThan(0.75);
  });

  it('a city’s Department of Education is its school district, not the state agency', () => {
    const account = { name: 'New York City Department of Education', state: 'NY', website: null };
    const district = scoreCandidate(account, {
      name: 'New York City School District',
      stateCode: 'NY',
      type: 'SchoolDistrict',
    });
    const agency = scoreCandidate(account, {
      name: 'New York Department of Education',
      stateCode: 'NY',
      type: 'StateAgency',
    });
    expect(district.score).toBeGreaterThanOrEqual(0.75);
    expect(agency.typeConflict).toBe(true);
  });

  it('"U.S." is whose an agency is: the name without it is the same agency', () => {
    const r = scoreCandidate(
      { name: 'Department of Veterans Affairs', state: null, website: 'va.gov' },
      {
        name: 'U.S. Department of Veterans Affairs',
        stateCode: 'DC',
        type: 'Federal',
        url: 'https://www.va.gov',
      },
    );
    expect(r.nameSimilarity).toBe(1);
    expect(r.typeConflict).toBe(false);
    expect(r.score).toBeGreaterThanOrEqual(0.75);
  });
});

describe('companies and the API’s order', () => {
  it('a company’s legal form takes points off, whatever the name shares', () => {
    const r = scoreCandidate(
      { name: 'Austin Consulting Group LLC', state: 'TX', website: null },
      { name: 'City of Austin', stateCode: 'TX', type: 'City' },
    );
    expect(points(r, 'company')).toBe(DEFAULT_WEIGHTS.company);
    expect(r.reasons).toContain('a company ("LLC")');
    expect(normalizeName('Port Authority Corporation').company).toBeNull(); // public bodies use it
    expect(normalizeName('Federal Signal Corporation').company).toBe('Corporation');
    expect(normalizeName('Travis Co.').company).toBeNull(); // Co. is county
  });

  it('the API’s first and second results earn a tie-break, kept apart as rankPoints', () => {
    const first = scoreCandidate(
      { name: 'City of Sacramento', state: 'CA', website: null },
      sacramento,
      {},
      { rank: 0 },
    );
    const second = scoreCandidate(
      { name: 'City of Sacramento', state: 'CA', website: null },
      sacramento,
      {},
      { rank: 1 },
    );
    const third = scoreCandidate(
      { name: 'City of Sacramento', state: 'CA', website: null },
      sacramento,
      {},
      { rank: 2 },
    );
    expect(first.rankPoints).toBe(DEFAULT_WEIGHTS.rank);
    expect(second.rankPoints).toBe(DEFAULT_WEIGHTS.rank / 2);
    expect(third.rankPoints).toBe(0);
    expect(first.signals.find((s) => s.signal === 'rank')?.detail).toContain('tie-break');
  });
});

describe('a name that names no place, read with the account’s county or city', () => {
  const account = (name: string, extra: { city?: string; county?: string } = {}) => ({
    id: 'a',
    name,
    state: 'IL',
    website: null,
    ...extra,
  });
  const placed = (name: string, extra: { city?: string; county?: string } = {}) => {
    const p = prepare(account(name, extra));
    return 'placed' in p ? p.placed.map((n) => n.searchName) : [];
  };

  it('takes the county, then the city, into the name', () => {
    expect(placed('Park District', { city: 'Naperville' })).toEqual(['Naperville Park District']);
    // A county's office by its county only: "Houston County Clerk's Office" is another county's.
    expect(placed("County Clerk's Office", { city: 'Houston', county: 'Harris County' })).toEqual([
      "Harris County Clerk's Office",
    ]);
    expect(placed('Superior Court', { city: 'San Jose', county: 'Santa Clara County' })).toEqual([
      'Santa Clara county Superior Court',
      'San Jose Superior Court',
    ]);
    expect(placed('911 District', { county: 'Tarrant County' })).toEqual(['Tarrant county 911 District']);
  });

  it('leaves a name that holds a place, or the account’s place, as it is', () => {
    expect(placed('Chicago Park District', { city: 'Naperville' })).toEqual([]);
    expect(placed('Naperville Park District', { city: 'Naperville' })).toEqual([]);
    expect(placed('Park District')).toEqual([]);
  });

  it('scores a buyer on the placed name when it reads better, as a signal of its own', () => {
    const naperville = { name: 'Naperville Park District', stateCode: 'IL', type: 'SpecialDistrict' };
    const chicago = { name: 'Chicago Park District', stateCode: 'IL', type: 'SpecialDistrict' };
    const p = prepare(account('Park District', { city: 'Naperville' }));
    if (!('placed' in p)) throw new Error('prepared');
    const scoring = { name: p.name, state: 'IL', placed: p.placed };
    const right = scoreCandidate(scoring, naperville);
    const other = scoreCandidate(scoring, chicago);
    expect(points(right, 'placed')).toBeGreaterThan(0);
    expect(right.nameSimilarity).toBe(1);
    expect(right.score).toBeGreaterThanOrEqual(0.75);
    expect(points(other, 'placed')).toBe(0);
    expect(right.score - other.score).toBeGreaterThanOrEqual(0.1);
    expect(sum(right)).toBeCloseTo(right.score, 9);
  });
});
