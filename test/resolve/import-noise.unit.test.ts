// What an import or a rep leaves in a name comes off before the name is read, what is a name stays, and
// the words names are cut to read as the words they stand for.
import { describe, expect, it } from 'vitest';
import { withoutImportNoise } from '../../src/resolve/import-noise.ts';
import { normalizeName } from '../../src/resolve/normalize.ts';

describe('withoutImportNoise', () => {
  it.each([
    ['City of Austin – Attn: J. Smith', 'City of Austin'],
    ['Travis County c/o Purchasing', 'Travis County'],
    ['Harris County, Attn Accounts Payable', 'Harris County'],
    ['Springfield Police Dept (inactive)', 'Springfield Police Dept'],
    ['Los Angeles Unified [DUPLICATE]', 'Los Angeles Unified'],
    ['Cobb County Schools *inactive*', 'Cobb County Schools'],
    ['Howard County - DO NOT USE', 'Howard County'],
    ['Houston Public Library – DO NOT USE – see parent', 'Houston Public Library'],
    ['City of Boston - ZZ DO NOT USE', 'City of Boston'],
    ['ZZ City of Boston', 'City of Boston'],
    ['Denver Public Schools (303) 555-1234', 'Denver Public Schools'],
    ['City of Fresno 559-621-7001', 'City of Fresno'],
    ['Jackson County 64106 (old)', 'Jackson County'],
  ])('%s → %s', (input, name) => {
    expect(withoutImportNoise(input).name).toBe(name);
  });

  it('keeps a zip read off the end as evidence, and says what it took off', () => {
    expect(withoutImportNoise('Dayton Public Schools 45402')).toEqual({
      name: 'Dayton Public Schools',
      zip: '45402',
      removed: ['45402'],
    });
    expect(withoutImportNoise('Plano ISD 75074-1234').zip).toBe('75074');
  });

  it.each([
    'Indiana University - Purdue University Indianapolis',
    'School District 45',
    'Community Unit School District 300',
    'Fire District 12',
    'Unit 5',
    'Macon-Bibb',
    'City of Mesa (AZ)',
    'Zzyzx Water District',
  ])('leaves a name that is all name alone: %s', (input) => {
    expect(withoutImportNoise(input)).toEqual({ name: input, zip: null, removed: [] });
  });
});

describe('words cut short', () => {
  it.each([
    ['Milwaukee Dept. of Pub. Wks.', 'Milwaukee Department of Public Works'],
    ['Franklin Co. Ct. of Common Pleas', 'Franklin County Court of Common Pleas'],
    ['Tulsa Soil & Water Cons. Dist.', 'Tulsa Soil and Water Conservation District'],
    ['Kirkland P&R Dist.', 'Kirkland Parks and Recreation District'],
    ['Bolingbrook Parks & Rec. Dist.', 'Bolingbrook Parks and Recreation District'],
    ['Maricopa Co. Sheriff’s Off.', 'Maricopa County Sheriff’s Office'],
  ])('%s reads as %s', (typed, full) => {
    expect(normalizeName(typed).tokens).toEqual(normalizeName(full).tokens);
  });

  it.each([
    ['Clinton Twp.', 'Charter Township of Clinton'],
    ['Shelby Charter Township', 'Charter Township of Shelby'],
  ])('%s names the place and the kind %s does', (typed, full) => {
    const [a, b] = [normalizeName(typed), normalizeName(full)];
    expect([a.core, a.typeHint]).toEqual([b.core, b.typeHint]);
    expect(a.core).toEqual([typed.split(' ')[0]?.toLowerCase()]);
  });
});
