// What a person's decision teaches, recorded the one way every door records it: the review service's
// confirm, reject and bulk approve, and `match-eval`'s decisions and learning pass (src/match-eval/),
// so the scorecard measures the rule the service writes. The name form is computed from the account
// as the outcome holds it (src/resolve/learned.ts).
import type { AccountRef } from '../../connectors/types.ts';
import { nameFormOf } from '../resolve/learned.ts';
import type { NewLearned } from '../store/learned-decisions.ts';
import type { Outcome } from '../store/outcomes.ts';

/** What a decision teaches: the account as the person saw it and the buyer they judged. */
export interface LearnFrom {
  outcome: Pick<Outcome, 'accountName' | 'state'>;
  buyerId: string;
  buyerName: string | null;
  verdict: 'confirm' | 'reject';
}

/** The candidate a bulk approve confirms: the best-scored one. */
export function topCandidate<C extends { score: number }>(o: { candidates: readonly C[] }): C | undefined {
  return [...o.candidates].sort((a, b) => b.score - a.score)[0];
}

/** The buyer a reject turns down: the account's match, or the best candidate the person was shown. */
export function rejectedBuyer(o: {
  buyerId: string | null;
  buyerName: string | null;
  candidates: readonly { buyerId: string; name: string; score: number }[];
}): { buyerId: string; buyerName: string | null } | null {
  if (o.buyerId) return { buyerId: o.buyerId, buyerName: o.buyerName };
  const top = topCandidate(o);
  return top ? { buyerId: top.buyerId, buyerName: top.name } : null;
}

/**
 * The rule a decision teaches, for the tenant of the account only; null when the name gives no form to
 * learn by. Recorded with the decision, in its transaction (Decisions.append), which gives its id.
 */
export function learnedRowOf(
  key: Pick<AccountRef, 'crm' | 'tenant' | 'accountId'>,
  l: LearnFrom,
  runId: string | null,
): Omit<NewLearned, 'decisionId'> | null {
  const form = nameFormOf({ name: l.outcome.accountName, state: l.outcome.state });
  if (!form) return null;
  return {
    ...form,
    crm: key.crm,
    tenant: key.tenant,
    accountId: key.accountId,
    accountName: l.outcome.accountName,
    buyerId: l.buyerId,
    buyerName: l.buyerName,
    verdict: l.verdict,
    runId,
  };
}
