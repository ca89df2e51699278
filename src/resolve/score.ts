// Size: one scorer whose rules interact; kept together so a change to one rule shows its neighbours.
// Pure scoring of one buyer (a search result) against one CRM account. Every point of the score comes
// with a signal saying where it came from, and the signals add up to the score: a "clamp" signal
// records what the 0..1 bounds took off. The name earns its points once, through the best reading of
// it a person would accept — as written, through a typo, as initials or short forms, as a nickname, or
// as the buyer's own web address — and each reading beyond the written name is a signal of its own.
import { findState, STATES } from '../buyer-intel/states.ts';
import { domainLabel, organizationDomain, parseWebAddress, registrableDomain } from './domains.ts';
import { addressSignal, isConsolidatedGovernment, numberEvidence, wordsWithin } from './evidence.ts';
import {
  foldText,
  hintOfBuyerType,
  isTypoOf,
  type NormalizedName,
  normalizeName,
  STOP_WORDS,
  TYPE_HINT_LABELS,
  type TypeHint,
  typeHintsRelated,
} from './normalize.ts';
import { statesWrittenOut } from './queries.ts';
import { readCompound, stateDotNickname } from './readings.ts';
import { JURISDICTION_TYPE_WORDS, WORD_SHORT_FORMS } from './vocabulary.ts';
import { webSignals } from './web.ts';
import {
  resolveWeights,
  type ScoreSignal,
  type ScoringBuyer,
  type SignalKind,
  type WebEvidence,
  type Weights,
} from './weights.ts';

export { parseWebAddress, registrableDomain } from './domains.ts';
export { editDistance } from './normalize.ts';
export {
  DEFAULT_WEIGHTS,
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
}

export interface ScoringContext {
  /** 0-based place of the buyer in the API's answer to the name search; null when not from one. */
  rank?: number | null;
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
  /** Points from the account's zip, city and county. */
  placePoints: number;
  /** The words that name the body are the buyer's exactly; only the words of kind may differ. */
  sameCore: boolean;
  /** Evidence that does not come from the name: the website, an email domain. */
  independent: boolean;
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

const round3 = (n: number): number => Math.round(n * 1000) / 1000;
const US_STATES = STATES.filter((s) => s.country === 'US');
const quote = (s: string): string => `"${s}"`;

// ---- Token similarity ---------------------------------------------------------------------------------

/** Whether `a` is a short form of `b` or the other way round ("tech" for "technology"). */
function shortFormOf(a: string, b: string): boolean {
  return (WORD_SHORT_FORMS[a]?.includes(b) ?? false) || (WORD_SHORT_FORMS[b]?.includes(a) ?? false);
}

export interface TokenComparison {
  /** Dice coefficient: 2·matched / (|a| + |b|). */
  similarity: number;
  exact: number;
  /** Pairs matched through a short form ("tech" ~ "technology"). */
  short: [string, string][];
  /** Pairs matched through a typo (only when typos are allowed). */
  fuzzy: [string, string][];
}

/** Dice similarity of two token lists: exact matches first, then short forms, then (if allowed) typos. */
export function compareTokens(
  a: readonly string[],
  b: readonly string[],
  options: { typos?: boolean } = {},
): TokenComparison {
  if (!a.length && !b.length) return { similarity: 1, exact: 0, short: [], fuzzy: [] };
  if (!a.length || !b.length) return { similarity: 0, exact: 0, short: [], fuzzy: [] };
  const free = b.map(() => true);
  let pending: string[] = [];
  let exact = 0;
  for (const t of a) {
    const at = b.findIndex((u, i) => free[i] && u === t);
    if (at >= 0) {
      free[at] = false;
      exact++;
    } else pending.push(t);
  }
  const pair = (test: (t: string, u: string) => boolean): [string, string][] => {
    const found: [string, string][] = [];
    const left: string[] = [];
    for (const t of pending) {
      const at = b.findIndex((u, i) => free[i] && test(t, u));
      const u = b[at];
      if (at >= 0 && u !== undefined) {
        free[at] = false;
        found.push([t, u]);
      } else left.push(t);
    }
    pending = left;
    return found;
  };
  const short = pair(shortFormOf);
  const fuzzy = options.typos ? pair(isTypoOf) : [];
  const matched = exact + short.length + fuzzy.length;
  return { similarity: (2 * matched) / (a.length + b.length), exact, short, fuzzy };
}

interface NameComparison {
  similarity: number;
  core: TokenComparison;
  detail: string;
}

const meaningful = (n: NormalizedName) => n.tokens.filter((t) => !STOP_WORDS.has(t));
// "U.S." says whose an agency is, not what it is: a name that leaves it out names the same agency.
const kindWords = (n: NormalizedName) => n.typeTokens.filter((t) => !JURISDICTION_TYPE_WORDS.has(t));

/**
 * Core tokens carry the name; type tokens, when both names have them, scale it between ½ (different
 * kinds) and 1 (same words). A name without type words ("Austin") is compared on its core alone.
 */
export function compareNames(
  a: NormalizedName,
  b: NormalizedName,
  options: { typos?: boolean } = {},
): NameComparison {
  const onCore = a.core.length > 0 && b.core.length > 0;
  const core = onCore
    ? compareTokens(a.core, b.core, options)
    : compareTokens(meaningful(a), meaningful(b), options);
  const aKind = kindWords(a);
  const bKind = kindWords(b);
  const type = aKind.length && bKind.length ? compareTokens(aKind, bKind) : null;
  const similarity = type ? core.similarity * (0.5 + 0.5 * type.similarity) : core.similarity;

  const parts: string[] = [];
  const scope = onCore ? 'core tokens' : 'tokens';
  if (core.similarity === 1) parts.push(`${scope} equal`);
  else if (core.similarity === 0) parts.push(`no ${scope} in common`);
  else parts.push(`${scope} ${round3(core.similarity)} similar`);
  for (const [x, y] of core.short) parts.push(`"${x}" for "${y}"`);
  for (const [x, y] of core.fuzzy) parts.push(`"${x}" ~ "${y}" (typo)`);
  if (!type) parts.push('type words not compared');
  else if (type.similarity === 1) parts.push('type tokens equal');
  else parts.push(`type tokens ${type.similarity === 0 ? 'differ' : `${round3(type.similarity)} similar`}`);
  if (a.expansions.length) parts.push(a.expansions.join(', '));
  const sign = similarity === 1 ? '≈' : 'vs';
  return {
    similarity,
    core,
    detail: `${quote(a.folded)} ${sign} ${quote(b.folded)} (${parts.join('; ')})`,
  };
}

// ---- Name, through its readings --------------------------------------------------------------------------

interface Reading {
  kind: SignalKind;
  name: NormalizedName;
  /** 0..1 similarity the reading earns, its credit applied. */
  similarity: number;
  detail: string;
  reason: string;
}

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The name with one token read as other words, keeping what the name said of its state and type. */
function replaced(name: NormalizedName, token: string, words: string): NormalizedName {
  const pattern = new RegExp(`(?<![\\p{L}\\p{N}])${escapeRegExp(token)}(?![\\p{L}\\p{N}])`, 'iu');
  const text = pattern.test(name.searchName)
    ? name.searchName.replace(pattern, words)
    : name.tokens.map((t) => (t === token ? words : t)).join(' ');
  const read = normalizeName(text);
  return {
    ...read,
    stateCode: name.stateCode,
    typeHint: read.typeHint ?? name.typeHint,
    typeEvidence: read.typeHint ? read.typeEvidence : name.typeEvidence,
  };
}

/** The account's tokens that no word of the buyer's name matches, even through a typo or short form. */
function unmatched(name: NormalizedName, buyer: NormalizedName): string[] {
  return name.core.filter(
    (t) => !buyer.tokens.some((u) => u === t || shortFormOf(t, u) || isTypoOf(t, u)) && !/^\d+$/.test(t),
  );
}

function readings(
  name: NormalizedName,
  buyer: NormalizedName,
  buyerUrl: string | null | undefined,
  accountState: string | null,
  credit: number,
  w: Weights,
): Reading[] {
  const out: Reading[] = [];
  const compare = (read: NormalizedName, share: number) => {
    const c = compareNames(read, buyer, { typos: true });
    return { similarity: c.similarity * share * credit, detail: c.detail };
  };
  // The states a name names by postal code, written out: "Port Authority of NY & NJ".
  const written = statesWrittenOut(name.searchName);
  if (written !== name.searchName) {
    const read = { ...normalizeName(written), stateCode: name.stateCode };
    const c = compare(read, 1);
    out.push({
      kind: 'acronym',
      name: read,
      ...c,
      detail: `postal codes read as the states they stand for: ${c.detail}`,
      reason: `"${name.searchName}" read as "${written}"`,
    });
  }
  // A state DOT's nickname: the whole name or one of its words.
  for (const token of name.searchName.split(/[^\p{L}\p{N}]+/u).filter(Boolean)) {
    const nick = stateDotNickname(token, accountState ?? name.stateCode);
    if (!nick) continue;
    const read = replaced(name, token, nick.name);
    const withState = { ...read, stateCode: read.stateCode ?? nick.stateCode };
    const c = compare(withState, 1);
    out.push({ kind: 'nickname', name: withState, ...c, reason: nick.why });
  }
  // Initials or short forms of consecutive words of the buyer's name.
  for (const token of unmatched(name, buyer)) {
    const reading = readCompound(token, buyer.tokens);
    if (!reading) continue;
    let read = replaced(name, token, reading.words);
    // A name that is nothing but the letters ("LAUSD") says no kind of its own: the buyer's words
    // read into it would only agree with themselves.
    if (name.core.every((t) => t === token))
      read = { ...read, typeHint: name.typeHint, typeEvidence: name.typeEvidence };
    // A state's postal code is its name, no guess: full credit.
    const c = compare(read, reading.how === 'code' ? 1 : w.readingCredit);
    const as =
      reading.how === 'initials'
        ? 'the initials of'
        : reading.how === 'code'
          ? 'the postal code of'
          : 'short for';
    out.push({
      kind: 'acronym',
      name: read,
      similarity: c.similarity,
      detail: `"${token.toUpperCase()}" read as ${as} "${reading.words}": ${c.detail}`,
      reason: `${name.searchName.includes(' ') ? token.toUpperCase() : name.searchName} read as ${as} "${reading.words}"`,
    });
  }
  // The name is the buyer's web address ("SEPTA" and septa.org): organisations name their sites so.
  const page = parseWebAddress(buyerUrl);
  const label = page ? domainLabel(page.host) : null;
  const portal = page ? organizationDomain(page.host) !== registrableDomain(page.host) : false;
  const compact = name.folded.replace(/ /g, '');
  if (page && label && !portal && label.label.length >= 3 && compact === label.label) {
    // The account's own name still says (or does not say) its kind: the buyer's name is not read into it.
    out.push({
      kind: 'domain-name',
      name,
      similarity: credit,
      detail: `"${name.searchName}" is the name of the buyer's web address ${page.host}`,
      reason: `"${name.searchName}" is its web address ${page.host}`,
    });
  }
  return out;
}

interface NameEvidence {
  signals: ScoreSignal[];
  reasons: string[];
  similarity: number;
  /** The reading the rest of the scoring reads the type from. */
  name: NormalizedName;
}

function nameEvidence(
  given: NormalizedName,
  buyerName: NormalizedName,
  buyer: ScoringBuyer,
  accountState: string | null,
  w: Weights,
): NameEvidence {
  const written =
    given.typos.length === 0
      ? given
      : { ...normalizeName(given.input, { correctTypos: false }), stateCode: given.stateCode };
  const base = compareNames(written, buyerName);
  const signals: ScoreSignal[] = [{ signal: 'name', points: w.name * base.similarity, detail: base.detail }];
  const reasons: string[] = [];
  let similarity = base.similarity;
  let name = written;
  let credit = 1;

  const typo = compareNames(given, buyerName, { typos: true });
  if (given.typos.length || typo.core.fuzzy.length) {
    const read = typo.similarity * w.typoCredit;
    if (read > similarity) {
      const words = [...given.typos, ...typo.core.fuzzy.map(([x, y]) => `${x} → ${y}`)];
      signals.push({
        signal: 'typo',
        points: w.name * (read - similarity),
        detail: `read through a typo (${words.join(', ')}), at ${w.typoCredit} of the name's points: ${typo.detail}`,
      });
      reasons.push(`typo ${words.join(', ')}`);
      similarity = read;
      name = given;
      credit = w.typoCredit;
    }
  }

  const best = readings(name, buyerName, buyer.url, accountState, credit, w).reduce<Reading | null>(
    (top, r) => (r.similarity > (top?.similarity ?? similarity) ? r : top),
    null,
  );
  if (best) {
    signals.push({ signal: best.kind, points: w.name * (best.similarity - similarity), detail: best.detail });
    reasons.push(best.reason);
    similarity = best.similarity;
    name = best.name;
  }

  if (!reasons.length) {
    // Only the abbreviations the buyer's name does not share explain why the names compare equal.
    const theirs = new Set(buyerName.expansions.map((e) => e.toLowerCase()));
    const expanded = written.expansions
      .filter((e) => e.includes(' → ') && !theirs.has(e.toLowerCase()))
      .map((e) => e.split(' → ')[0]);
    if (base.similarity === 1)
      reasons.unshift(expanded.length ? `name equal after expanding ${expanded.join(', ')}` : 'name equal');
    else reasons.unshift(`name ${round3(base.similarity).toFixed(2)} similar`);
  }
  return { signals, reasons, similarity, name };
}

/**
 * The buyer's name without its own state's name, when the account is in that state: "Seminole Nation
 * of Oklahoma" and "Superior Court of Arizona in Maricopa County" say the state the account's state
 * field already says.
 */
function withoutItsState(buyer: ScoringBuyer, accountState: string | null): string[] {
  const theirs = buyer.stateCode ? findState(buyer.stateCode) : undefined;
  if (!theirs || !accountState || findState(accountState)?.code !== theirs.code) return [];
  const pattern = new RegExp(`(?:,?\\s*\\b(?:of|in)\\s+)?\\b${theirs.name.replace(/ /g, '\\s+')}\\b,?`, 'i');
  const without = buyer.name.replace(pattern, ' ').replace(/\s+/g, ' ').trim();
  return without && without !== buyer.name && foldText(without) ? [without] : [];
}

/**
 * The name against the buyer's legal name and each of its other names (its common name, from its
 * attributes): the reading that compares best is the name's evidence.
 */
function bestNameEvidence(
  given: NormalizedName,
  legal: NormalizedName,
  others: readonly NormalizedName[],
  buyer: ScoringBuyer,
  accountState: string | null,
  w: Weights,
): NameEvidence {
  let best = nameEvidence(given, legal, buyer, accountState, w);
  for (const other of others) {
    const read = nameEvidence(given, other, buyer, accountState, w);
    if (read.similarity <= best.similarity) continue;
    const as = `as its other name "${other.input}"`;
    best = {
      ...read,
      signals: read.signals.map((s, i) =>
        i === 0 ? { ...s, signal: 'other-name', detail: `${as}: ${s.detail}` } : s,
      ),
      reasons: read.reasons.map((r, i) => (i === 0 ? `${r} ${as}` : r)),
    };
  }
  return best;
}

const sameWord = (t: string, u: string): boolean => t === u || shortFormOf(t, u) || isTypoOf(t, u);

/** Whether a name holds the word, as written, as a short form or through a typo. */
export function nameCarries(name: string, word: string): boolean {
  return normalizeName(name).tokens.some((u) => sameWord(word, u));
}
const GOVERNMENT_WORDS = new Set(['metro', 'metropolitan', 'unified', 'consolidated', 'government']);

/** A consolidated government's words that name its county ("davidson") and the rest, its city. */
function consolidatedParts(buyer: NormalizedName): { county: string[]; city: string[] } {
  const county = buyer.tokens.filter((t, i) => {
    const next = buyer.tokens[i + 1];
    return (next === 'county' || next === 'parish') && !STOP_WORDS.has(t);
  });
  const city = buyer.core.filter(
    (t) => !county.includes(t) && !GOVERNMENT_WORDS.has(t) && !STOP_WORDS.has(t),
  );
  return { county, city };
}

/**
 * Readings of identity the words alone undersell: a number the buyer's name carries too, the name's
 * other words all among the buyer's ("USD 512" for "Shawnee Mission USD 512"); one place of a
 * consolidated government named alone ("City of Louisville" for "Louisville/Jefferson County Metro
 * Government"). Each earns the name a reading's credit, never more.
 */
function identityReading(
  given: NormalizedName,
  buyer: ScoringBuyer,
  legal: NormalizedName,
  others: readonly NormalizedName[],
  numbers: { agrees: boolean; reason: string | null },
  similarity: number,
  w: Weights,
): { signal: ScoreSignal; reason: string; similarity: number } | null {
  const credit = w.readingCredit;
  // A number the buyer carries, with no word of the name left over, names it as its registry id would —
  // when the name says what kind of body it numbers ("USD 512", "District 65"; not "Region 4").
  if (numbers.agrees && similarity < 1 && given.typeTokens.length > 0) {
    const holder = [legal, ...others].find((n) => wordsWithin(given, n, sameWord));
    // The kinds still count: "CUSD 200" is the community unit district 200, less the high school one.
    const mine = kindWords(given);
    const theirs = holder ? kindWords(holder) : [];
    // A kind less specific than the buyer's ("District 65" for a school district) is no other kind.
    const within = mine.every((t) => theirs.some((u) => sameWord(t, u)));
    const kind =
      mine.length && theirs.length && !within ? 0.5 + 0.5 * compareTokens(mine, theirs).similarity : 1;
    if (holder && kind > similarity)
      return {
        signal: {
          signal: 'number',
          points: w.name * (kind - similarity),
          detail: `${numbers.reason} and every other word of the name are the buyer's "${holder.input}": the number names it`,
        },
        reason: `${numbers.reason} names it`,
        similarity: kind,
      };
  }
  if (similarity >= credit || !given.core.length || !isConsolidatedGovernment(buyer.name)) return null;
  const hint = given.typeHint;
  if (hint && hint !== 'city' && hint !== 'county') return null;
  const parts = consolidatedParts(legal);
  const words = given.core.filter((t) => !STOP_WORDS.has(t));
  const within = (part: string[]) => part.length > 0 && words.every((t) => part.some((u) => sameWord(t, u)));
  const named =
    hint === 'county' ? within(parts.county) : within(parts.city) || (!hint && within(parts.county));
  if (!named) return null;
  return {
    signal: {
      signal: 'consolidated',
      points: w.name * (credit - similarity),
      detail: `"${given.searchName}" names a place of the consolidated government "${buyer.name}"`,
    },
    reason: `"${given.searchName}" is part of the consolidated "${buyer.name}"`,
    similarity: credit,
  };
}

// ---- State --------------------------------------------------------------------------------------------

/** The US states whose full names a name's words hold ("new york", "new jersey"). */
function statesNamed(name: NormalizedName): Set<string> {
  const text = ` ${foldText(statesWrittenOut(name.input))} `;
  const found = new Set<string>();
  for (const state of US_STATES) if (text.includes(` ${foldText(state.name)} `)) found.add(state.code);
  return found;
}

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
  const named = name ? statesNamed(name) : new Set<string>();
  if (mine.code !== theirs.code && named.has(mine.code) && named.has(theirs.code)) {
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
  if (theirs === mine || consolidated) {
    return {
      signal: { signal: 'type', points: w.typeAgreement, detail: `${says}; buyer type ${shownType}` },
      reason: `type agrees (${TYPE_HINT_LABELS[mine]} by ${shownEvidence})`,
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
    numbers = numberEvidence(baseName, [buyerName, ...otherNames], w);
    const identity = identityReading(baseName, buyer, buyerName, otherNames, numbers, nameSimilarity, w);
    if (identity) {
      add(identity.signal);
      reasons.push(identity.reason);
      nameSimilarity = identity.similarity;
    }
    if (numbers.signal) add(numbers.signal);
    if (numbers.conflict && numbers.reason) reasons.push(numbers.reason);
  }

  const web = webSignals(account, buyer, w);
  const positiveWeb = web.evidence !== 'none' && web.evidence !== 'mismatch';
  const state = stateSignal(account, name, buyer, w);
  // The buyer's own website or email domain on the account says the other state is where it is filed
  // (a port, an airport, a transit authority spans states): the state is no evidence against then.
  if (state.otherState && positiveWeb)
    state.signal = {
      ...state.signal,
      points: 0,
      detail: `${state.signal.detail}; the account's web address or email domain is the buyer's`,
    };

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
    placePoints: sumOf(['address']),
    sameCore:
      !!baseName &&
      baseName.core.length > 0 &&
      compareTokens(baseName.core, buyerName.core).exact ===
        Math.max(baseName.core.length, buyerName.core.length),
    independent: positiveWeb,
    nameSimilarity: round3(nameSimilarity),
    web: web.evidence,
    webPoints,
    rankPoints: sumOf(['rank']),
    // A name of kind words only ("County Library", "911 District") relates to the buyers of that kind
    // in its state: a person chooses among them.
    related:
      nameSimilarity > 0 ||
      (webPoints > 0 && positiveWeb) ||
      (!!baseName && !baseName.core.length && !!type.reason && !type.conflict && !state.otherState),
    reasons,
  };
}
