// The buyers a search found for one account, kept a few minutes for the next account whose name reads
// the same. A buyer's departments and duplicate accounts spell it in many ways — "Travis Co.",
// "County of Travis", "TRAVIS COUNTY" in TX — that normalise to the same words (normalize.ts); the
// first of them to be matched leaves its candidates here, and the others are scored against them
// before they search at all. Only an answer that gave an automatic match is kept, and it is used only
// when it gives one again (the account's own website and emails are scored too); anything else
// searches as if nothing were kept, so a name spelt in a way the API reads worse loses nothing.
import { z } from 'zod';
import { type BuyerBrief, buyerBriefSchema } from '../buyer-intel/schemas.ts';
import type { NormalizedName } from './normalize.ts';

/** A candidate as the searches found it: the buyer, and its place in a ranked answer (null: unranked). */
export interface FoundBuyer {
  buyer: BuyerBrief;
  rank: number | null;
}

/**
 * The key of names that read the same in one state, at one search size: their canonical words, the
 * kind of buyer they say and the company form they end in. Null for a name without words.
 */
export function answerKey(name: NormalizedName, stateCode: string | null, limit: number): string | null {
  if (!name.tokens.length) return null;
  return `answer:${JSON.stringify([name.tokens.join(' '), name.typeHint, name.company, stateCode ?? '', limit])}`;
}

const answerSchema = z.array(
  z.object({ buyer: buyerBriefSchema, rank: z.number().int().nonnegative().nullable() }),
);

export function serializeAnswer(found: readonly FoundBuyer[]): string {
  return JSON.stringify(found.map(({ buyer, rank }) => ({ buyer, rank })));
}

/** The kept answer, or null when there is none or it cannot be read (then the account searches). */
export function parseAnswer(raw: string | null | undefined): FoundBuyer[] | null {
  if (!raw) return null;
  try {
    const parsed = answerSchema.safeParse(JSON.parse(raw));
    return parsed.success && parsed.data.length ? parsed.data : null;
  } catch {
    return null;
  }
}
