// What to ask the search for, besides the name as typed: a known nickname's full name ("TxDOT" →
// Texas Department of Transportation), and, when the name gives nothing (an acronym, no name at all),
// the words of the account's web address ("austinisd.org" → "austin independent school district").
import { findState, STATES } from '../buyer-intel/states.ts';
import { domainLabel, parseWebAddress } from './domains.ts';
import { memoized } from './memo.ts';
import { foldText, type NormalizedName } from './normalize.ts';
import { correctedPlace, leadingPlace, placeByInitials } from './places.ts';
import { stateDotNickname } from './readings.ts';
import { ABBREVIATIONS } from './vocabulary.ts';

/**
 * The name with the states it names by postal code written out ("Port Authority of NY & NJ" → "Port
 * Authority of New York & New Jersey"): a body named after the states it spans is listed so.
 */
export const statesWrittenOut = memoized((searchName: string): string =>
  searchName.replace(/\b[A-Z]{2}\b/g, (code) => {
    const state = findState(code);
    return state && state.country === 'US' && !NOT_STATE_WORDS.has(code) ? state.name : code;
  }),
);
// Two capitals that are words or abbreviations before they are states in a name.
const NOT_STATE_WORDS = new Set(['CO', 'SD', 'IN', 'OR', 'ME', 'HI', 'OK', 'PA', 'DE', 'ID']);

/** The name with a state DOT's nickname written out, or null when it holds none. */
export function nicknameQuery(name: NormalizedName, accountState: string | null): string | null {
  let changed = false;
  const words = name.searchName.split(/(\s+)/).map((word) => {
    const bare = word.replace(/[^\p{L}\p{N}]/gu, '');
    const nick = bare ? stateDotNickname(bare, accountState ?? name.stateCode) : null;
    if (!nick) return word;
    changed = true;
    return nick.name;
  });
  return changed ? words.join('') : null;
}

// Pieces a domain's label is built of after the body's own name: "austinisd", "kingcountywa",
// "traviscountytx", "houstontexas", "phoenixaz". Each with the words it stands for in a query.
const LEADING = ['cityof', 'townof', 'villageof', 'countyof'];
const KIND_PIECES: Readonly<Record<string, string>> = {
  cisd: ABBREVIATIONS.cisd ?? 'cisd',
  isd: ABBREVIATIONS.isd ?? 'isd',
  usd: ABBREVIATIONS.usd ?? 'usd',
  schools: 'schools',
  county: 'county',
  city: '',
  gov: '',
};
const US_STATES = STATES.filter((s) => s.country === 'US');

/**
 * Reads the end of a label as kind words and a state ("isd", "countywa", "california"), or null when
 * some of it is neither. A two-letter state code is read only after a kind word, after a known place,
 * or when it is the account's state: elsewhere it is too often the end of a name ("portland").
 */
function readTail(
  tail: string,
  codes: 'any' | string | null,
): { words: string[]; stateCode: string | null } | null {
  if (!tail) return { words: [], stateCode: null };
  for (const [piece, words] of Object.entries(KIND_PIECES)) {
    if (!tail.startsWith(piece)) continue;
    const rest = readTail(tail.slice(piece.length), 'any');
    if (rest) return { words: [...(words ? [words] : []), ...rest.words], stateCode: rest.stateCode };
  }
  for (const st of US_STATES) {
    const full = st.name.toLowerCase().replace(/ /g, '');
    const code = st.code.toLowerCase();
    const piece = tail.startsWith(full)
      ? full
      : tail === code && (codes === 'any' || codes === code)
        ? code
        : null;
    if (!piece) continue;
    const rest = readTail(tail.slice(piece.length), null);
    if (rest) return { words: rest.words, stateCode: st.code };
  }
  return null;
}

/**
 * Search words from a web address: the place its label starts with (San Antonio of
 * "sanantonioisd.org"), or else the label up to its kind words and state, with the kind spelled out
 * ("austin independent school district", "king county"); an agency on its state's portal as the
 * state and the agency ("dot.ca.gov" → California department of transportation).
 */
export function domainQuery(
  website: string | null,
  accountState: string | null,
): { query: string; stateCode: string | null } | null {
  const site = parseWebAddress(website);
  const label = site ? domainLabel(site.host) : null;
  if (!site || !label) return null;
  let rest = label.label.replace(/[^a-z0-9]/g, '');
  const portal =
    label.stateCode && !label.k12 && !/\.us$/.test(site.host) ? findState(label.stateCode) : undefined;
  if (portal) return { query: `${portal.name} ${ABBREVIATIONS[rest] ?? rest}`, stateCode: portal.code };
  const lead = LEADING.find((l) => rest.startsWith(l) && rest.length - l.length >= 3);
  if (lead) rest = rest.slice(lead.length);
  const state = accountState ?? label.stateCode;
  const mine = state ? (findState(state)?.code.toLowerCase() ?? null) : null;
  const place = leadingPlace(rest, state);
  let head = place?.place ?? rest;
  let tail = place ? readTail(place.rest, 'any') : null;
  if (!place || !tail) {
    head = rest;
    tail = null;
    for (let at = 3; at < rest.length && !tail; at++) {
      const read = readTail(rest.slice(at), mine);
      if (read) {
        head = rest.slice(0, at);
        tail = read;
      }
    }
  }
  const kinds = tail?.words ?? [];
  if (label.k12 && !kinds.length) kinds.push('schools');
  const query = [head, ...kinds].join(' ').trim();
  return query ? { query, stateCode: tail?.stateCode ?? label.stateCode } : null;
}

/** The name with its misspelt place written right ("City of Sacremento" in CA → "City of Sacramento"). */
export function typoQuery(name: NormalizedName, accountState: string | null): string | null {
  if (!name.core.length) return null;
  const place = correctedPlace(name.core.join(' '), accountState ?? name.stateCode);
  if (!place) return null;
  const written = new RegExp(name.core.map(escapeRegExp).join('[^\\p{L}\\p{N}]+'), 'iu');
  return written.test(foldText(name.searchName))
    ? foldText(name.searchName).replace(written, place)
    : [place, ...name.typeTokens].join(' ');
}

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

// A body's kind as the end of an initialism, longest first ("cisd" before "isd" before "sd").
const KIND_ENDINGS = ['cisd', 'cusd', 'isd', 'usd', 'sd', 'pd', 'fd'] as const;
const KIND_WORDS: Readonly<Record<string, string>> = { sd: 'school district' };

/**
 * An initialism of a place and a kind written out ("LAUSD" in CA → "Los Angeles unified school
 * district"), for a search engine that does not know it: the state's clearly largest place with those
 * initials (placeByInitials). Only a query — the candidates it finds are scored like any other.
 */
export function initialsQuery(name: NormalizedName, accountState: string | null): string | null {
  const words = foldText(name.searchName).split(' ').filter(Boolean);
  const word = words.length === 1 ? words[0] : undefined;
  if (!word) return null;
  for (const ending of KIND_ENDINGS) {
    if (!word.endsWith(ending)) continue;
    const place = placeByInitials(word.slice(0, -ending.length), accountState ?? name.stateCode);
    if (place) return `${place} ${ABBREVIATIONS[ending] ?? KIND_WORDS[ending] ?? ending}`;
  }
  return null;
}
