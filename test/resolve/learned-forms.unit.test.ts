// Which names a person's decision may teach (src/resolve/learned.ts): a name that says which buyer it
// is, never one that says only a kind — kind words with a number, or kind words alone, which the
// resolver may place by the account's city or zip but a rule (name and state) cannot. Learnt, one
// person's confirm of "Tribal Council" (AZ, the Hopi Tribe's zip) would match every Tribal Council
// of the state to the Hopi Tribe.
import { describe, expect, it } from 'vitest';
import { nameFormOf } from '../../src/resolve/learned.ts';

describe('the name form a decision teaches', () => {
  it.each([
    ['HCPSS', 'MD'],
    ['Howard County Public Schools', 'MD'],
    ['City of Springfield', 'MO'],
  ])('"%s" (%s) is taught', (name, state) => {
    expect(nameFormOf({ name, state })).not.toBeNull();
  });

  it.each([
    ['Tribal Council', 'AZ'],
    ['Board of Education', 'NJ'],
    ['Police Department', 'OH'],
    ['School District 65', 'IL'],
  ])('"%s" (%s) says only a kind: nothing is taught', (name, state) => {
    expect(nameFormOf({ name, state })).toBeNull();
  });
});
