// "Louisville Metro Police Department" is the Louisville Police Department, a part of the
// "Louisville/Jefferson County Metro Government": a rep writes whose body it is into its name. Words of
// the name that are the parent's (from the buyer's attributes) and none of the buyer's own names' are
// read as saying whose it is, and the name is compared without them.
import { bestNameEvidence } from './name-evidence.ts';
import { type NormalizedName, normalizeName } from './normalize.ts';
import type { ScoreSignal, ScoringBuyer, Weights } from './weights.ts';

export interface ParentReading {
  signal: ScoreSignal;
  reason: string;
  similarity: number;
  name: NormalizedName;
}

export function parentReading(
  given: NormalizedName,
  buyer: ScoringBuyer,
  legal: NormalizedName,
  others: readonly NormalizedName[],
  accountState: string | null,
  similarity: number,
  w: Weights,
): ParentReading | null {
  const parentName = buyer.profile?.parentName?.trim();
  if (!parentName || similarity >= 1) return null;
  const theirs = new Set(normalizeName(parentName).tokens);
  const own = new Set([legal, ...others].flatMap((n) => n.tokens));
  const words = given.searchName.split(/\s+/).filter(Boolean);
  const parents = (word: string) => {
    const tokens = normalizeName(word).tokens;
    return tokens.length > 0 && tokens.every((t) => theirs.has(t) && !own.has(t));
  };
  const kept = words.filter((word) => !parents(word));
  if (kept.length === words.length || kept.length === 0) return null;
  const rest = normalizeName(kept.join(' '));
  if (!rest.core.length) return null;
  const read = bestNameEvidence(rest, legal, others, buyer, accountState, w);
  if (read.similarity <= similarity) return null;
  const dropped = words.filter(parents).join(' ');
  return {
    signal: {
      signal: 'parent',
      points: w.name * w.readingCredit * (read.similarity - similarity),
      detail: `"${dropped}" is its parent's, "${parentName}": "${rest.searchName}" ${read.reasons.join(', ')}`,
    },
    reason: `"${dropped}" read as its parent's (${parentName})`,
    similarity: read.similarity,
    name: read.name,
  };
}
