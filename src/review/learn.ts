// What a person's decision teaches, recorded the one way every door records it: the review service's
// confirm, reject and bulk approve, and `match-eval`'s decisions and learning pass (src/match-eval/),
// so the scorecard measures the rule the service writes. The name form is computed from the account
// as the outcome holds it (src/resolve/learned.ts).
import type { AccountRef } from '../../connectors/types.ts';
import { nameFormOf } from '../resolve/learned.ts';
import type { LearnedDecisions } from '../store/learned-decisions.ts';
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

/** Records the rule a decision teaches, for the tenant of the account only. False: nothing to learn by. */
export async function learnFrom(
  learned: Pick<LearnedDecisions, 'record'>,
  key: Pick<AccountRef, 'crm' | 'tenant' | 'accountId'>,
  l: LearnFrom,
  decisionId: string | null,
  runId: string | null,
): Promise<boolean> {
  const form = nameFormOf({ name: l.outcome.accountName, state: l.outcome.state });
  if (!form) return false;
  await learned.record({
    ...form,
    crm: key.crm,
    tenant: key.tenant,
    accountId: key.accountId,
    accountName: l.outcome.accountName,
    buyerId: l.buyerId,
    buyerName: l.buyerName,
    verdict: l.verdict,
    decisionId,
    runId,
  });
  return true;
}
