// Evidence beyond the written name, each one a rule of identity rather than of a kind of buyer: the
// number a name carries, the places a consolidated government is named by, and where the account and
// the buyer are (zip, city, county). Every function is pure and answers with the signal it adds.

import { memoizedByObject } from './memo.ts';
import { foldText, type NormalizedName, STOP_WORDS } from './normalize.ts';
import { round3 } from './round.ts';
import type { BuyerProfile, ScoreSignal, Weights } from './weights.ts';

const DIGITS = /^\d+$/;

/** The numbers a name carries, without leading zeros ("District 065" and "District 65" are one). */
const numbersOf = memoizedByObject((name: NormalizedName): readonly string[] => [
  ...new Set(name.tokens.filter((t) => DIGITS.test(t)).map((t) => t.replace(/^0+(?=\d)/, ''))),
]);

export interface NumberEvidence {
  signal: ScoreSignal | null;
  /** The account's number is not the buyer's: never matched automatically. */
  conflict: boolean;
  /** Every number of the account is the buyer's. */
  agrees: boolean;
  reason: string | null;
}

/**
 * A number in a public body's name is its identity ("USD 512", "ISD 196", "District 65", "ESC Region
 * 11"): another number is another body, the same number is strong evidence. A buyer whose names carry
 * no number says nothing either way.
 */
export function numberEvidence(
  account: NormalizedName,
  buyerNames: readonly NormalizedName[],
  w: Weights,
): NumberEvidence {
  const mine = numbersOf(account);
  if (!mine.length) return { signal: null, conflict: false, agrees: false, reason: null };
  const theirs = new Set(buyerNames.flatMap((n) => numbersOf(n)));
  if (!theirs.size) return { signal: null, conflict: false, agrees: false, reason: null };
  const shownTheirs = [...theirs].join(', ');
  if (mine.every((n) => theirs.has(n)))
    return { signal: null, conflict: false, agrees: true, reason: `number ${mine.join(', ')}` };
  return {
    signal: {
      signal: 'number',
      points: w.numberConflict,
      detail: `the name's number ${mine.join(', ')} is not the buyer's (${shownTheirs}): another body; never matched automatically`,
    },
    conflict: true,
    agrees: false,
    reason: `number conflict (${mine.join(', ')} vs ${shownTheirs})`,
  };
}

/**
 * Whether every word of the account's name that names it (not its kind, not a number) is among the
 * buyer's words: "USD 512" in "Shawnee Mission USD 512", "Louisville" in "Louisville/Jefferson County
 * Metro Government".
 */
export function wordsWithin(
  account: NormalizedName,
  buyer: NormalizedName,
  same: (a: string, b: string) => boolean,
) {
  const words = account.core.filter((t) => !DIGITS.test(t));
  const theirs = [...buyer.tokens];
  return words.every((t) => theirs.some((u) => same(t, u)));
}

// A government formed of a city and its county (or parish) is named by either: "City of Louisville",
// "Nashville", "Kansas City, KS" and "Honolulu" name it as well as its legal name does.
const CONSOLIDATED = [
  /\bmetro(politan)? government\b/,
  /\bunified government\b/,
  /\bconsolidated (city|government)\b/,
  /\bcity and county\b/,
  /\bcity (county|parish)\b/,
  /\b(county|parish) city\b/,
  /\bcity and borough\b/,
  /\bconsolidated city county\b/,
  /^city of .+ and (parish|county|borough) of /,
  /\burban county government\b/,
];

export function isConsolidatedGovernment(buyerName: string): boolean {
  const folded = foldText(buyerName);
  return CONSOLIDATED.some((pattern) => pattern.test(folded));
}

const CONSOLIDATED_WORDS = new Set(['metro', 'metropolitan', 'unified', 'consolidated', 'government']);

/** A consolidated government's words that name its county ("davidson") and the rest, its city. */
export function consolidatedParts(buyer: NormalizedName): { county: string[]; city: string[] } {
  const county = buyer.tokens.filter((t, i) => {
    const next = buyer.tokens[i + 1];
    return (next === 'county' || next === 'parish') && !STOP_WORDS.has(t);
  });
  const city = buyer.core.filter(
    (t) => !county.includes(t) && !CONSOLIDATED_WORDS.has(t) && !STOP_WORDS.has(t),
  );
  return { county, city };
}

/** The account's address as the CRM has it (each part optional). */
export interface AccountPlace {
  city?: string | null;
  county?: string | null;
  zip?: string | null;
}

const zip5 = (zip: string | null | undefined): string | null => /^\s*(\d{5})/.exec(zip ?? '')?.[1] ?? null;
const place = (s: string | null | undefined): string =>
  foldText(s ?? '')
    .replace(/\b(county|parish|borough|city of|city|town of|village of)\b/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();

/**
 * The account's zip, city and county against the buyer's: each equal part is a little evidence. An
 * account without a state whose zip or county is the buyer's is in the buyer's state: that counts as
 * the state would.
 */
export function addressSignal(
  account: AccountPlace,
  profile: BuyerProfile | null | undefined,
  w: Weights,
  stateUnknown = false,
) {
  if (!profile) return null;
  const parts: string[] = [];
  let points = 0;
  const zip = zip5(account.zip);
  const sameZip = !!zip && zip === zip5(profile.zip);
  if (sameZip) {
    points += w.zip;
    parts.push(`zip ${zip}`);
  }
  const city = place(account.city);
  if (city && city === place(profile.city)) {
    points += w.locality;
    parts.push(`city ${account.city?.trim()}`);
  }
  const county = place(account.county);
  const sameCounty = !!county && county === place(profile.county);
  if (sameCounty) {
    points += w.locality;
    parts.push(`county ${account.county?.trim()}`);
  }
  if (!parts.length) return null;
  if (stateUnknown && (sameZip || sameCounty)) {
    points += w.state;
    parts.push('which place it in its state');
  }
  return {
    signal: {
      signal: 'address',
      points: round3(points),
      detail: `the account's ${parts.join(', ')} = the buyer's`,
    } satisfies ScoreSignal,
    reason: parts.join(', '),
  };
}
