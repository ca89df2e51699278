import { describe, expect, it } from 'vitest';
import { compareNames } from '../../src/resolve/compare.ts';
import { fallbackQuery, foldText, hintOfBuyerType, normalizeName } from '../../src/resolve/normalize.ts';

const similarity = (a: string, b: string) => compareNames(normalizeName(a), normalizeName(b)).similarity;

describe('foldText', () => {
  it('folds case, diacritics, punctuation and "&"', () => {
    expect(foldText('  Española, N.M. — Dept. of Parks & Rec ')).toBe('espanola n m dept of parks and rec');
    // A possessive is the owner's word; a number in single digits is one number.
    expect(foldText("Wake County Sheriff's Office")).toBe('wake county sheriff office');
    expect(foldText('Tarrant County 9-1-1 District')).toBe('tarrant county 911 district');
  });
});

describe('normalizeName', () => {
  it('"City of Austin", "Austin, TX" and "Austin city" have the same core tokens', () => {
    const city = normalizeName('City of Austin');
    const suffixed = normalizeName('Austin, TX');
    const census = normalizeName('Austin city');
    expect(city.core).toEqual(['austin']);
    expect(suffixed.core).toEqual(['austin']);
    expect(census.core).toEqual(['austin']);
    expect(city.typeHint).toBe('city');
    expect(census.typeHint).toBe('city');
    // "X, ST" is how a city's account is named (the match-eval set's README): a weak city hint.
    expect(suffixed.typeHint).toBe('city');
    expect(normalizeName('Austin').typeHint).toBeNull();
    expect(suffixed.stateCode).toBe('TX');
    expect(normalizeName('Austin, Texas').stateCode).toBe('TX');
    expect(normalizeName('Portland OR').stateCode).toBe('OR');
    expect(normalizeName('Springfield (IL)').stateCode).toBe('IL');
    expect(suffixed.searchName).toBe('Austin');
  });

  it('keeps "City" when it is part of the name', () => {
    expect(normalizeName('Kansas City').core).toEqual(['kansas', 'city']);
    expect(normalizeName('City of Kansas City').core).toEqual(['kansas', 'city']);
    expect(normalizeName('Kansas City city').core).toEqual(['kansas', 'city']);
    expect(normalizeName('kansas city').core).toEqual(['kansas', 'city']);
    expect(normalizeName('City of College Station').core).toEqual(['college', 'station']);
  });

  it('reads a name inverted behind a comma, or by a trailing "City of", in its own order', () => {
    const cases: [string, string][] = [
      ['Mansfield, City of', 'City of Mansfield'],
      ['Mansfield City of', 'City of Mansfield'],
      ['Mansfield, City Of, OH', 'City of Mansfield, OH'],
      ['Montpelier, Town of', 'Town of Montpelier'],
      ['Caro, Village of', 'Village of Caro'],
      ['Denver, City and County of', 'City and County of Denver'],
      ['Travis, County of', 'County of Travis'],
      ['Clinton, Charter Township of', 'Charter Township of Clinton'],
      ['Texas, State of', 'State of Texas'],
      ['Transportation, Department of', 'Department of Transportation'],
    ];
    for (const [inverted, plain] of cases) {
      const a = normalizeName(inverted);
      const b = normalizeName(plain);
      expect([a.core, a.typeTokens, a.typeHint, a.stateCode], inverted).toEqual([
        b.core,
        b.typeTokens,
        b.typeHint,
        b.stateCode,
      ]);
    }
    // Left as written, "City" read as a word of the place: "Mansfield City Schools" was its name.
    expect(similarity('Mansfield, City of', 'Mansfield City Schools')).toBeLessThan(0.75);
    expect(normalizeName('City of').core).toEqual(['city']);
  });

  it('reads "Austin City Hall" as the city, the hall as the government that sits in it', () => {
    const hall = normalizeName('Austin City Hall');
    expect([hall.core, hall.typeHint]).toEqual([['austin'], 'city']);
    expect(similarity('Austin City Hall', 'City of Austin')).toBe(1);
    expect(similarity('Addison Town Hall', 'Town of Addison')).toBe(1);
    expect(normalizeName('Kansas City City Hall').core).toEqual(['kansas', 'city']);
  });

  it('"Austin ISD" ≡ "Austin Independent School District"', () => {
    const short = normalizeName('Austin ISD');
    const long = normalizeName('Austin Independent School District');
    expect(short.core).toEqual(long.core);
    expect(short.typeTokens).toEqual(long.typeTokens);
    expect(short.typeHint).toBe('school-district');
    expect(short.expansions).toEqual(['ISD → independent school district']);
    expect(similarity('Austin ISD', 'Austin Independent School District')).toBe(1);
  });

  it('"Univ. of Texas at Austin" ≈ "The University of Texas at Austin"', () => {
    const a = normalizeName('Univ. of Texas at Austin');
    const b = normalizeName('The University of Texas at Austin');
    expect(a.core).toEqual(['texas', 'austin']);
    expect(b.core).toEqual(['texas', 'austin']);
    expect(a.typeHint).toBe('higher-education');
    expect(similarity('Univ. of Texas at Austin', 'The University of Texas at Austin')).toBe(1);
  });

  it('reads a leading "U" before a state’s name as its university, the place after it as the campus', () => {
    const campus = normalizeName('U Missouri Kansas City');
    expect(campus.tokens).toEqual(normalizeName('University of Missouri-Kansas City').tokens);
    expect(campus.typeHint).toBe('higher-education');
    expect(similarity('U New Mexico', 'University of New Mexico')).toBe(1);
    // Another university ("Kansas State"), a postal code ("U In Springfield"), no state: not read.
    expect(normalizeName('U Kansas State').tokens).not.toContain('university');
    expect(normalizeName('U In Springfield').tokens).not.toContain('university');
    expect(normalizeName('U Haul Depot').tokens).not.toContain('university');
  });

  it('"City of Austin" and "Austin County" share the core and differ by type', () => {
    const city = normalizeName('City of Austin');
    const county = normalizeName('Austin County');
    expect(county.core).toEqual(city.core);
    expect(county.typeHint).toBe('county');
    expect(similarity('City of Austin', 'Austin County')).toBeLessThan(0.75);
    expect(similarity('City of Austin', 'Austin')).toBe(1);
  });

  it('expands and folds the abbreviations of CRM names', () => {
    const cases: [string, string, string][] = [
      ['Round Rock CISD', 'Round Rock Consolidated Independent School District', 'school-district'],
      ['Los Angeles USD', 'Los Angeles Unified School District', 'school-district'],
      ['Portland SD', 'Portland School District', 'school-district'],
      ['Springfield Public Schools', 'Springfield School District', 'school-district'],
      ['DeKalb County Schools', 'DeKalb County School District', 'school-district'],
      ['Austin PD', 'Austin Police Department', 'police'],
      ['Austin FD', 'Austin Fire Department', 'fire'],
      ['Austin Fire Dept', 'Austin Fire Department', 'fire'],
      ['Austin CC', 'Austin Community College', 'higher-education'],
      ['Bexar Co.', 'Bexar County', 'county'],
      ['Bexar Cnty', 'Bexar County', 'county'],
      ['Lower Merion Twp', 'Lower Merion Township', 'city'],
      ['Mt. Pleasant', 'Mount Pleasant', ''],
      ['Ft. Worth', 'Fort Worth', ''],
      ['St. Louis County', 'Saint Louis County', 'county'],
      ['Travis County Government', 'Travis County', 'county'],
      ['The City of Española', 'City of Espanola', 'city'],
      ['Texas A&M University', 'Texas A and M University', 'higher-education'],
    ];
    for (const [short, long, hint] of cases) {
      expect(similarity(short, long), `${short} vs ${long}`).toBe(1);
      expect(normalizeName(short).typeHint ?? '', short).toBe(hint);
    }
  });

  it('detects the kind of buyer, the most specific kind winning', () => {
    expect(normalizeName('Mecklenburg County Fire Department').typeHint).toBe('fire');
    expect(normalizeName("Wake County Sheriff's Office").typeHint).toBe('police');
    expect(normalizeName('Texas Department of Transportation').typeHint).toBe('state-agency');
    expect(normalizeName('Austin Municipal Utility District').typeHint).toBe('special-district');
    expect(normalizeName('Port of Portland').typeHint).toBe('special-district');
    expect(normalizeName('City of Port Arthur').typeHint).toBe('city');
    expect(normalizeName('U.S. Department of Veterans Affairs').typeHint).toBe('federal');
    expect(normalizeName('Austin Public Library').typeHint).toBe('library');
    expect(normalizeName('Hillcrest High School').typeHint).toBe('school');
    expect(normalizeName('Austin').typeHint).toBeNull();
    expect(hintOfBuyerType('SchoolDistrict')).toBe('school-district');
    expect(hintOfBuyerType('PrivateCompany')).toBeNull();
  });

  it('takes the kind from the words before "of": those after it name the place the body serves', () => {
    // "County" says where the preserves are, not that they are the county: unknown, so no conflict.
    expect(normalizeName('Forest Preserves of Cook County').typeHint).toBeNull();
    expect(normalizeName('University of Texas').typeHint).toBe('higher-education');
    expect(normalizeName('City of Austin').typeHint).toBe('city');
    expect(normalizeName('Port of Seattle').typeHint).toBe('special-district');
    expect(normalizeName('Fire Department of Howard County').typeHint).toBe('fire');
  });

  it('compares the styles a tribe names itself by as one word, but not "Nation"', () => {
    expect(similarity('Zuni Tribe', 'Pueblo of Zuni')).toBe(1);
    expect(similarity('Mashantucket Pequot Tribe', 'Mashantucket Pequot Tribal Nation')).toBeGreaterThan(0.8);
    expect(similarity('Seminole Nation', 'Seminole Tribe')).toBeLessThan(1);
    expect(normalizeName('Pueblo of Zuni').typeHint).toBe('tribal');
    // Pueblo, Colorado is a city: "Pueblo" is a tribe's style only before "of".
    expect(normalizeName('Pueblo').typeHint).toBeNull();
    expect(normalizeName('Pueblo County').typeHint).toBe('county');
  });

  it('keeps capitalised unknown tokens as possible acronyms', () => {
    expect(normalizeName('UT Austin').acronyms).toEqual(['ut']);
    expect(normalizeName('Austin ISD').acronyms).toEqual([]);
  });

  it('builds the fallback query from the canonical tokens', () => {
    expect(fallbackQuery(normalizeName('City of Springfield'))).toBe('springfield');
    expect(fallbackQuery(normalizeName('Austin ISD, TX'))).toBe('austin independent school district');
  });
});
