// What the scorer weighs, and how much: the signal kinds a reason shows, the default points of each,
// and the shapes of what is scored.

export type SignalKind =
  | 'name'
  | 'typo'
  | 'acronym'
  | 'nickname'
  | 'domain-name'
  | 'state'
  | 'website'
  | 'email-domain'
  | 'type'
  | 'company'
  | 'rank'
  | 'clamp'
  /** The name read as one of the buyer's other names (its common name), from its attributes. */
  | 'other-name'
  /** A number in the name ("USD 512", "District 65"): the same number as the buyer's, or another. */
  | 'number'
  /** A place of a consolidated government named alone ("City of Louisville" for Louisville Metro). */
  | 'consolidated'
  /** The name is the buyer's own words in its order, with the rest left off (name-evidence.ts). */
  | 'short-form'
  /** The name read with the account's county or city, when it names no place (prepare.ts). */
  | 'placed'
  /** Words of the name that are the buyer's parent's ("Louisville Metro" police): read without them. */
  | 'parent'
  /** The account's zip, city or county equal to the buyer's, from its attributes. */
  | 'address'
  /** An id the account carries names the buyer (by-id.ts): the whole score. */
  | 'id';

/**
 * The signals that read a name as one of the buyer's names, not merely like it: an automatic match
 * needs one of these, the name equal or independent evidence (decide.ts), and match-eval reports
 * which carried it (match-eval/carried-by.ts). One list, so the two cannot disagree.
 */
export const NAME_READINGS: ReadonlySet<SignalKind> = new Set([
  'acronym',
  'nickname',
  'domain-name',
  'other-name',
  'short-form',
  'parent',
  'consolidated',
  'placed',
  'number',
  'typo',
]);

export interface ScoreSignal {
  signal: SignalKind;
  /** What this signal adds to the score (negative: takes away). */
  points: number;
  detail: string;
}

export interface Weights {
  /** Points for identical names; a partial name similarity earns its share. */
  name: number;
  /** Share of the name points a name read through a typo earns ("Sacremento" for Sacramento). */
  typoCredit: number;
  /** Share of the name points a reading of initials or short forms earns ("UT Austin", "CapMetro"). */
  readingCredit: number;
  /** Same state. */
  state: number;
  /**
   * Different state: strong evidence against, not a wall. Such a buyer is listed for review and matched
   * automatically only when the website, an email domain or an id says it is the account's.
   */
  stateMismatch: number;
  /** The account's website is the buyer's page (same host, ignoring www., and the buyer's path). */
  website: number;
  /** Another page of the buyer's site, or a sibling on the same organisation's domain. */
  websitePartial: number;
  /** Both have a web address and the organisations' domains differ. */
  websiteMismatch: number;
  /** One of the account's email domains is the buyer's web host. */
  emailDomain: number;
  /** The kind of buyer the account's name says agrees with the buyer's type. */
  typeAgreement: number;
  /** The account's name says another kind of buyer ("City of Austin" against a county); never matched. */
  typeConflict: number;
  /**
   * A name with no type word ("Austin") most often means the city, then the county, then the school
   * district: the city gets this much, the county ⅔ and the school district ⅓. Small on purpose: it
   * orders candidates for review and never overcomes the ambiguity margin.
   */
  bareNamePrior: number;
  /** The name closes with a company's legal form ("LLC", "Inc", "Group"): public buyers are no companies. */
  company: number;
  /**
   * The API listed the buyer first for the name (the second gets half). A tie-break only: the decision
   * to match leaves it out.
   */
  rank: number;
  /** The name's number is not the buyer's ("USD 512" against USD 513): never matched automatically. */
  numberConflict: number;
  /** The account's zip is the buyer's. */
  zip: number;
  /** The account's city, or its county, is the buyer's (each). */
  locality: number;
}

export const DEFAULT_WEIGHTS: Readonly<Weights> = Object.freeze({
  name: 0.55,
  typoCredit: 0.9,
  readingCredit: 0.9,
  state: 0.2,
  stateMismatch: -0.3,
  website: 0.25,
  websitePartial: 0.15,
  websiteMismatch: -0.05,
  emailDomain: 0.2,
  typeAgreement: 0.1,
  typeConflict: -0.25,
  bareNamePrior: 0.03,
  company: -0.3,
  rank: 0.02,
  numberConflict: -0.5,
  zip: 0.1,
  locality: 0.05,
});

/** Weights this module resolved (frozen): scoring resolves the resolver's again for every candidate. */
const resolved = new WeakSet<Partial<Weights>>();

export function resolveWeights(weights?: Partial<Weights>): Weights {
  if (weights && resolved.has(weights)) return weights as Weights;
  const merged: Weights = { ...DEFAULT_WEIGHTS };
  for (const [key, value] of Object.entries(weights ?? {}) as [keyof Weights, number | undefined][]) {
    if (value === undefined) continue;
    if (!Number.isFinite(value)) throw new RangeError(`weights.${key} must be a finite number`);
    merged[key] = value;
  }
  resolved.add(Object.freeze(merged));
  return merged;
}

export interface ScoringBuyer {
  name: string;
  stateCode?: string | null;
  type?: string | null;
  url?: string | null;
  /** What the buyer's attributes add, when they were read (profiles.ts). */
  profile?: BuyerProfile | null;
}

/** A buyer as its attributes describe it beyond the search result. */
export interface BuyerProfile {
  /** Its common name and any other name the provider keeps for it. */
  otherNames: readonly string[];
  parentName: string | null;
  parentBuyerId: string | null;
  city: string | null;
  county: string | null;
  zip: string | null;
  emailDomains: readonly string[];
}

export type WebEvidence = 'home-page' | 'section' | 'domain' | 'email' | 'email-domain' | 'mismatch' | 'none';
