// What "whole" means for an account after any mix of runs, re-searches, confirms, rejections and undos
// (issue 45, item 4): its CRM record is a state one of its runs could have produced, and the store
// agrees. The states: none of ours at all; matched — status `enriched`, a buyer id, that buyer's name,
// a confidence, and every mapped field its write policy replaces holding that buyer's value (or empty
// where the buyer has none); or unmatched — `needs_review`, `no_match` or `error` with no buyer and
// no buyer data. The store's outcome says the CRM's status (none: no outcome) and, matched, its buyer.
import type { BuyerField } from '../../src/buyer-intel/fields.ts';
import { DEFAULT_MAPPING } from '../../src/map/default-mapping.ts';
import { planFieldWrites } from '../../src/map/plan.ts';
import { PROVENANCE_FIELDS as P } from '../../src/map/provenance.ts';
import type { Outcome } from '../../src/store/outcomes.ts';
import { sameValue } from '../../src/undo/compare.ts';

/** Mapped fields a new buyer's value replaces; `fill-empty` ones keep whatever filled them first. */
const REPLACED = DEFAULT_MAPPING.fields.filter((f) => f.policy !== 'fill-empty').map((f) => f.property);
const FILL_EMPTY = DEFAULT_MAPPING.fields.filter((f) => f.policy === 'fill-empty').map((f) => f.property);
/** The match's fields; the duplicate mark is another account's business. */
const MATCH = Object.values(P).filter((f) => f !== P.duplicateOf);

/** The values the write policies put on an empty record for the buyer. */
export function mappedValuesOf(
  attributes: Readonly<Record<BuyerField, unknown>>,
): Record<string, string | null> {
  const { updates } = planFieldWrites({ mapping: DEFAULT_MAPPING, attributes, current: {}, ledger: {} });
  return Object.fromEntries(REPLACED.map((f) => [f, updates[f] ?? null]));
}

export interface AccountState {
  /** The CRM's values of our fields. */
  fields: Record<string, string | null>;
  outcome: Outcome | null;
}

/**
 * Everything wrong with the account, in words (none: whole). `buyer` gives a buyer's mapped values
 * and name (undefined: an unknown buyer id, itself a problem).
 */
export function problemsOf(
  state: AccountState,
  buyer: (id: string) => { name: string; values: Record<string, string | null> } | undefined,
): string[] {
  const f = (name: string) => state.fields[name] || null;
  const problems: string[] = [];
  const status = f(P.status);
  const buyerId = f(P.buyerId);
  const say = (field: string, want: string | null) =>
    `${field} is ${JSON.stringify(f(field))}, not ${JSON.stringify(want)}`;
  if (status === null) {
    for (const field of [...MATCH, ...REPLACED, ...FILL_EMPTY])
      if (f(field) !== null) problems.push(`no status, yet ${say(field, null)}`);
  } else if (status === 'enriched') {
    const known = buyerId === null ? undefined : buyer(buyerId);
    if (!known) problems.push(`enriched with buyer id ${JSON.stringify(buyerId)}, no buyer we know`);
    else {
      if (!sameValue(f(P.buyerName), known.name)) problems.push(say(P.buyerName, known.name));
      for (const field of REPLACED)
        if (!sameValue(f(field), known.values[field] ?? null))
          problems.push(`${say(field, known.values[field] ?? null)} (buyer ${known.name})`);
    }
    if (f(P.matchConfidence) === null) problems.push('enriched without a confidence');
  } else {
    for (const field of [P.buyerId, P.buyerName, ...REPLACED, ...FILL_EMPTY])
      if (f(field) !== null) problems.push(`status ${status}, yet ${say(field, null)}`);
  }
  const o = state.outcome;
  if (status === null && o) problems.push(`the store says ${o.status}, the CRM holds no status`);
  if (status !== null && o?.status !== status)
    problems.push(`the store says ${o?.status ?? 'nothing'}, the CRM ${status}`);
  if (status === 'enriched' && o?.status === 'enriched' && o.buyerId !== buyerId)
    problems.push(`the store names buyer ${o.buyerId}, the CRM ${buyerId}`);
  return problems;
}
