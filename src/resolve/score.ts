// Size: the scorer's state, type and sum, whose rules interact; the name's readings are
// name-evidence.ts, word comparison compare.ts, numbers, places and addresses evidence.ts.
// Pure scoring of one buyer (a search result) against one CRM account. Every point of the score comes
// with a signal saying where it came from, and the signals add up to the score: a "clamp" signal
// records what the 0..1 bounds took off. The name earns its points once, through the best reading of
// it a person would accept — as written, through a typo, as initials or short forms, as a nickname, or
// as the buyer's own web address — and each reading beyond the written name is a signal of its own.

import { findState, STATES } from '../buyer-intel/states.ts';
import { compareTokens, sameWord } from './compare.ts';
import { addressSignal, isConsolidatedGovernment, numberEvidence, wordsWithin } from './evidence.ts';
import { memoized } from './memo.ts';
import { bestNameEvidence, identityReading, shortFormReading, withoutItsState } from './name-evidence.ts';
import {
  foldText,
  hintOfBuyerType,
  type NormalizedName,
  normalizeName,
  TYPE_HINT_LABELS,
  type TypeHint,
  typeHintsRelated,
} from './normalize.ts';
import { parentReading } from './parent-reading.ts';
import { isPlaceName } from './places.ts';
import { statesWrittenOut } from './queries.ts';
import { round3 } from './round.ts';
import { UNIT_WORDS } from './vocabulary.ts';
import { webSignals } from './web.ts';
import {
  resolveWeights,
  type ScoreSignal,
  type ScoringBuyer,
  type SignalKind,
  type WebEvidence,
  type Weights,
} from './weights.ts';

export interface ScoringAccount {
  /** The name, or its normalisation when the caller already has it. */
  name: string | NormalizedName | null;
  /** As the CRM has it: 'TX', 'Texas', 'US-TX', or anything else (then not compared). */
  state?: string | null;
  website?: string | null;
  emailDomains?: readonly string[] | null;
  city?: string | null;
  county?: string | null;
  zip?: string | null;
  /** The name read with the account's county or city, when it names no place (prepare.ts). */
  placed?: readonly NormalizedName[];
}

export interface ScoringContext {
  /** 0-based place of the buyer in the API's answer to the name search; null when not from one. */
  rank?: number | null;
  /**
   * Found among the buyers of the account's place for a name of kind words only (resolver.ts): the
   * place's name, which the account's name lacks, relates them; a person chooses among them.
   */
  localTo?: string | null;
}

export interface ScoreResult {
  /** 0..1, the sum of the signals' points. */
  score: number;
  signals: ScoreSignal[];
  /**
   * The buyer is in another state than the account: matched automatically only with independent
   * evidence (`independent`), else offered for review.
   */
  otherState: boolean;
  /** The name says another kind of buyer: never matched automatically, whatever the score. */
  typeConflict: boolean;
  /** The name's number is not the buyer's ("USD 512" against USD 513): never matched automatically. */
  numberConflict: boolean;
  /** Every number of the name is the buyer's: it tells the buyer from rivals that carry none. */
  numberAgrees: boolean;
  /** Every word of the name that names the body (not its kind) is among the buyer's names' words. */
  coversName: boolean;
  /**
   * Words of the account's name that name a part of a government (UNIT_WORDS) and none of the buyer's
   * names carries: the account is that part, or another body, not this buyer.
   */
  unitsBeyond: string[];
  /** Points from the account's zip, city and county. */
  placePoints: number;
  /** The name as written equals the buyer's legal name or another of its names, no reading needed. */
  nameEqual: boolean;
  /** The name read as a short form of one of the buyer's names (name-evidence.ts). */
  shortForm: boolean;
  /** The words that name the body are the buyer's exactly; only the words of kind may differ. */
  sameCore: boolean;
  /** Evidence that does not come from the name: the website, an email domain. */
  independent: boolean;
  /** Found among the buyers of the account's place (`ScoreContext.localTo`), not by its name. */
  foundByPlace: boolean;
  /** 0..1 similarity of the names, through the reading that compared best. */
  nameSimilarity: number;
  web: WebEvidence;
  /** Points from the website and email domains. */
  webPoints: number;
  /** Points of the API's own order: a tie-break that the decision to match leaves out. */
  rankPoints: number;
  /** Some evidence points at this buyer: a shared word, a reading of the name, the web address. */
  related: boolean;
  /** Short phrases for a one-sentence explanation, e.g. "name equal after expanding ISD", "state TX". */
  reasons: string[];
}

const US_STATES = STATES.filter((s) => s.country === 'US');
const quote = (s: string): string => `"${s}"`;

// ---- State --------------------------------------------------------------------------------------------

/** Each US state's name as foldText reads it, between spaces. */
const US_STATE_NAMES = US_STATES.map((state) => ({ code: state.code, words: ` ${foldText(state.name)} ` }));

/** The US states whose full names a name's words hold ("new york", "new jersey"). */
const statesNamed = memoized((input: string): ReadonlySet<string> => {
  const text = ` ${foldText(statesWrittenOut(input))} `;
  const found = new Set<string>();
  for (const state of US_STATE_NAMES) if (text.includes(state.words)) found.add(state.code);
  return found;
});

function stateSignal(
  account: ScoringAccount,
  name: NormalizedName | null,
  buyer: ScoringBuyer,
  w: Weights,
): { signal: ScoreSignal; otherState: boolean; reason: string } {
  const given = account.state?.trim() || null;
  const fromAccount = given ? findState(given) : undefined;
  const fromName = !fromAccount && name?.stateCode ? findState(name.stateCode) : undefined;
  const mine = fromAccount ?? fromName;
  const origin = fromName ? ' (from the name)' : '';
  const theirs = buyer.stateCode ? findState(buyer.stateCode) : undefined;
  if (!mine) {
    const why = given ? `account state "${given}" not recognised` : 'account has no state';
    return {
      signal: { signal: 'state', points: 0, detail: `${why}; not compared` },
      otherState: false,
      reason: 'state not compared',
    };
  }
  if (!theirs) {
    return {
      signal: { signal: 'state', points: 0, detail: `buyer has no state; account in ${mine.code}${origin}` },
      otherState: false,
      reason: 'buyer state unknown',
    };
  }
  // "Port Authority of New York and New Jersey" filed in NJ: a name naming both states says the body
  // spans them, and the buyer in New York is where the name says.
  const named = mine.code !== theirs.code && name ? statesNamed(name.input) : undefined;
  if (named?.has(mine.code) && named.has(theirs.code)) {
    return {
      signal: {
        signal: 'state',
        points: w.state,
        detail: `account in ${mine.code}, buyer in ${theirs.code}: the name names both`,
      },
      otherState: false,
      reason: `states ${mine.code} and ${theirs.code} by the name`,
    };
  }
  if (mine.code === theirs.code) {
    return {
      signal: { signal: 'state', points: w.state, detail: `${mine.code}${origin} = ${theirs.code}` },
      otherState: false,
      reason: `state ${mine.code}`,
    };
  }
  return {
    signal: {
      signal: 'state',
      points: w.stateMismatch,
      detail: `account in ${mine.code}${origin}, buyer in ${theirs.code}`,
    },
    otherState: true,
    reason: `in another state (${mine.code} vs ${theirs.code})`,
  };
}

// ---- Type ---------------------------------------------------------------------------------------------

const BARE_NAME_PRIOR_SHARE: Partial<Record<TypeHint, number>> = {
  city: 1,
  county: 2 / 3,
  'school-district': 1 / 3,
};

const MUNICIPAL_FORMS: Readonly<Record<string, string>> = {
  township: 'township',
  village: 'village',
  borough: 'borough',
  city: 'city',
  town: 'city',
};

/** The municipal form a name's kind words say (township, village, borough, or city for city/town). */
function municipalForm(typeTokens: readonly string[]): string | undefined {
  const forms = new Set(typeTokens.flatMap((t) => (MUNICIPAL_FORMS[t] ? [MUNICIPAL_FORMS[t]] : [])));
  return forms.size === 1 ? [...forms][0] : undefined;
}

function typeSignal(
  name: NormalizedName | null,
  buyer: ScoringBuyer,
  buyerName: NormalizedName,
  w: Weights,
): { signal: ScoreSignal | null; reason: string | null; conflict: boolean } {
  const theirs = hintOfBuyerType(buyer.type) ?? (buyer.type ? null : buyerName.typeHint);
  const shownType = buyer.type ?? `named as ${theirs ? TYPE_HINT_LABELS[theirs] : 'unknown'}`;
  const mine = name?.typeHint ?? null;
  if (!mine) {
    const share = theirs ? (BARE_NAME_PRIOR_SHARE[theirs] ?? 0) : 0;
    if (!name || share === 0) return { signal: null, reason: null, conflict: false };
    return {
      signal: {
        signal: 'type',
        points: round3(w.bareNamePrior * share),
        detail: `account name has no type word; a bare place name most often means the city, then the county, then the school district (buyer: ${shownType})`,
      },
      reason: null,
      conflict: false,
    };
  }
  const consolidated = (mine === 'city' || mine === 'county') && isConsolidatedGovernment(buyer.name);
  const evidence = name?.typeEvidence ?? mine;
  const shownEvidence = evidence.includes('"') ? evidence : quote(evidence);
  const says = `account name says ${shownEvidence} (${TYPE_HINT_LABELS[mine]})`;
  if (!theirs && !consolidated) {
    return {
      signal: { signal: 'type', points: 0, detail: `${says}; buyer type ${shownType} not comparable` },
      reason: null,
      conflict: false,
    };
  }
  // A township, a village and a borough are governments of their own beside a city of the same name
  // ("Shelby Twp" is the Charter Township, not the City of Shelby): when both names say their form
  // and the forms differ, the kinds conflict though the provider types both as cities. City and town
  // are read as one form: reps write either for the same municipality; a consolidated government
  // ("City and Borough of Juneau") is both.
  const myForm = municipalForm(name?.typeTokens ?? []);
  const theirForm = municipalForm(buyerName.typeTokens);
  if (
    myForm &&
    theirForm &&
    myForm !== theirForm &&
    !consolidated &&
    !/\bcity and borough\b/i.test(buyer.name)
  ) {
    return {
      signal: {
        signal: 'type',
        points: w.typeConflict,
        detail: `${says}; the buyer's name says a ${theirForm}: never matched automatically`,
      },
      reason: `type conflict (a ${myForm} by ${shownEvidence} vs a ${theirForm} by its name)`,
      conflict: true,
    };
  }
  // The buyer's own name says the account's kind ("Macon-Bibb County Government", typed City; "Borough
  // of State College"): the provider's type classifies it otherwise, its name does not disagree.
  const ownName = buyerName.typeHint === mine && theirs !== mine;
  if (theirs === mine || consolidated || ownName) {
    return {
      signal: {
        signal: 'type',
        points: w.typeAgreement,
        detail: `${says}; buyer type ${shownType}${ownName ? `, its name says ${TYPE_HINT_LABELS[mine]} too` : ''}`,
      },
      reason: `${ownName ? 'its name’s kind agrees' : 'type agrees'} (${TYPE_HINT_LABELS[mine]} by ${shownEvidence})`,
      conflict: false,
    };
  }
  if (!theirs || typeHintsRelated(mine, theirs)) {
    return {
      signal: { signal: 'type', points: 0, detail: `${says}; buyer type ${shownType} is related` },
      reason: null,
      conflict: false,
    };
  }
  return {
    signal: {
      signal: 'type',
      points: w.typeConflict,
      detail: `${says}; buyer type ${shownType} conflicts: never matched automatically`,
    },
    reason: `type conflict (${TYPE_HINT_LABELS[mine]} by ${shownEvidence} vs ${shownType})`,
    conflict: true,
  };
}

// ---- Score --------------------------------------------------------------------------------------------

/** Scores `buyer` against `account`; the signals' points add up to the score. */
export function scoreCandidate(
  account: ScoringAccount,
  buyer: ScoringBuyer,
  weights?: Partial<Weights>,
  context: ScoringContext = {},
): ScoreResult {
  const w = resolveWeights(weights);
  const signals: ScoreSignal[] = [];
  const reasons: string[] = [];
  const add = (signal: ScoreSignal) => signals.push({ ...signal, points: round3(signal.points) });

  const given = typeof account.name === 'string' ? account.name.trim() : account.name;
  const baseName = typeof given === 'string' ? (given ? normalizeName(given) : null) : given;
  const buyerName = normalizeName(buyer.name);
  const accountState = account.state?.trim() || null;

  const otherNames = [...(buyer.profile?.otherNames ?? []), ...withoutItsState(buyer, accountState)]
    .filter((n) => n.trim() && foldText(n) !== buyerName.folded)
    .map((n) => normalizeName(n));
  let name = baseName;
  let nameSimilarity = 0;
  let numbers: ReturnType<typeof numberEvidence> | null = null;
  if (baseName) {
    const evidence = bestNameEvidence(baseName, buyerName, otherNames, buyer, accountState, w);
    for (const s of evidence.signals) add(s);
    reasons.push(...evidence.reasons);
    nameSimilarity = evidence.similarity;
    name = evidence.name;
    // "Park District" in Naperville reads as the Naperville Park District: the account says its place.
    for (const placed of account.placed ?? []) {
      const read = bestNameEvidence(placed, buyerName, otherNames, buyer, accountState, w);
      if (read.similarity <= nameSimilarity) continue;
      add({
        signal: 'placed',
        points: w.name * (read.similarity - nameSimilarity),
        detail: `"${baseName.searchName}" with the account's place reads "${placed.searchName}": ${read.reasons.join(', ')}`,
      });
      reasons.push(`"${placed.searchName}" by the account's place`);
      nameSimilarity = read.similarity;
      name = read.name;
    }
    const parent = parentReading(baseName, buyer, buyerName, otherNames, accountState, nameSimilarity, w);
    if (parent) {
      add(parent.signal);
      reasons.push(parent.reason);
      nameSimilarity = parent.similarity;
      name = parent.name;
    }
    numbers = numberEvidence(baseName, [buyerName, ...otherNames], w);
    const identity = identityReading(baseName, buyer, buyerName, otherNames, numbers, nameSimilarity, w);
    if (identity) {
      add(identity.signal);
      reasons.push(identity.reason);
      nameSimilarity = identity.similarity;
    }
    const short = shortFormReading(
      name ?? baseName,
      buyer,
      buyerName,
      otherNames,
      nameSimilarity,
      w,
      (words) => isPlaceName(words, accountState),
    );
    if (short) {
      add(short.signal);
      reasons.push(short.reason);
      nameSimilarity = short.similarity;
    }
    if (numbers.signal) add(numbers.signal);
    if (numbers.conflict && numbers.reason) reasons.push(numbers.reason);
  }

  const web = webSignals(account, buyer, w);
  const positiveWeb = web.evidence !== 'none' && web.evidence !== 'mismatch';
  const state = stateSignal(account, name, buyer, w);
  // The buyer's own website or email domain on the account says the other state is where it is filed
  // (a port, an airport, a transit authority spans states): the state is no evidence against then.
  // Its own home page or mail domain places the account where the buyer is, as the state would have.
  if (state.otherState && positiveWeb) {
    const places = web.evidence === 'home-page' || web.evidence === 'email';
    state.signal = {
      ...state.signal,
      points: places ? w.state : 0,
      detail: `${state.signal.detail}; the account's ${places ? 'website is the buyer’s own site, or its email domain the buyer’s' : 'web address is on the buyer’s site'}`,
    };
  }

  if (!baseName) {
    // No name: the buyer's own site stands in for it (HubSpot creates companies from a domain).
    if (web.evidence === 'home-page') {
      add({
        signal: 'domain-name',
        points: w.name,
        detail: `the account has no name; its website is this buyer's own site, which names it`,
      });
      nameSimilarity = 1;
      reasons.push('no name: its website is this buyer’s site');
    } else add({ signal: 'name', points: 0, detail: 'account has no name' });
  }

  add(state.signal);
  reasons.push(state.reason);
  for (const s of web.signals) add(s);
  if (web.reason) reasons.push(web.reason);

  const type = typeSignal(name, buyer, buyerName, w);
  if (type.signal) add(type.signal);
  if (type.reason) reasons.push(type.reason);

  const address = addressSignal(account, buyer.profile, w, state.reason === 'state not compared');
  if (address) {
    add(address.signal);
    reasons.push(address.reason);
  }

  if (baseName?.company) {
    add({
      signal: 'company',
      points: w.company,
      detail: `the name closes with "${baseName.company}", a company's legal form: public buyers are not companies`,
    });
    reasons.push(`a company ("${baseName.company}")`);
  }

  const rank = context.rank ?? null;
  if (rank !== null && rank <= 1 && w.rank !== 0) {
    add({
      signal: 'rank',
      points: rank === 0 ? w.rank : w.rank / 2,
      detail: `the API listed it ${rank === 0 ? 'first' : 'second'} for the name (a tie-break only)`,
    });
  }

  const localTo = context.localTo && !state.otherState && !type.conflict ? context.localTo : null;
  if (localTo)
    add({
      signal: 'placed',
      points: 0,
      detail: `a buyer of ${localTo}, the account's place: a place and a kind are not a name`,
    });

  const raw = round3(signals.reduce((sum, s) => sum + s.points, 0));
  const score = Math.min(1, Math.max(0, raw));
  if (score !== raw) {
    add({
      signal: 'clamp',
      points: score - raw,
      detail:
        raw > 1
          ? `evidence adds up to ${raw}; the score is capped at 1`
          : `evidence adds up to ${raw}; the score is floored at 0`,
    });
  }
  const sumOf = (kinds: readonly SignalKind[]) =>
    round3(signals.filter((s) => kinds.includes(s.signal)).reduce((sum, s) => sum + s.points, 0));
  const webPoints = sumOf(['website', 'email-domain']);
  return {
    score: round3(score),
    signals,
    otherState: state.otherState,
    typeConflict: type.conflict,
    numberConflict: numbers?.conflict ?? false,
    numberAgrees: numbers?.agrees ?? false,
    coversName:
      !!baseName?.core.some((t) => !/^\d+$/.test(t)) &&
      [buyerName, ...otherNames].some((n) => wordsWithin(baseName, n, sameWord)),
    unitsBeyond: baseName ? unitWordsBeyond(baseName, [buyerName, ...otherNames]) : [],
    placePoints: sumOf(['address']),
    nameEqual: sumOf(['name', 'other-name']) >= w.name,
    shortForm: signals.some((s) => s.signal === 'short-form'),
    sameCore:
      !!baseName &&
      baseName.core.length > 0 &&
      compareTokens(baseName.core, buyerName.core).exact ===
        Math.max(baseName.core.length, buyerName.core.length),
    independent: positiveWeb,
    foundByPlace: !!localTo,
    nameSimilarity: round3(nameSimilarity),
    web: web.evidence,
    webPoints,
    rankPoints: sumOf(['rank']),
    // A name of kind words only ("County Library", "911 District") relates to the buyers of that kind
    // in its state: a person chooses among them.
    related:
      nameSimilarity > 0 ||
      !!localTo ||
      (webPoints > 0 && positiveWeb) ||
      (!!baseName && !baseName.core.length && !!type.reason && !type.conflict && !state.otherState),
    reasons,
  };
}

/** The account's words that name a part of a government and no name of the buyer carries. */
function unitWordsBeyond(account: NormalizedName, names: readonly NormalizedName[]): string[] {
  const carried = new Set(names.flatMap((n) => n.tokens));
  const singular = (t: string) => t.replace(/ies$/, 'y').replace(/s$/, '');
  const has = (t: string) => carried.has(t) || [...carried].some((c) => singular(c) === singular(t));
  return account.tokens.filter((t) => UNIT_WORDS.has(t) && !has(t));
}
