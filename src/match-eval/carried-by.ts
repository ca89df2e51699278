// What carried each automatic match, for the scorecard's calibration by evidence: a match an id, a
// person or independent evidence (the website, an email domain, the address) agrees with is one kind of
// risk; a match on the name alone is another, and a name that only resembles the buyer's (no reading
// makes it one of the buyer's names) is the riskiest. Reporting right and wrong by kind shows where
// zero wrong rests on taught evidence and where on resemblance.
import { normalizeName } from '../resolve/normalize.ts';
import type { MatchDecision } from '../resolve/types.ts';
import { NAME_READINGS, type SignalKind } from '../resolve/weights.ts';

export const CARRIERS = [
  'an id',
  'a person',
  'a learned decision',
  'website, email or address',
  'the name equal',
  'a reading of the name',
  'its place words, with a kind that agrees',
  'resemblance only',
] as const;
export type Carrier = (typeof CARRIERS)[number];

const INDEPENDENT: ReadonlySet<SignalKind> = new Set(['website', 'email-domain', 'address', 'domain-name']);

/** What carried a matched decision, or null for a decision that is no automatic match. */
export function carriedBy(decision: MatchDecision | null, accountName: string | null): Carrier | null {
  if (decision?.status !== 'matched') return null;
  if (decision.source === 'id') return 'an id';
  if (decision.source === 'pinned') return 'a person';
  if (decision.learned) return 'a learned decision';
  const chosen = decision.candidates.find((c) => c.buyerId === decision.buyerId);
  const signals = chosen?.signals ?? [];
  if (signals.some((s) => INDEPENDENT.has(s.signal) && s.points > 0)) return 'website, email or address';
  // The reasons after "Matched "…" (ST) with 0.87:" name how the name compared.
  const reasons = decision.explanation.slice(decision.explanation.indexOf(':') + 1);
  if (/\bname equal\b/.test(reasons)) return 'the name equal';
  if (signals.some((s) => NAME_READINGS.has(s.signal) && s.points > 0)) return 'a reading of the name';
  const kindAgrees = signals.some((s) => s.signal === 'type' && s.points > 0);
  const place = (name: string) => normalizeName(name).core.join(' ');
  if (
    kindAgrees &&
    accountName &&
    chosen &&
    place(accountName) !== '' &&
    place(accountName) === place(chosen.name)
  )
    return 'its place words, with a kind that agrees';
  return 'resemblance only';
}
