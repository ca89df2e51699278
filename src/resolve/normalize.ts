// Size: mostly tables (abbreviations, type words, state names) that the scorer reads together.
// Name normalisation for comparing a CRM account's name with a buyer's name. Folds case, diacritics and
// punctuation, drops generic words ("City of", "the", "government", a ", TX" suffix), expands the
// abbreviations people type in CRMs (ISD, PD, Univ., Co., St.) into canonical tokens, and splits the
// result into the *core* tokens that name the place ("austin") and the *type* tokens that name the kind
// of buyer ("independent school district"). "Austin ISD" and "Austin Independent School District" then
// compare equal, while "City of Austin" and "Austin County" share their core and differ by type.
import { findState } from '../buyer-intel/states.ts';

/** The kind of buyer a name points at. */
export type TypeHint =
  | 'school-district'
  | 'school'
  | 'higher-education'
  | 'county'
  | 'police'
  | 'fire'
  | 'city'
  | 'state-agency'
  | 'special-district'
  | 'library'
  | 'federal'
  | 'tribal';

export const TYPE_HINT_LABELS: Readonly<Record<TypeHint, string>> = {
  'school-district': 'school district',
  school: 'school',
  'higher-education': 'university/college',
  county: 'county',
  police: 'police',
  fire: 'fire',
  city: 'city/town',
  'state-agency': 'state agency',
  'special-district': 'special district',
  library: 'library',
  federal: 'federal agency',
  tribal: 'tribal government',
};

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
}

export const STOP_WORDS: ReadonlySet<string> = new Set(['of', 'at', 'the', 'and', 'for', 'in', 'on']);

/** Lower case, no diacritics, '&' as "and", apostrophes dropped, any other punctuation as one space. */
export function foldText(value: string): string {
  return value
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/&/g, ' and ')
    .replace(/['’`]/g, '')
    .replace(/[^a-z0-9]+/g, ' ')
    .trim();
}

// Single-token abbreviations. ("st" → "saint" and "u of" → "university of" depend on position.)
const ABBREVIATIONS: Readonly<Record<string, string>> = {
  isd: 'independent school district',
  cisd: 'consolidated independent school district',
  usd: 'unified school district',
  cusd: 'community unit school district',
  ufsd: 'union free school district',
  sd: 'school district',
  univ: 'university',
  co: 'county',
  cnty: 'county',
  cty: 'county',
  pd: 'police department',
  fd: 'fire department',
  dept: 'department',
  dpt: 'department',
  cc: 'community college',
  twp: 'township',
  mt: 'mount',
  ft: 'fort',
  dist: 'district',
  sch: 'school',
  hs: 'high school',
  elem: 'elementary',
  lib: 'library',
  auth: 'authority',
  sheriffs: 'sheriff',
  govt: 'government',
};

// Leading phrases that only say "this is a municipality": removed, remembered as the type.
const MUNICIPAL_PREFIXES: readonly { words: string[]; type: string[] }[] = [
  { words: ['city', 'and', 'county', 'of'], type: ['city', 'county'] },
  { words: ['city', 'of'], type: ['city'] },
  { words: ['town', 'of'], type: ['town'] },
  { words: ['village', 'of'], type: ['village'] },
];
// Leading "County of X" and the like: the type word moves behind the place ("X county").
const TRAILING_TYPE_PREFIXES = ['county', 'parish', 'township', 'borough'];

interface TypePhrase {
  words: readonly string[];
  hint: TypeHint | null;
  /** Only a type phrase when followed by "of" ("Port of Seattle", not "Port Arthur"). */
  needsOf?: boolean;
  /** A type phrase even when it opens the name and no "of" follows ("US Department of ..."). */
  leading?: boolean;
}

const SCHOOL_DISTRICT_MODIFIERS = [
  'independent',
  'consolidated independent',
  'unified',
  'community unit',
  'community',
  'union free',
  'union',
  'unit',
  'elementary',
  'high',
  'regional',
  'joint',
  'central',
  'public',
  'county',
];

const TYPE_PHRASES: readonly TypePhrase[] = (
  [
    ...SCHOOL_DISTRICT_MODIFIERS.map((m) => ({
      words: [...m.split(' '), 'school', 'district'],
      hint: 'school-district' as const,
    })),
    { words: ['school', 'district'], hint: 'school-district' },
    { words: ['high', 'school'], hint: 'school' },
    { words: ['middle', 'school'], hint: 'school' },
    { words: ['elementary', 'school'], hint: 'school' },
    { words: ['charter', 'school'], hint: 'school' },
    { words: ['elementary'], hint: 'school' },
    { words: ['academy'], hint: 'school' },
    { words: ['school'], hint: 'school' },
    { words: ['community', 'college'], hint: 'higher-education' },
    { words: ['technical', 'college'], hint: 'higher-education' },
    { words: ['junior', 'college'], hint: 'higher-education' },
    { words: ['college'], hint: 'higher-education' },
    { words: ['university'], hint: 'higher-education' },
    { words: ['institute'], hint: 'higher-education' },
    { words: ['police', 'department'], hint: 'police' },
    { words: ['sheriff', 'office'], hint: 'police' },
    { words: ['sheriff', 'department'], hint: 'police' },
    { words: ['sheriff'], hint: 'police' },
    { words: ['police'], hint: 'police' },
    { words: ['fire', 'protection', 'district'], hint: 'fire' },
    { words: ['fire', 'department'], hint: 'fire' },
    { words: ['fire', 'rescue'], hint: 'fire' },
    { words: ['fire', 'district'], hint: 'fire' },
    { words: ['fire'], hint: 'fire' },
    { words: ['public', 'library'], hint: 'library' },
    { words: ['library', 'district'], hint: 'library' },
    { words: ['library'], hint: 'library' },
    { words: ['county'], hint: 'county' },
    { words: ['parish'], hint: 'county' },
    { words: ['borough'], hint: 'county' },
    { words: ['township'], hint: 'city' },
    { words: ['municipal', 'utility', 'district'], hint: 'special-district' },
    { words: ['utility', 'district'], hint: 'special-district' },
    { words: ['water', 'district'], hint: 'special-district' },
    { words: ['housing', 'authority'], hint: 'special-district' },
    { words: ['authority'], hint: 'special-district' },
    { words: ['district'], hint: 'special-district' },
    { words: ['port'], hint: 'special-district', needsOf: true },
    { words: ['united', 'states'], hint: 'federal', leading: true },
    { words: ['us'], hint: 'federal', leading: true },
    { words: ['federal'], hint: 'federal' },
    { words: ['nation'], hint: 'tribal' },
    { words: ['tribe'], hint: 'tribal' },
    { words: ['tribal'], hint: 'tribal' },
    { words: ['department'], hint: 'state-agency' },
    { words: ['agency'], hint: 'state-agency' },
    { words: ['commission'], hint: 'state-agency' },
    { words: ['office'], hint: 'state-agency' },
    { words: ['bureau'], hint: 'state-agency' },
    { words: ['board'], hint: 'state-agency' },
    { words: ['administration'], hint: 'state-agency' },
    { words: ['system'], hint: null },
  ] satisfies TypePhrase[]
).sort((a, b) => b.words.length - a.words.length);

/** When a name has several type phrases, the most specific kind wins ("County Fire Department" → fire). */
const HINT_PRIORITY: readonly TypeHint[] = [
  'fire',
  'police',
  'library',
  'school-district',
  'school',
  'higher-education',
  'federal',
  'tribal',
  'special-district',
  'county',
  'city',
  'state-agency',
];

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
  if (rest && code && !NOT_A_STATE_SUFFIX.has(code.toLowerCase())) {
    const state = findState(code);
    if (state && foldText(rest)) return { rest, stateCode: state.code, suffix: ` ${code}` };
  }
  return { rest: raw, stateCode: null, suffix: null };
}

function startsWith(tokens: readonly string[], words: readonly string[], at = 0): boolean {
  return words.every((w, i) => tokens[at + i] === w);
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
    const phrase = TYPE_PHRASES.find((p) => {
      if (!startsWith(tokens, p.words, i)) return false;
      const next = tokens[i + p.words.length];
      if (p.needsOf) return next === 'of';
      if (p.leading) return true;
      // A type word opening a name is part of the place unless "of" follows: "College Station",
      // "University Park" are places; "University of Texas", "Port of Seattle" are not.
      return i > 0 || next === undefined || next === 'of' || next === 'for';
    });
    if (phrase) {
      typeTokens.push(...phrase.words);
      if (phrase.hint) hints.push({ hint: phrase.hint, evidence: phrase.words.join(' ') });
      i += phrase.words.length;
      continue;
    }
    const token = tokens[i] ?? '';
    if (!STOP_WORDS.has(token)) core.push(token);
    i++;
  }
  return { core, typeTokens, hints };
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

/** Normalises a name for comparison; see the module comment. */
export function normalizeName(input: string): NormalizedName {
  const removed: string[] = [];
  const expansions: string[] = [];
  const prefixType: string[] = [];
  let prefixEvidence: string | null = null;

  // "U.S." → "US", "I.S.D." → "ISD" before anything reads the letters.
  const undotted = input.trim().replace(/\b(?:[A-Za-z]\.){2,}/g, (m) => m.replace(/\./g, ''));
  const { rest, stateCode, suffix } = stripStateSuffix(undotted);
  if (suffix) removed.push(suffix.trim());
  let body = rest;

  // Census style: "Austin city", "Addison town": a capitalised place, then the kind in lower case
  // ("Kansas City" is a name, and so is an all-lower-case "kansas city").
  const census = /^(.*[A-Z].*\S|[A-Z])\s+(city|town|village)$/.exec(body);
  if (census?.[1] && census[2]) {
    body = census[1];
    prefixType.push(census[2]);
    prefixEvidence = census[2];
    removed.push(`${census[2]} (census suffix)`);
  }

  const capitals = new Set(
    body
      .normalize('NFKD')
      .replace(/[\u0300-\u036f]/g, '')
      .split(/[^A-Za-z0-9]+/)
      .filter((t) => /^[A-Z]{2,6}$/.test(t))
      .map((t) => t.toLowerCase()),
  );

  // How each token was written, to show abbreviations as typed ("Univ", "ISD").
  const written = new Map<string, string>();
  for (const word of body.split(/[^\p{L}\p{N}&'’`]+/u)) {
    const key = foldText(word);
    if (key && !key.includes(' ') && !written.has(key)) written.set(key, word.replace(/['’`]/g, ''));
  }

  let tokens = foldText(body).split(' ').filter(Boolean);

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
      prefixEvidence = prefix.words.join(' ');
      removed.push(prefixEvidence);
      break;
    }
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
    let replacement: string | undefined;
    if (token === 'st' && i === 0) replacement = 'saint';
    else if (token === 'ste' && i === 0) replacement = 'sainte';
    else if (token === 'u' && next === 'of') replacement = 'university';
    else if (token === 'schools') replacement = 'school district';
    else if (token === 'public' && (next === 'schools' || next === 'school')) replacement = '';
    else replacement = ABBREVIATIONS[token];
    if (replacement === undefined) {
      expanded.push(token);
      if (capitals.has(token)) acronyms.push(token);
      return;
    }
    if (token !== 'sheriffs') {
      const shown = written.get(token) ?? token;
      expansions.push(replacement ? `${shown} → ${replacement}` : `${shown} (dropped)`);
    }
    if (replacement) expanded.push(...replacement.split(' '));
  });
  // "government" says nothing about which buyer it is.
  tokens = expanded.filter((t) => {
    if (t !== 'government' || expanded.length === 1) return true;
    removed.push('government');
    return false;
  });

  const classified = classify(tokens);
  const typeTokens = [...prefixType, ...classified.typeTokens];
  const picked = pickHint([
    ...classified.hints,
    ...(prefixType.length ? [{ hint: 'city' as const, evidence: prefixEvidence ?? 'city' }] : []),
  ]);

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
  };
}

/** The query of the second search: the canonical tokens without generic words ("City of Springfield" → "springfield"). */
export function fallbackQuery(name: NormalizedName): string {
  return name.tokens.join(' ');
}

// ---- Buyer types --------------------------------------------------------------------------------------

const HINT_OF_BUYER_TYPE: Readonly<Record<string, TypeHint>> = {
  City: 'city',
  CityAttorney: 'city',
  CityClerk: 'city',
  CityEngineer: 'city',
  CityManager: 'city',
  CitySecretary: 'city',
  County: 'county',
  CountyAttorney: 'county',
  CountyClerk: 'county',
  CountyEngineer: 'county',
  CountyManager: 'county',
  SchoolDistrict: 'school-district',
  School: 'school',
  HigherEducation: 'higher-education',
  PoliceDepartment: 'police',
  LawEnforcementAgency: 'police',
  FireDepartment: 'fire',
  Library: 'library',
  StateAgency: 'state-agency',
  State: 'state-agency',
  StateAttorney: 'state-agency',
  StateClerk: 'state-agency',
  StateEngineer: 'state-agency',
  AdministrativeAgency: 'state-agency',
  RegulatoryAgency: 'state-agency',
  FinancialAgency: 'state-agency',
  SpecialDistrict: 'special-district',
  District: 'special-district',
  UncategorizedDistrict: 'special-district',
  TransportationAgency: 'special-district',
  PublicWorksAgency: 'special-district',
  Federal: 'federal',
  MilitaryOrganization: 'federal',
  IndigenousGovernment: 'tribal',
};

/** The kind of buyer an API `BuyerBrief.type` stands for; null for types that say nothing comparable. */
export function hintOfBuyerType(type: string | null | undefined): TypeHint | null {
  return type ? (HINT_OF_BUYER_TYPE[type] ?? null) : null;
}

/** Kinds that are close enough that a difference is no evidence against a match. */
const RELATED: readonly (readonly [TypeHint, TypeHint])[] = [
  ['school', 'school-district'],
  ['special-district', 'state-agency'],
];

export function typeHintsRelated(a: TypeHint, b: TypeHint): boolean {
  return RELATED.some(([x, y]) => (x === a && y === b) || (x === b && y === a));
}
