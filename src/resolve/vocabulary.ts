// Size: word tables only (abbreviations, type phrases, buyer types), read together by the normaliser.
// The words of public-sector names: the abbreviations people type in CRMs, the phrases that say which
// kind of buyer a name is, and the API's buyer types as those kinds. Tables, so that a word a customer
// meets is one line here.

/** The kind of buyer a name points at. */
export type TypeHint =
  | 'school-district'
  | 'school'
  | 'higher-education'
  | 'county'
  | 'police'
  | 'fire'
  | 'city'
  | 'state'
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
  state: 'state government',
  'state-agency': 'government agency',
  'special-district': 'special district',
  library: 'library',
  federal: 'federal agency',
  tribal: 'tribal government',
};

/**
 * Words that name a part of a government — an office, a service, a utility — rather than the body
 * itself. An account whose name carries one its candidate's names lack ("Shelby County Health
 * Department" against Shelby County) names that part or another body, whatever website it gives: a
 * department often lives on its parent's site (issue 46). Contact and routing words a rep adds
 * ("Purchasing", "Procurement", "Accounts Payable") are not here: they say who at the buyer, not what.
 */
export const UNIT_WORDS: ReadonlySet<string> = new Set([
  'health',
  'elections',
  'election',
  'utilities',
  'utility',
  'works',
  'water',
  'wastewater',
  'sewer',
  'sanitation',
  'transit',
  'transportation',
  'parks',
  'recreation',
  'sheriff',
  'clerk',
  'treasurer',
  'assessor',
  'court',
  'courts',
  'attorney',
  'prosecutor',
  'corrections',
  'jail',
  'housing',
  'planning',
  'airport',
  'aviation',
  'hospital',
  'registrar',
  'auditor',
  'recorder',
  'probate',
  'juvenile',
  'coroner',
  'electric',
  'power',
  'light',
  'zoning',
  'highway',
  'highways',
  'library',
  'libraries',
]);

export const STOP_WORDS: ReadonlySet<string> = new Set(['of', 'at', 'the', 'and', 'for', 'in', 'on']);

// Single-token abbreviations. ("st" → "saint", "u of" → "university of", "ed" → "education" and a
// closing "unified" depend on position: see normalize.ts.)
export const ABBREVIATIONS: Readonly<Record<string, string>> = {
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
  // An office's possessive typed without its apostrophe ("Clerks Office"): the office's word.
  sheriffs: 'sheriff',
  clerks: 'clerk',
  assessors: 'assessor',
  attorneys: 'attorney',
  treasurers: 'treasurer',
  recorders: 'recorder',
  auditors: 'auditor',
  coroners: 'coroner',
  controllers: 'controller',
  prosecutors: 'prosecutor',
  govt: 'government',
  // Agencies as people write them: "Georgia DOT", "NYC DOE", "Texas DPS", "Florida DOH".
  dot: 'department of transportation',
  doe: 'department of education',
  dps: 'department of public safety',
  doh: 'department of health',
  bd: 'board',
  ofc: 'office',
  // Words public bodies' names are cut to in CRMs, usually with a period ("Pub. Wks.", "Ct. of Common
  // Pleas", "Soil & Water Cons. Dist.", "Emerg. Comm. Dist.", "Sheriff's Off."): none is a word of
  // its own in a public body's name.
  off: 'office',
  pub: 'public',
  wks: 'works',
  ct: 'court',
  rec: 'recreation',
  cons: 'conservation',
  emerg: 'emergency',
  hosp: 'hospital',
  // The one city everyone abbreviates.
  nyc: 'new york city',
  // Regional education service agencies: Texas's and Ohio's centers, Washington's and Oregon's districts.
  esc: 'education service center',
  esd: 'educational service district',
};

/** Plurals of type words, read as the word ("Maricopa Community Colleges" is a college). */
export const TYPE_WORD_PLURALS: Readonly<Record<string, string>> = {
  colleges: 'college',
  universities: 'university',
  districts: 'district',
  departments: 'department',
  libraries: 'library',
  counties: 'county',
  authorities: 'authority',
};

/**
 * Words that stand for a longer word inside agency names ("Georgia Tech", "Metro Transit"): a token
 * of the account equal to the short form counts as the long one when the buyer's name has it.
 */
export const WORD_SHORT_FORMS: Readonly<Record<string, readonly string[]>> = {
  tech: ['technology', 'technological', 'technical'],
  metro: ['metropolitan'],
  natl: ['national'],
  intl: ['international'],
  svcs: ['services'],
  hlth: ['health'],
  ctr: ['center'],
  admin: ['administration'],
  transp: ['transportation'],
  info: ['information'],
  mgmt: ['management'],
  dev: ['development'],
  comm: ['commission', 'community', 'communications', 'communication'],
  ed: ['education'],
  // Washington's Educational Service Districts, Oregon's Education Service Districts.
  educational: ['education'],
  edu: ['education'],
};

/**
 * Type words whose misspellings are corrected before anything reads them ("Countty", "Pubic",
 * "Distict"): one edit from a word of 5 letters on, two from 9, never the first letter. The English
 * words one edit away that are names in their own right are kept as typed.
 */
export const TYPO_CORRECTED_WORDS: readonly string[] = [
  'county',
  'public',
  'school',
  'district',
  'department',
  'university',
  'college',
  'community',
  'unified',
  'independent',
  'consolidated',
  'elementary',
  'police',
  'sheriff',
  'township',
  'village',
  'authority',
  'transportation',
  'education',
  'library',
  'municipal',
  'commission',
  'government',
  'academy',
  'institute',
];
export const NOT_TYPOS: ReadonlySet<string> = new Set([
  'country',
  'counts',
  'independence',
  'polite',
  'educational',
  'commissioner',
  'commissioners',
  'villages',
  'villager',
]);

// Leading phrases that only say "this is a municipality": removed, remembered as the type.
export const MUNICIPAL_PREFIXES: readonly { words: string[]; type: string[] }[] = [
  { words: ['unified', 'government', 'of'], type: ['city', 'county'] },
  { words: ['consolidated', 'government', 'of'], type: ['city', 'county'] },
  { words: ['city', 'and', 'county', 'of'], type: ['city', 'county'] },
  { words: ['city', 'of'], type: ['city'] },
  { words: ['town', 'of'], type: ['town'] },
  // Michigan's charter townships: "Charter Township of Clinton" is what reps call "Clinton Twp".
  { words: ['charter', 'township', 'of'], type: ['township'] },
  { words: ['township', 'of'], type: ['township'] },
  { words: ['village', 'of'], type: ['village'] },
];
// Leading "County of X" and the like: the type word moves behind the place ("X county").
export const TRAILING_TYPE_PREFIXES = ['county', 'parish', 'township', 'borough'];

export interface TypePhrase {
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

export const TYPE_PHRASES: readonly TypePhrase[] = (
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
    { words: ['charter', 'township'], hint: 'city' },
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
    { words: ['pueblo'], hint: 'tribal', needsOf: true },
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

/**
 * Type words that say whose a body is rather than what it is ("U.S." Department of Veterans Affairs):
 * a name that leaves them out names the same body.
 */
export const JURISDICTION_TYPE_WORDS: ReadonlySet<string> = new Set(['us', 'united', 'states', 'federal']);

/**
 * Type words one kind of body styles itself by interchangeably: "the Zuni Tribe" is "the Pueblo of
 * Zuni", "Tribal" is "Tribe". Compared as the one word. Not "Nation": the Seminole Nation (OK) and the
 * Seminole Tribe (FL) are two tribes.
 */
export const INTERCHANGEABLE_TYPE_WORDS: Readonly<Record<string, string>> = {
  tribal: 'tribe',
  pueblo: 'tribe',
};

/** When a name has several type phrases, the most specific kind wins ("County Fire Department" → fire). */
export const HINT_PRIORITY: readonly TypeHint[] = [
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
  'state',
  'state-agency',
];

/**
 * The legal forms of companies. A name that ends in one is a company, not a public body — except
 * "Corporation" / "Company" beside a public type word (a public benefit corporation, a port company).
 */
export const COMPANY_SUFFIXES: ReadonlySet<string> = new Set([
  'llc',
  'inc',
  'incorporated',
  'corp',
  'corporation',
  'company',
  'ltd',
  'llp',
  'lp',
  'plc',
  'holdings',
  'group',
  'gmbh',
]);
export const COMPANY_SUFFIXES_PUBLIC_BODIES_USE: ReadonlySet<string> = new Set(['corporation', 'company']);

// ---- Buyer types --------------------------------------------------------------------------------------
// Open world: a type left out here (the provider's District, UncategorizedDistrict, UncategorizedAgency,
// Department, LegislativeBody, Other, and any it adds) says nothing, so it never conflicts with a name.

export const HINT_OF_BUYER_TYPE: Readonly<Record<string, TypeHint>> = {
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
  State: 'state',
  StateAgency: 'state-agency',
  StateAttorney: 'state-agency',
  StateClerk: 'state-agency',
  StateEngineer: 'state-agency',
  AdministrativeAgency: 'state-agency',
  RegulatoryAgency: 'state-agency',
  FinancialAgency: 'state-agency',
  SpecialDistrict: 'special-district',
  TransportationAgency: 'special-district',
  PublicWorksAgency: 'special-district',
  Federal: 'federal',
  MilitaryOrganization: 'federal',
  IndigenousGovernment: 'tribal',
};

/**
 * Kinds close enough that a difference is no evidence against a match: a school and its district; an
 * agency, a special district, a federal agency and a state's government (the name "Department of X"
 * says an agency, not whose); a state's government and its agencies (one stands for the other in a
 * CRM, but neither is the other: no agreement either).
 */
export const RELATED_HINTS: readonly (readonly [TypeHint, TypeHint])[] = [
  ['school', 'school-district'],
  // A library district and a fire protection district are special districts by law.
  ['library', 'special-district'],
  ['fire', 'special-district'],
  ['special-district', 'state-agency'],
  ['federal', 'state-agency'],
  ['state', 'state-agency'],
];
