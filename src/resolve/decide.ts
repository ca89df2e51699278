// Size: one decision and the rules that can hold a match back, read together because they interact.
// The decision on scored candidates: matched, needs review (with the candidates and their scores) or no
// match, with one human sentence saying why. A candidate is matched from the threshold up, with no rival
// within the margin unless evidence tells them apart, and nothing contradicting it.
import type { StateEntry } from '../buyer-intel/states.ts';
import { nameCarries } from './compare.ts';
import { consolidatedParts, isConsolidatedGovernment } from './evidence.ts';
import { hintOfBuyerType, type NormalizedName, normalizeName } from './normalize.ts';
import { isPlaceName } from './places.ts';
import { round3 } from './round.ts';
import type { ScoreResult } from './score.ts';
import type { MatchDecision, ScoredCandidate } from './types.ts';
import { NAME_READINGS } from './weights.ts';

export interface Scored {
  candidate: ScoredCandidate;
  result: ScoreResult;
  /** Order of discovery across the searches: the last tie-break. */
  order: number;
}

export interface DecideInput {
  /** The account's name as written, or its web address: how the reasons name it. */
  given: string;
  name: NormalizedName | null;
  /** Best first. */
  scored: readonly Scored[];
  /** Buyers the searches returned. */
  found: number;
  /** The searches made, as the reasons show them. */
  asked: readonly string[];
  state: StateEntry | undefined;
  /** The account says two things of itself (prepare.ts). */
  contradiction: string | null;
  /** Its web address is only its email domain. */
  mailOnly: boolean;
}

export interface DecideOptions {
  acceptThreshold: number;
  ambiguityMargin: number;
}

const shown = (c: ScoredCandidate): string => `"${c.name}" (${c.stateCode ?? '?'})`;
const fixed = (n: number): string => n.toFixed(2);

/**
 * A buyer in another state than the account's is listed for review when its name reads this close to
 * the account's (or the website or an email domain points at it); below, it is a namesake.
 */
const OTHER_STATE_NAME = 0.8;

/** What may tell the best candidate from close rivals, and how much of it a candidate has. */
const TELLS_APART: readonly (readonly [string, (s: Scored) => number])[] = [
  ['the website', (s) => s.result.webPoints],
  ['its number', (s) => (s.result.numberAgrees ? 1 : 0)],
  ['every word of the name', (s) => (s.result.coversName ? 1 : 0)],
  ['the address', (s) => s.result.placePoints],
];

/**
 * A name equal to one of the best's own names tells it from rivals that only a short form of theirs
 * brought close ("Metro Nashville": the government that goes by it, not the Metropolitan Nashville
 * Airport Authority). Rivals close by anything else still hold it back.
 */
const NAME_ITSELF = 'the name itself';
/**
 * So does a name that says its kind and equals, kind words and all, one of the best's names while
 * every close rival's only resembles it: "Fresno County Fire Department" is not the city's "Fresno
 * Fire Department", nor the other way round. A bare place ("Springfield") says no kind, so the city,
 * its police and its schools stay a person's choice, and so does a number with a kind ("District 65":
 * several bodies carry it).
 */
/** The words a general government's name adds to its place ("City of", "County", "Government"). */
const GOVERNMENT_WORDS: ReadonlySet<string> = new Set([
  'city',
  'county',
  'town',
  'village',
  'borough',
  'parish',
  'township',
  'government',
  'of',
]);
const saysPlaceAndKind = (name: NormalizedName | null | undefined): boolean =>
  !!name?.typeTokens.length && name.core.some((t) => !/^\d+$/.test(t));
const toldByName = (best: Scored, close: readonly Scored[], saysKind: boolean): boolean =>
  best.result.nameEqual && close.every((s) => !s.result.nameEqual && (s.result.shortForm || saysKind));

/** How surely a web evidence names the buyer, weakest first. */
const WEB_STRENGTH: readonly ScoreResult['web'][] = [
  'mismatch',
  'none',
  'email-domain',
  'domain',
  'email',
  'section',
  'home-page',
];

/** At most this many candidates are listed in a decision. */
const MAX_LISTED = 5;

export function decide(input: DecideInput, options: DecideOptions): MatchDecision {
  const { given, name, scored, found, asked, state, contradiction, mailOnly } = input;
  const { acceptThreshold, ambiguityMargin } = options;
  // Every buyer some evidence points at is listed: one in another state is offered for review, never
  // dropped (a port filed under its neighbouring state is still the right buyer).
  const related = scored.filter((s) => s.result.related);
  const eligible = related.filter(
    (s) => !s.result.otherState || s.result.independent || s.result.nameSimilarity >= OTHER_STATE_NAME,
  );
  const listed = (list: readonly Scored[]) => list.slice(0, MAX_LISTED).map((s) => s.candidate);
  const searched = listing(asked);

  const top = eligible[0];
  if (!top) {
    if (related.length) {
      const others = [...new Set(related.map((s) => s.candidate.stateCode ?? '?'))].join(', ');
      return {
        status: 'no_match',
        explanation: `No match for "${given}": ${related.length} buyer${related.length === 1 ? '' : 's'} sharing a word of the name, but in ${others}, not ${state?.code ?? name?.stateCode ?? 'the account’s state'}, and none reads as the name`,
        candidates: listed(related),
      };
    }
    if (!asked.length) {
      return {
        status: 'no_match',
        explanation: `No match for "${given}": no name to search by, and the API has no search by web address`,
        candidates: [],
      };
    }
    return {
      status: 'no_match',
      explanation:
        found > 0
          ? `No match for "${given}": searching ${searched} returned ${found} buyer${found === 1 ? '' : 's'}, none sharing a word of the name or its web address`
          : `No match for "${given}": searching ${searched} found no buyer`,
      candidates: [],
    };
  }

  // "Austin Consulting Group LLC": a company's legal form says it is no public buyer, unless its web
  // address is a buyer's own.
  if (name?.company && !eligible.some((s) => s.result.webPoints > 0)) {
    return {
      status: 'no_match',
      explanation: `No match for "${given}": "${name.company}" is a company's legal form, and no buyer found has the account's web address`,
      candidates: listed(eligible),
    };
  }

  const best = partBehindItsOwner(top, eligible) ?? top;
  const others = eligible.filter((s) => s !== best);
  const close = others.filter((s) => round3(decisiveScore(best) - decisiveScore(s)) < ambiguityMargin);
  // Evidence the best has and every close rival lacks tells them apart: the website; the number
  // ("Tarrant County 911": the district that carries it, not the county); the words of the name
  // ("Harris County Clerk": the clerk's office, not the county, whose name lacks "clerk"); the address.
  const decider = close.length
    ? (TELLS_APART.find(([, f]) => f(best) > 0 && close.every((s) => f(s) < f(best))) ??
      (toldByName(best, close, saysPlaceAndKind(name)) ? [NAME_ITSELF] : undefined))
    : undefined;
  const why = best.result.reasons.join(', ');
  // The account's web address is another candidate's own page, not the best's.
  const webRank = (s: Scored) => WEB_STRENGTH.indexOf(s.result.web);
  // Not when the account names a part of the site's owner by its whole name: "Tacoma Police
  // Department" on cityoftacoma.org is the department, filed with the city's address as most are.
  // The owner's name must be the account's less its part ("City of Tacoma" in "Tacoma Police
  // Department"), not more ("Harris County" on the sheriff's page is not the sheriff's office).
  // A short form names the department as its full name does ("Miami-Dade Fire Rescue"), and a
  // consolidated owner is named by one of its places ("Louisville Fire Department" on the site of
  // Louisville/Jefferson County Metro Government).
  const partOfOwner = (owner: Scored) => {
    if (!(best.result.nameEqual || best.result.shortForm) || owner.result.nameEqual || !name) return false;
    const mine = new Set(name.tokens);
    const ownerName = normalizeName(owner.candidate.name);
    const theirs = ownerName.tokens;
    const parts = isConsolidatedGovernment(owner.candidate.name) ? consolidatedParts(ownerName) : null;
    const placeOfIt =
      !!parts && [parts.city, parts.county].some((p) => p.length && p.every((t) => mine.has(t)));
    return (
      (theirs.every((t) => mine.has(t) || GOVERNMENT_WORDS.has(t)) || placeOfIt) &&
      name.tokens.some((t) => !theirs.includes(t))
    );
  };
  const siteOf = eligible.find(
    (s) =>
      s !== best &&
      webRank(s) > webRank(best) &&
      webRank(s) >= WEB_STRENGTH.indexOf('section') &&
      !partOfOwner(s),
  );
  // The web address says another state's buyer while the account's own state has one of that name
  // (the name, not a word of it: "City of Cincinnati" is no namesake of the airport the site names).
  const namesake = best.result.otherState
    ? eligible.find(
        (s) =>
          !s.result.otherState &&
          s.result.nameSimilarity >= Math.max(best.result.nameSimilarity, OTHER_STATE_NAME),
      )
    : undefined;
  // "Oakland Schools" in CA: the name is exactly another state's buyer's, and only near the best's.
  const exactElsewhere =
    !best.result.otherState &&
    best.result.nameSimilarity < 1 &&
    best.result.sameCore &&
    !best.result.independent
      ? eligible.find((s) => s.result.otherState && s.result.nameSimilarity === 1)
      : undefined;
  const blocked =
    blocker(best, state, contradiction) ??
    // Rivals within the margin already hold the match back, and say it better.
    (close.length === 0 || decider ? sharedWord(name, best, scored, state) : null) ??
    (siteOf ? `the account's website is ${shown(siteOf.candidate)}'s` : null) ??
    (namesake ? `the account's state has ${shown(namesake.candidate)} of the same name` : null) ??
    (exactElsewhere ? `the name is exactly that of ${shown(exactElsewhere.candidate)}` : null) ??
    sharedMail(given, name, eligible, mailOnly);

  const identified = ownAddress(best, eligible);
  if ((decisiveScore(best) >= acceptThreshold || identified) && !blocked && (close.length === 0 || decider)) {
    const next = others[0];
    const tail = decider
      ? `; ${decider[0]} tells it from ${close.map((s) => shown(s.candidate)).join(', ')}`
      : next
        ? `; next best ${shown(next.candidate)} at ${fixed(next.result.score)}`
        : '';
    return {
      status: 'matched',
      buyerId: best.candidate.buyerId,
      buyerName: best.candidate.name,
      confidence: best.result.score,
      source: 'search',
      explanation: `Matched ${shown(best.candidate)} with ${fixed(best.result.score)}: ${why}${identified && decisiveScore(best) < acceptThreshold ? `; ${identified}` : ''}${tail}`,
      candidates: listed(eligible),
    };
  }

  const candidates = listed(eligible);
  let explanation: string;
  if (blocked) {
    explanation = `Needs review: ${shown(best.candidate)} scores ${fixed(best.result.score)} (${why}), but ${blocked}`;
  } else if (decisiveScore(best) < acceptThreshold) {
    // The search's own rank counts in the score shown but not toward a match (decisiveScore): say
    // what was compared, or "scores 0.76, below the 0.75 needed" reads as a contradiction.
    const rank = best.result.rankPoints;
    const counted =
      rank > 0
        ? `${fixed(decisiveScore(best))} without the search's rank (${fixed(best.result.score)} with it)`
        : fixed(best.result.score);
    explanation = `Needs review: the best candidate ${shown(best.candidate)} scores ${counted}, below the ${fixed(acceptThreshold)} needed (${why})`;
    if (close.length)
      explanation += `, and ${close.length} other${close.length === 1 ? '' : 's'} score within ${ambiguityMargin}`;
  } else {
    const rivals = close
      .slice(0, MAX_LISTED - 1)
      .map((s) => `${shown(s.candidate)} ${fixed(s.result.score)}`);
    const hint = name?.typeHint ? '' : `; "${given}" does not say which kind of buyer it is`;
    explanation = `Needs review: ${shown(best.candidate)} scores ${fixed(best.result.score)} (${why}), but ${rivals.join(', ')}${close.length > rivals.length ? ` and ${close.length - rivals.length} more` : ''} ${close.length === 1 ? 'is' : 'are'} within ${ambiguityMargin}${hint}`;
  }
  return { status: 'needs_review', confidence: best.result.score, explanation, candidates };
}

/**
 * The account's website is the best's own home page, or its email domain the best's own, and no other
 * candidate's: an address an organisation keeps for itself names it as surely as a registry id does,
 * when the name shares a word with it and nothing contradicts it (blocker() still applies). A page deep
 * in a site, a domain shared by siblings or a parent, or a name with no word in common is not enough.
 */
function ownAddress(best: Scored, eligible: readonly Scored[]): string | null {
  const own = (s: Scored) => s.result.web === 'home-page' || s.result.web === 'email';
  if (!own(best) || best.result.nameSimilarity <= 0) return null;
  if (eligible.some((s) => s !== best && s.result.webPoints > 0)) return null;
  return best.result.web === 'home-page'
    ? 'the website is its home page and no other buyer’s'
    : 'the email domain is its own and no other buyer’s';
}

/**
 * "King County Elections" on kingcountywa.gov: the site's owner ranks first, held back because the
 * account names a part of it that its name lacks ("elections"). A candidate named as the account is,
 * whose name is the owner's with that part, is the part the account names: it is decided on instead
 * (rivals, the threshold and every contradiction still apply to it).
 */
function partBehindItsOwner(top: Scored, eligible: readonly Scored[]): Scored | undefined {
  if (!top.result.unitsBeyond.length) return undefined;
  const owner = normalizeName(top.candidate.name).tokens;
  return eligible.find((s) => {
    if (s === top || !s.result.nameEqual || s.result.unitsBeyond.length) return false;
    const theirs = normalizeName(s.candidate.name).tokens;
    return owner.every((t) => theirs.includes(t));
  });
}

/**
 * An account known only by its email domain ("fbi.gov", "michigan.gov"): every part of the organisation
 * mails from it, so when several buyers found are on it, a person chooses.
 */
function sharedMail(
  given: string,
  name: NormalizedName | null,
  eligible: readonly Scored[],
  mailOnly: boolean,
): string | null {
  if (!mailOnly || name) return null;
  const on = eligible.filter((s) => s.result.independent);
  return on.length >= 2 ? `${on.length} buyers found are on ${given}, which all of them mail from` : null;
}

/**
 * "Cherokee", "METRO", "Manhattan", "Region 2": one word and no kind says which of the buyers that
 * carry it the account is. With no evidence but the name, several returned buyers carrying the word
 * make it a person's choice, however well one of them reads.
 */
function sharedWord(
  name: NormalizedName | null,
  best: Scored,
  scored: readonly Scored[],
  state: StateEntry | undefined,
): string | null {
  if (!name || name.typeHint || name.typeTokens.length || best.result.independent) return null;
  // "Manhattan": a place's name alone means the place's own government if anything, never an office
  // or a body that merely goes by it.
  const hint = best.candidate.type
    ? hintOfBuyerType(best.candidate.type)
    : normalizeName(best.candidate.name).typeHint;
  if (hint !== 'city' && hint !== 'county' && isPlaceName(name.core.join(' '), state?.code ?? null))
    return `"${name.searchName}" is a place's name, and says no kind of buyer`;
  const words = name.core.filter((t) => !/^\d+$/.test(t));
  const word = words[0];
  if (words.length !== 1 || !word) return null;
  const carriers = scored.filter((s) => nameCarries(s.candidate.name, word));
  if (carriers.length < 2) return null;
  return `"${word}" alone names ${carriers.length} buyers found (${carriers
    .slice(0, 3)
    .map((s) => shown(s.candidate))
    .join(', ')}${carriers.length > 3 ? ', …' : ''})`;
}

/**
 * What keeps the best candidate from an automatic match whatever its score: a contradiction in the
 * account itself, a kind or a number the name says otherwise, or another state with nothing but the
 * name to say it is the account's.
 */
function blocker(best: Scored, state: StateEntry | undefined, contradiction: string | null): string | null {
  if (contradiction) return contradiction;
  if (best.result.typeConflict) return 'the name says another kind of buyer';
  if (best.result.numberConflict) return 'the name carries another number';
  const units = best.result.unitsBeyond;
  if (units.length)
    return `the account names ${units.map((u) => `"${u}"`).join(' and ')}, which ${shown(best.candidate)} does not: a part of it or another body, not the buyer itself`;
  if (best.result.otherState && !best.result.independent)
    return `it is in ${best.candidate.stateCode ?? '?'}, not ${state?.code ?? 'the account’s state'}, and only the name says it is the account’s (a website or email domain of the buyer's would)`;
  // Found among the buyers of the account's place, by a name that says no more than a place and a
  // kind ("Tribal Council" at 86039, "Dallas VA Medical Center"): a person says which.
  if (best.result.foundByPlace && !best.result.independent)
    return `it was found among the buyers of the account's place, and a place and a kind are not a name`;
  if (onlyResembles(best))
    return `the name only resembles ${shown(best.candidate)}'s: no reading makes it one of its names, and nothing independent (an id, the website, an email domain, the address) agrees`;
  return null;
}

/**
 * Automatic only on a reading, not a resemblance: a name that is not one of the buyer's names (equal
 * after the readings, or its place words equal with a kind that agrees: "Philadelphia Police" for the
 * Philadelphia Police Department), with nothing independent agreeing, goes to a person however
 * similar it is — on kinds of names no set has taught, similarity is where a wrong match comes from.
 */
function onlyResembles(best: Scored): boolean {
  const r = best.result;
  if (r.nameEqual || r.independent || r.webPoints > 0 || r.placePoints > 0) return false;
  const signals = best.candidate.signals;
  if (signals.some((s) => NAME_READINGS.has(s.signal) && s.points > 0)) return false;
  const kindAgrees = signals.some((s) => s.signal === 'type' && s.points > 0);
  return !(r.sameCore && kindAgrees);
}

/** "a", "a and b", "a, b and c". */
function listing(items: readonly string[]): string {
  return items.length <= 1 ? (items[0] ?? '') : `${items.slice(0, -1).join(', ')} and ${items.at(-1)}`;
}

/**
 * The score a decision compares with the threshold and its rivals, with what a candidate's attributes
 * may still add (`gain`): the API's order breaks ties between candidates; it never decides a match.
 */
export function decisiveScore(s: Scored, gain = 0): number {
  return round3(s.result.score - s.result.rankPoints + gain);
}
