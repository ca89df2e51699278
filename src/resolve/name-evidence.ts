// Size: the readings of a name a person would accept, each one a rule that competes with the others for
// the name's points; kept together so the best reading is chosen among all of them in one place.
// The name's evidence: the name as written, through a typo, as initials or short forms, as a nickname,
// as the buyer's web address, as another of the buyer's names, through a number or a consolidated
// government's place; the best reading a person would accept earns the name's points.
import { findState } from '../buyer-intel/states.ts';
import { compareNames, compareTokens, kindWords, sameWord, shortFormOf } from './compare.ts';
import { domainLabel, organizationDomain, parseWebAddress, registrableDomain } from './domains.ts';
import { consolidatedParts, isConsolidatedGovernment, wordsWithin } from './evidence.ts';
import { memoized } from './memo.ts';
import { foldText, isTypoOf, type NormalizedName, normalizeName, STOP_WORDS } from './normalize.ts';
import { statesWrittenOut } from './queries.ts';
import { readCompound, stateDotNickname } from './readings.ts';
import { round3 } from './round.ts';
import type { ScoreSignal, ScoringBuyer, SignalKind, Weights } from './weights.ts';

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

/** The words of a name as written, for the nicknames they may be. */
const wordsOf = memoized((text: string): readonly string[] => text.split(/[^\p{L}\p{N}]+/u).filter(Boolean));

/** The account's state and the buyer's are one (both known). */
const sameState = (a: string | null | undefined, b: string | null | undefined): boolean => {
  const mine = a ? findState(a) : undefined;
  return !!mine && !!b && mine.code === findState(b)?.code;
};

/** "Athens Clarke Co Unified Govt": the name, then a consolidated government's closing words. */
const CLOSING_GOVERNMENT =
  /^(.*[\p{L}\p{N}])[\s,-]+(unified|consolidated|metro|metropolitan)\s+(?:government|gov't|govt|gov)\.?$/iu;
/** "U of I Springfield": a single letter after "U of", then the rest of the name. */
const UNIVERSITY_OF_LETTER = /^(?:u|univ\.?|university)\s+of\s+([a-z])\.?\s+(\S.*)$/i;

/**
 * Readings that need the buyer or the account's state: a consolidated government's closing words read
 * as the prefix its legal name opens with, and a state's initial after "U of".
 */
function accountStateReadings(
  name: NormalizedName,
  buyer: ScoringBuyer,
  accountState: string | null,
  compare: (read: NormalizedName, share: number) => { similarity: number; detail: string },
  w: Weights,
): Reading[] {
  const out: Reading[] = [];
  // Legal names open with the words ("Unified Government of Athens-Clarke County") that reps write
  // last. Only against a consolidated government of the account's state: read so against any buyer,
  // "Lafayette Consolidated Government" filed in IN (Louisiana's city-parish) read as the City of
  // Lafayette, IN — the words say a consolidated government, which that city is not.
  const closing = CLOSING_GOVERNMENT.exec(name.searchName);
  if (
    closing?.[1] &&
    closing[2] &&
    isConsolidatedGovernment(buyer.name) &&
    sameState(accountState, buyer.stateCode)
  ) {
    const text = `${closing[2]} Government of ${closing[1]}`;
    const read = { ...normalizeName(text), stateCode: name.stateCode };
    const c = compare(read, w.readingCredit);
    out.push({
      kind: 'consolidated',
      name: read,
      ...c,
      detail: `"${name.searchName}" read as "${text}", the consolidated government's form: ${c.detail}`,
      reason: `"${name.searchName}" read as "${text}"`,
    });
  }
  // "U of I Springfield" filed in IL: reps shorten the state's university to its initial, which the
  // account's state spells out. Only a single letter, and only the account's own state's initial.
  const letter = UNIVERSITY_OF_LETTER.exec(name.searchName);
  const state = accountState ? findState(accountState) : undefined;
  if (
    letter?.[1] &&
    letter[2] &&
    state?.country === 'US' &&
    state.name[0]?.toLowerCase() === letter[1].toLowerCase()
  ) {
    const text = `University of ${state.name} ${letter[2]}`;
    const read = { ...normalizeName(text), stateCode: name.stateCode };
    const c = compare(read, w.readingCredit);
    out.push({
      kind: 'acronym',
      name: read,
      ...c,
      detail: `"${letter[1].toUpperCase()}" after "U of" read as the initial of ${state.name}, the account's state: ${c.detail}`,
      reason: `"${letter[1].toUpperCase()}" read as ${state.name}, the account's state`,
    });
  }
  return out;
}

function readings(
  name: NormalizedName,
  buyer: NormalizedName,
  scoring: ScoringBuyer,
  accountState: string | null,
  credit: number,
  w: Weights,
): Reading[] {
  const buyerUrl = scoring.url;
  const out: Reading[] = [];
  const compare = (read: NormalizedName, share: number) => {
    const c = compareNames(read, buyer, { typos: true });
    return { similarity: c.similarity * share * credit, detail: c.detail };
  };
  out.push(...accountStateReadings(name, scoring, accountState, compare, w));
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
  for (const token of wordsOf(name.searchName)) {
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

export interface NameEvidence {
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

  const best = readings(name, buyerName, buyer, accountState, credit, w).reduce<Reading | null>(
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
export function withoutItsState(buyer: ScoringBuyer, accountState: string | null): readonly string[] {
  const theirs = buyer.stateCode ? findState(buyer.stateCode) : undefined;
  if (!theirs || !accountState || findState(accountState)?.code !== theirs.code) return [];
  let withoutIt = withoutState.get(theirs.code);
  if (!withoutIt) {
    const pattern = new RegExp(
      `(?:,?\\s*\\b(?:of|in)\\s+)?\\b${theirs.name.replace(/ /g, '\\s+')}\\b,?`,
      'i',
    );
    withoutIt = memoized((name: string): readonly string[] => {
      const without = name.replace(pattern, ' ').replace(/\s+/g, ' ').trim();
      return without && without !== name && foldText(without) ? [without] : [];
    }, 2_000);
    withoutState.set(theirs.code, withoutIt);
  }
  return withoutIt(buyer.name);
}

/** Per state, a buyer's name without the state's name, as a list of none or one. */
const withoutState = new Map<string, (name: string) => readonly string[]>();

/**
 * The name against the buyer's legal name and each of its other names (its common name, from its
 * attributes): the reading that compares best is the name's evidence.
 */
export function bestNameEvidence(
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

/**
 * Readings of identity the words alone undersell: a number the buyer's name carries too, the name's
 * other words all among the buyer's ("USD 512" for "Shawnee Mission USD 512"); one place of a
 * consolidated government named alone ("City of Louisville" for "Louisville/Jefferson County Metro
 * Government"). Each earns the name a reading's credit, never more.
 */
export function identityReading(
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
  if (similarity >= 1 || !given.core.length || !isConsolidatedGovernment(buyer.name)) return null;
  const hint = given.typeHint;
  if (hint && hint !== 'city' && hint !== 'county') return null;
  const parts = consolidatedParts(legal);
  const words = given.core.filter((t) => !STOP_WORDS.has(t));
  const within = (part: string[]) => part.length > 0 && words.every((t) => part.some((u) => sameWord(t, u)));
  // "Nashville-Davidson", "Athens-Clarke": its city and its county together, nothing else, name the
  // consolidated government as fully as its legal name (whose other words only say it is one) does.
  const inPart = (t: string, part: string[]) => part.some((u) => sameWord(t, u));
  const bothNamed =
    parts.city.length > 0 &&
    parts.county.length > 0 &&
    words.every((t) => inPart(t, parts.city) || inPart(t, parts.county)) &&
    [...parts.city, ...parts.county].every((u) => words.some((t) => sameWord(t, u)));
  if (bothNamed)
    return {
      signal: {
        signal: 'consolidated',
        points: w.name * (1 - similarity),
        detail: `"${given.searchName}" names both places of the consolidated government "${buyer.name}"`,
      },
      reason: `"${given.searchName}" names both places of the consolidated "${buyer.name}"`,
      similarity: 1,
    };
  if (similarity >= credit) return null;
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

/**
 * Whether `words` begin `theirs` and every one is among them in the same order, as written or as a
 * short form ("metro" for "metropolitan"); a typo is too weak here ("legislature" is not "legislative").
 */
function shortensInOrder(words: readonly string[], theirs: readonly string[], from = 0): boolean {
  let at = from;
  for (const t of words) {
    const i = theirs.findIndex((u, k) => k >= at && (t === u || shortFormOf(t, u)));
    if (i < 0 || (at === from && i > from)) return false;
    at = i + 1;
  }
  return true;
}

/**
 * Where a numbered body's own name begins after its county ("Bucks County Intermediate Unit 22" is
 * intermediate unit 22 of Bucks County, as "IU 22" says): the county is where it is, the number which.
 */
function afterLeadingCounty(theirs: readonly string[]): number {
  const at = theirs.findIndex((t) => t === 'county' || t === 'parish');
  return at > 0 && at <= 2 ? at + 1 : 0;
}

const spoken = (n: NormalizedName) => n.tokens.filter((t) => !STOP_WORDS.has(t));

/**
 * A rep's short form of the buyer's name: the buyer's own words, in its order, with the rest left off
 * from its first word on ("United Keetoowah Band" for "United Keetoowah Band of Cherokee Indians", "FBI
 * Chicago" for "FBI Chicago Field Office", through a reading "LA Metro" for "Los Angeles County
 * Metropolitan Transportation Authority"; not "San Francisco" for "South San Francisco"). It
 * names the buyer as its full name would when it holds two words or more that are not its kind, says
 * the buyer's kind if it says one, and is not a place's name alone: "Shelby County" is the county, not
 * the "Shelby County Emergency Communications District" whose name begins with it. Rivals that the
 * same short form names are within the margin of each other, and a person chooses.
 */
export function shortFormReading(
  read: NormalizedName,
  buyer: ScoringBuyer,
  legal: NormalizedName,
  others: readonly NormalizedName[],
  similarity: number,
  w: Weights,
  isPlace: (words: string) => boolean,
): { signal: ScoreSignal; reason: string; similarity: number } | null {
  if (similarity >= 1) return null;
  const words = spoken(read);
  const naming = read.core.filter((t) => !STOP_WORDS.has(t) && !/^\d+$/.test(t));
  if (naming.length < 2 || words.length < 2) return null;
  if (!read.typeHint && isPlace(naming.join(' '))) return null;
  const holder = [legal, ...others].find(
    (n) =>
      spoken(n).length > words.length &&
      (shortensInOrder(words, spoken(n)) ||
        (words.some((t) => /^\d+$/.test(t)) &&
          shortensInOrder(words, spoken(n), afterLeadingCounty(spoken(n))))) &&
      (!read.typeHint || n.typeHint === read.typeHint),
  );
  if (!holder) return null;
  return {
    signal: {
      signal: 'short-form',
      points: w.name * (1 - similarity),
      detail: `every word of "${read.searchName}" is the buyer's "${holder.input}", in its order: a short form of its name`,
    },
    reason: `a short form of "${buyer.name === holder.input ? buyer.name : holder.input}"`,
    similarity: 1,
  };
}
