// Size: one pipeline of small steps whose order matters (state suffix, census suffix, prefixes, typos,
// abbreviations, type phrases); the word tables live in vocabulary.ts.
// Name normalisation for comparing a CRM account's name with a buyer's name. Folds case, diacritics and
// punctuation, reads an inverted name in its own order ("Austin, City of" as "City of Austin"), drops
// generic words ("City of", "the", "government", a ", TX" suffix), corrects typos in type words
// ("Countty"), expands the abbreviations people type in CRMs (ISD, PD, Univ., Co., St., DOT) into
// canonical tokens, and splits the result into the *core* tokens that name the place
// ("austin") and the *type* tokens that name the kind of buyer ("independent school district").
// "Austin ISD" and "Austin Independent School District" then compare equal, while "City of Austin"
// and "Austin County" share their core and differ by type. The phrase decides the type: "Unified",
// "Public Schools", a city's "Department of Education" say a school system; "State of Texas" the
// state's government; "Denver, CO" (a place and its state) a city.
import damerauLevenshtein from 'damerau-levenshtein';
import { LRUCache } from 'lru-cache';
import { findState } from '../buyer-intel/states.ts';
import { englishOfSpanish } from './spanish.ts';
import {
  ABBREVIATIONS,
  COMPANY_SUFFIXES,
  COMPANY_SUFFIXES_PUBLIC_BODIES_USE,
  HINT_OF_BUYER_TYPE,
  HINT_PRIORITY,
  MUNICIPAL_PREFIXES,
  NOT_TYPOS,
  RELATED_HINTS,
  STOP_WORDS,
  TRAILING_TYPE_PREFIXES,
  TYPE_PHRASES,
  TYPE_WORD_PLURALS,
  TYPO_CORRECTED_WORDS,
  type TypeHint,
  type TypePhrase,
} from './vocabulary.ts';

export { STOP_WORDS, TYPE_HINT_LABELS, type TypeHint } from './vocabulary.ts';

export interface NormalizedName {
  /** The name as given. */
  input: string;
  /** The name without a trailing state (", TX", " (Texas)", " OR"): what we send to the search. */
  searchName: string;
  /** Lower-cased, diacritics and punctuation folded, nothing removed: for display. */
  folded: string;
  /** Canonical tokens in order: abbreviations expanded, generic words removed. */
  tokens: string[];
  /** Tokens naming the place or the body ("austin", "texas"), without stop words. */
  core: string[];
  /** Tokens naming the kind of buyer ("independent", "school", "district"; "city" for "City of"). */
  typeTokens: string[];
  typeHint: TypeHint | null;
  /** The words that gave the type hint, e.g. "independent school district" or "city of". */
  typeEvidence: string | null;
  /** Two-letter code of a state written into the name (", TX", ", Texas"), if any. */
  stateCode: string | null;
  /** Abbreviations expanded, as "ISD → independent school district". */
  expansions: string[];
  /** Generic words removed, e.g. "city of", "the", ", TX". */
  removed: string[];
  /** Tokens written in capitals that no rule expanded ("UT", "ACC"): maybe initials of a longer name. */
  acronyms: string[];
  /** Type words read through a typo, as "Countty → county". */
  typos: string[];
  /** The company legal form that closes the name ("LLC"), when the name is a company's. */
  company: string | null;
}

/**
 * Lower case, no diacritics, '&' as "and", a possessive's "'s" dropped ("Sheriff's Office" is the
 * sheriff's office, "Clerk's" the clerk's), other apostrophes dropped, any other punctuation as one
 * space; a number written in single digits with hyphens or dots ("9-1-1", "3.1.1") as one number.
 */
export function foldText(value: string): string {
  return value
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/&/g, ' and ')
    .replace(/(?<![\d])\d(?:[-.]\d)+(?![\d])/g, (digits) => digits.replace(/[-.]/g, ''))
    .replace(/['’`]s\b/g, '')
    .replace(/['’`]/g, '')
    .replace(/[^a-z0-9]+/g, ' ')
    .trim();
}

/** Words that number the bodies they name ("Region 4", "District 65", "Intermediate Unit 22"). */
const NUMBERING_WORDS = new Set([
  'region',
  'district',
  'unit',
  'circuit',
  'division',
  'ward',
  'precinct',
  'zone',
  'area',
]);
const ROMAN = /^(x{0,3})(ix|iv|v?i{0,3})$/;
const ROMAN_DIGITS: Record<string, number> = {
  i: 1,
  ii: 2,
  iii: 3,
  iv: 4,
  v: 5,
  vi: 6,
  vii: 7,
  viii: 8,
  ix: 9,
};

/** The value of a Roman numeral from II to XXXIX ("IV" → "4"); null for anything else ("I" too). */
function romanValue(token: string): string | null {
  const m = ROMAN.exec(token);
  if (!m || token.length === 0 || token === 'i') return null;
  const value = 10 * (m[1]?.length ?? 0) + (m[2] ? (ROMAN_DIGITS[m[2]] ?? 0) : 0);
  return value >= 2 ? String(value) : null;
}

/** Damerau–Levenshtein distance (a swapped pair of letters is one edit). */
export function editDistance(a: string, b: string): number {
  return damerauLevenshtein(a, b).steps;
}

/** How many edits a word of this length may carry and still be read as another: 1 from 5 letters, 2 from 9. */
export function typoAllowance(length: number): number {
  return length >= 9 ? 2 : length >= 5 ? 1 : 0;
}

/** Whether `token` is `word` misspelt: within the allowance, same first letter, never with digits. */
export function isTypoOf(token: string, word: string): boolean {
  if (token === word || /\d/.test(token) || /\d/.test(word) || token[0] !== word[0]) return false;
  const allowed = typoAllowance(Math.min(token.length, word.length));
  return (
    allowed > 0 && Math.abs(token.length - word.length) <= allowed && editDistance(token, word) <= allowed
  );
}

// Abbreviations that are also state codes: in a name they are the abbreviation ("Adams CO", "Rapid City SD").
const NOT_A_STATE_SUFFIX = new Set(['co', 'sd']);

function stripStateSuffix(raw: string): { rest: string; stateCode: string | null; suffix: string | null } {
  const patterns: readonly RegExp[] = [
    // "Austin, TX", "Austin, Texas", "Austin, TX 78701", "Austin, US-TX"
    /^(.*\S)\s*,\s*([A-Za-z][A-Za-z .-]*?)\.?(?:\s+\d{5}(?:-\d{4})?)?\s*$/,
    // "Springfield (IL)"
    /^(.*\S)\s*\(\s*([A-Za-z][A-Za-z .-]*?)\s*\)\s*$/,
  ];
  for (const pattern of patterns) {
    const m = pattern.exec(raw);
    const rest = m?.[1];
    const state = m?.[2] ? findState(m[2]) : undefined;
    if (rest && state && foldText(rest))
      return { rest, stateCode: state.code, suffix: raw.slice(rest.length) };
  }
  // "Portland OR": a trailing code in capitals, no comma.
  const m = /^(.*\S)\s+([A-Z]{2})$/.exec(raw);
  const rest = m?.[1];
  const code = m?.[2];
  // "… of NY & NJ": the last of a list of states the body spans, not where it is.
  const listed = rest ? /(&|\band)\s*$/i.test(rest) : false;
  if (rest && code && !listed && !NOT_A_STATE_SUFFIX.has(code.toLowerCase())) {
    const state = findState(code);
    if (state && foldText(rest)) return { rest, stateCode: state.code, suffix: ` ${code}` };
  }
  return { rest: raw, stateCode: null, suffix: null };
}

// The leading phrases a name may carry at its end instead, without a comma: "Mansfield City of".
const INVERTED_HEADS = new RegExp(
  `^(.*?\\S)\\s+(${[
    ...MUNICIPAL_PREFIXES.map((p) => p.words.slice(0, -1).join('\\s+')),
    ...TRAILING_TYPE_PREFIXES,
  ].join('|')})\\s+of\\.?$`,
  'i',
);

/**
 * A name written as a catalogue inverts it, its head behind a comma ("Mansfield, City of",
 * "Transportation, Department of"), read in its own order ("City of Mansfield"): left where it is,
 * "City" would read as a word of the place, and the name as no kind of buyer at all.
 */
function uninverted(name: string): string {
  const m = /^(.*?\S)\s*,\s*([^,]*?\S)\s+of\.?$/i.exec(name) ?? INVERTED_HEADS.exec(name);
  return m?.[1] && m[2] && foldText(m[1]) ? `${m[2]} of ${m[1]}` : name;
}

function startsWith(tokens: readonly string[], words: readonly string[], at = 0): boolean {
  for (let i = 0; i < words.length; i++) if (tokens[at + i] !== words[i]) return false;
  return true;
}

const DIGITS = /^\d+$/;
const DISTRICT_OF_COLUMBIA = ['district', 'of', 'columbia'];

/** The type phrases by their first word, each list in TYPE_PHRASES' order (the first that fits wins). */
const PHRASES_BY_FIRST_WORD = new Map<string, TypePhrase[]>();
for (const phrase of TYPE_PHRASES) {
  const first = phrase.words[0] ?? '';
  PHRASES_BY_FIRST_WORD.set(first, [...(PHRASES_BY_FIRST_WORD.get(first) ?? []), phrase]);
}

/** The type phrase that starts at `i`, if any. */
function phraseAt(tokens: readonly string[], i: number): TypePhrase | undefined {
  for (const p of PHRASES_BY_FIRST_WORD.get(tokens[i] ?? '') ?? []) {
    if (!startsWith(tokens, p.words, i)) continue;
    const next = tokens[i + p.words.length];
    if (p.needsOf) {
      if (next === 'of') return p;
      continue;
    }
    if (p.leading) return p;
    // A type word opening a name is part of the place unless "of" or a number follows: "College
    // Station", "University Park" are places; "University of Texas", "School District 65" are not.
    if (i > 0 || next === undefined || next === 'of' || next === 'for' || DIGITS.test(next)) return p;
  }
  return undefined;
}

/** Whether the tokens name a US state ("texas", "new york", "new york state"). */
function namesAState(tokens: readonly string[]): boolean {
  if (!tokens.length) return false;
  const plain = tokens.at(-1) === 'state' ? tokens.slice(0, -1) : tokens;
  return plain.length > 0 && findState(plain.join(' '))?.country === 'US';
}

/** Whether a US state's name (one to three words, not followed by "state") starts at `at`. */
function stateNameAt(tokens: readonly string[], at: number): boolean {
  for (let n = 3; n >= 1; n--) {
    const words = tokens.slice(at, at + n);
    const name = words.join(' ');
    // A name, not a postal code: "U in …", "U or …" are words.
    if (
      words.length === n &&
      name.length > 2 &&
      tokens[at + n] !== 'state' &&
      findState(name)?.country === 'US'
    )
      return true;
  }
  return false;
}

interface Classified {
  core: string[];
  typeTokens: string[];
  hints: { hint: TypeHint; evidence: string }[];
}

function classify(tokens: readonly string[]): Classified {
  const core: string[] = [];
  const typeTokens: string[] = [];
  const hints: { hint: TypeHint; evidence: string }[] = [];
  let i = 0;
  while (i < tokens.length) {
    // The one state whose name holds a type word: "District of Columbia" is a place.
    if (startsWith(tokens, DISTRICT_OF_COLUMBIA, i)) {
      core.push('district', 'columbia');
      i += 3;
      continue;
    }
    const phrase = phraseAt(tokens, i);
    if (phrase) {
      typeTokens.push(...phrase.words);
      // "District 65" alone names a district of some kind: a number says which, not what kind.
      const numbered =
        phrase.words.length === 1 && phrase.words[0] === 'district' && DIGITS.test(tokens[i + 1] ?? '');
      if (phrase.hint && !numbered) hints.push({ hint: phrase.hint, evidence: phrase.words.join(' ') });
      i += phrase.words.length;
      continue;
    }
    const token = tokens[i] ?? '';
    if (!STOP_WORDS.has(token)) core.push(token);
    i++;
  }
  return { core, typeTokens, hints };
}

/** Kinds that name a place a body is "of", as well as a body of their own. */
const PLACE_HINTS: ReadonlySet<TypeHint> = new Set(['county', 'city', 'state']);

/**
 * "Forest Preserves of Cook County": the words before "of" name the body, those after it the place it
 * serves. When the body's own words say no kind, the place's kind ("County") is not the body's: it is
 * left unknown, which contradicts no candidate, rather than a county, which contradicts the right one.
 */
function ofPlaceKinds(tokens: readonly string[], classified: Classified): Classified {
  const at = tokens.indexOf('of');
  if (at <= 0) return classified;
  // With its "of": "Port of …" is a kind only before one.
  const head = classify(tokens.slice(0, at + 1));
  if (head.hints.length || !head.core.length) return classified;
  const hints = classify(tokens.slice(at + 1)).hints.filter((h) => !PLACE_HINTS.has(h.hint));
  return { ...classified, hints };
}

function pickHint(hints: readonly { hint: TypeHint; evidence: string }[]): {
  hint: TypeHint;
  evidence: string;
} | null {
  let best: { hint: TypeHint; evidence: string } | null = null;
  for (const h of hints) {
    if (!best || HINT_PRIORITY.indexOf(h.hint) < HINT_PRIORITY.indexOf(best.hint)) best = h;
  }
  return best;
}

/** Corrects a misspelt type word; the corrected word, or null when the token is no such typo. */
function correctedTypeWord(token: string): string | null {
  if (token.length < 5 || NOT_TYPOS.has(token) || TYPO_CORRECTED_WORDS.includes(token)) return null;
  // A plural is no typo ("schools" has its own rule).
  if (TYPO_CORRECTED_WORDS.includes(token.replace(/s$/, ''))) return null;
  if (ABBREVIATIONS[token] !== undefined || TYPE_WORD_PLURALS[token] !== undefined) return null;
  return TYPO_CORRECTED_WORDS.find((w) => isTypoOf(token, w)) ?? null;
}

/**
 * A city's (or county's) Department / Board / Office of Education is its school system; a state's is
 * a state agency. A department or board of education is the district itself: the phrase becomes
 * "school district". A county office of education is a body of its own beside the districts (it is
 * typed a school district): its words stay.
 */
function educationOfAPlace(tokens: string[]): { tokens: string[]; phrase: string } | null {
  const at = tokens.findIndex(
    (t, i) =>
      (t === 'department' || t === 'board' || t === 'office') &&
      tokens[i + 1] === 'of' &&
      tokens[i + 2] === 'education',
  );
  if (at < 0) return null;
  const place = tokens.slice(0, at).filter((t) => t !== 'the');
  if (!place.length || namesAState(place)) return null;
  const phrase = `${tokens[at]} of education`;
  if (tokens[at] === 'office') return { tokens, phrase };
  return { tokens: [...tokens.slice(0, at), 'school', 'district', ...tokens.slice(at + 3)], phrase };
}

export interface NormalizeOptions {
  /** Correct misspelt type words (default true); off to see the name exactly as typed. */
  correctTypos?: boolean;
}

/**
 * The names read lately. A buyer's name is read again for every account it is a candidate of, and the
 * reading is a pure function of the text: in the bench's backfill, 16 % of the bytes a worker
 * allocated were allocated here. Shared results are frozen so that no caller can change another's.
 */
const readNames = new LRUCache<string, NormalizedName>({ max: 20_000 });
/** The same, read without correcting typos; apart, so that a name is its own key (hashed once). */
const readNamesAsTyped = new LRUCache<string, NormalizedName>({ max: 5_000 });

/** Normalises a name for comparison; see the module comment. */
export function normalizeName(input: string, options: NormalizeOptions = {}): NormalizedName {
  const kept = options.correctTypos === false ? readNamesAsTyped : readNames;
  let read = kept.get(input);
  if (!read) {
    read = deepFreeze(readName(input, options));
    kept.set(input, read);
  }
  return read;
}

function deepFreeze<T extends object>(value: T): T {
  for (const member of Object.values(value))
    if (member && typeof member === 'object' && !Object.isFrozen(member)) deepFreeze(member);
  return Object.freeze(value);
}

function readName(input: string, options: NormalizeOptions): NormalizedName {
  const removed: string[] = [];
  const expansions: string[] = [];
  const typos: string[] = [];
  const prefixType: string[] = [];
  let prefixHint: { hint: TypeHint; evidence: string } | null = null;
  // "City and County of Denver", "Unified Government of Wyandotte County and Kansas City": the
  // prefix says what the body is, whatever type words its place name holds.
  let consolidated = false;

  // "U.S." → "US", "I.S.D." → "ISD" before anything reads the letters.
  // "Condado de Hidalgo" is Hidalgo County: a Spanish public body's name in its English form first.
  const undotted = (englishOfSpanish(input) ?? input)
    .trim()
    .replace(/\b(?:[A-Za-z]\.){2,}/g, (m) => m.replace(/\./g, ''))
    // "P&R", "P & R": a parks department's two initials around its ampersand.
    .replace(/\bP\s*&\s*R\b/g, 'Parks and Recreation');
  const { rest, stateCode, suffix } = stripStateSuffix(undotted);
  if (suffix) removed.push(suffix.trim());
  let body = uninverted(rest);

  // Census style: "Austin city", "Addison town": a capitalised place, then the kind in lower case
  // ("Kansas City" is a name, and so is an all-lower-case "kansas city"). "Austin City Hall": the
  // building stands for the government that sits in it, as "City of Austin" does.
  const census = /^(.*[A-Z].*\S|[A-Z])\s+(city|town|village)$/.exec(body);
  const hall = /^(.*\S)\s+(city|town|village)\s+hall$/i.exec(body);
  const municipal = census ?? hall;
  if (municipal?.[1] && municipal[2] && foldText(municipal[1])) {
    const kind = municipal[2].toLowerCase();
    body = municipal[1];
    prefixType.push(kind);
    prefixHint = { hint: 'city', evidence: census ? kind : `${kind} hall` };
    removed.push(census ? `${kind} (census suffix)` : `${kind} hall`);
  }

  const plainWords = body
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean);
  // A name an import wrote all in capitals ("DAYTON PUBLIC SCHOOLS") says nothing by its case: only
  // its short words may be initials there.
  const shouted = plainWords.filter((t) => /[A-Za-z]{3}/.test(t)).length >= 2 && body === body.toUpperCase();
  const capitals = new Set(
    plainWords.filter((t) => (shouted ? /^[A-Z]{2,4}$/ : /^[A-Z]{2,6}$/).test(t)).map((t) => t.toLowerCase()),
  );

  // How each token was written, to show abbreviations as typed ("Univ", "ISD").
  const written = new Map<string, string>();
  for (const word of body.split(/[^\p{L}\p{N}&'’`]+/u)) {
    const key = foldText(word);
    if (key && !key.includes(' ') && !written.has(key)) written.set(key, word.replace(/['’`]/g, ''));
  }
  const shown = (token: string) => written.get(token) ?? token;

  let tokens = foldText(body).split(' ').filter(Boolean);

  // Misspelt type words and plurals first, so that every later rule reads the word meant.
  tokens = tokens.map((token) => {
    const plural = TYPE_WORD_PLURALS[token];
    if (plural) return plural;
    const corrected = options.correctTypos === false ? null : correctedTypeWord(token);
    if (!corrected) return token;
    typos.push(`${shown(token)} → ${corrected}`);
    return corrected;
  });

  // "FEMA Region IV", "Circuit XI": a Roman numeral after a word that numbers bodies is that number.
  tokens = tokens.map((token, i) => {
    const before = tokens[i - 1];
    return before && NUMBERING_WORDS.has(before) ? (romanValue(token) ?? token) : token;
  });

  const dropLeadingThe = () => {
    while (tokens.length > 1 && tokens[0] === 'the') {
      tokens = tokens.slice(1);
      removed.push('the');
    }
  };
  dropLeadingThe();
  for (const prefix of MUNICIPAL_PREFIXES) {
    if (tokens.length > prefix.words.length && startsWith(tokens, prefix.words)) {
      tokens = tokens.slice(prefix.words.length);
      prefixType.push(...prefix.type);
      prefixHint = { hint: 'city', evidence: prefix.words.join(' ') };
      consolidated = prefix.type.length > 1;
      removed.push(prefix.words.join(' '));
      break;
    }
  }
  // "State of Texas": the state's government as a whole (not its university, not an agency).
  if (startsWith(tokens, ['state', 'of']) && namesAState(tokens.slice(2))) {
    tokens = tokens.slice(2);
    prefixType.push('state');
    prefixHint = { hint: 'state', evidence: 'state of' };
    removed.push('state of');
  }
  const lead = tokens[0];
  if (lead && TRAILING_TYPE_PREFIXES.includes(lead) && tokens[1] === 'of' && tokens.length > 2) {
    tokens = [...tokens.slice(2), lead];
  }
  dropLeadingThe();

  const expanded: string[] = [];
  const acronyms: string[] = [];
  tokens.forEach((token, i) => {
    const next = tokens[i + 1];
    const previous = tokens[i - 1];
    let replacement: string | undefined;
    if (token === 'st' && i === 0) replacement = 'saint';
    else if (token === 'ste' && i === 0) replacement = 'sainte';
    else if (token === 'u' && next === 'of') replacement = 'university';
    // "U Missouri Kansas City": a leading "U" before a state's name is that state's university (its
    // campus when a place follows), not "U" as a word; "U Kansas State" is another university.
    else if (token === 'u' && i === 0 && stateNameAt(tokens, 1)) replacement = 'university of';
    else if (token === 'ed' && previous === 'of') replacement = 'education';
    // "Los Angeles Unified": a closing "Unified" is the district's name cut short.
    else if (token === 'unified' && i > 0 && next === undefined) replacement = 'unified school district';
    else if (token === 'schools') replacement = 'school district';
    else if (token === 'public' && (next === 'schools' || next === 'school')) replacement = '';
    else replacement = ABBREVIATIONS[token];
    if (replacement === undefined) {
      expanded.push(token);
      if (capitals.has(token)) acronyms.push(token);
      return;
    }
    if (replacement !== token.slice(0, -1)) {
      expansions.push(replacement ? `${shown(token)} → ${replacement}` : `${shown(token)} (dropped)`);
    }
    if (replacement) expanded.push(...replacement.split(' '));
  });
  // "government" says nothing about which buyer it is.
  tokens = expanded.filter((t) => {
    if (t !== 'government' || expanded.length === 1) return true;
    removed.push('government');
    return false;
  });

  const education = educationOfAPlace(tokens);
  if (education && education.tokens !== tokens) {
    tokens = education.tokens;
    expansions.push(`${education.phrase} of a city → school district`);
  }

  const classified = ofPlaceKinds(tokens, classify(tokens));
  const typeTokens = [...prefixType, ...classified.typeTokens];
  let picked = consolidated
    ? prefixHint
    : pickHint([...classified.hints, ...(prefixHint ? [prefixHint] : [])]);
  if (education) picked = { hint: 'school-district', evidence: `${education.phrase} of a city or county` };
  // "Denver, CO": a place written with its state, and no other word of kind, is how a city's
  // account is named (a county, a district or a department says so).
  if (!picked && suffix && classified.core.length) {
    picked = { hint: 'city', evidence: `"${rest.trim()}${suffix}", a place with its state` };
  }

  const last = tokens.at(-1);
  const publicBody = picked !== null && picked.hint !== 'federal';
  const company =
    last && tokens.length > 1 && COMPANY_SUFFIXES.has(last)
      ? COMPANY_SUFFIXES_PUBLIC_BODIES_USE.has(last) && publicBody
        ? null
        : shown(last)
      : null;

  return {
    input,
    searchName: rest.trim(),
    folded: foldText(undotted),
    tokens,
    core: classified.core,
    typeTokens,
    typeHint: picked?.hint ?? null,
    typeEvidence: picked?.evidence ?? null,
    stateCode,
    expansions,
    removed,
    acronyms: acronyms.filter((a) => classified.core.includes(a)),
    typos,
    company,
  };
}

/** The query of the second search: the canonical tokens without generic words ("City of Springfield" → "springfield"). */
export function fallbackQuery(name: NormalizedName): string {
  return name.tokens.join(' ');
}

// ---- Buyer types --------------------------------------------------------------------------------------

/** The kind of buyer an API `BuyerBrief.type` stands for; null for types that say nothing comparable. */
export function hintOfBuyerType(type: string | null | undefined): TypeHint | null {
  return type ? (HINT_OF_BUYER_TYPE[type] ?? null) : null;
}

export function typeHintsRelated(a: TypeHint, b: TypeHint): boolean {
  return RELATED_HINTS.some(([x, y]) => (x === a && y === b) || (x === b && y === a));
}
