// What the resolver learnt from a person's decisions (issue 46, item 7): the name form an account is
// typed in — the resolver's own normalised tokens (prepare.ts) and its state — and the rules recorded
// for it. Record and lookup both compute the form here, so a confirm is found by the next account
// typed the same way. Rules apply to the resolver's final decision, after any cache or pool answer.
import { kindWordsOnly, prepare } from './prepare.ts';
import type { AccountForMatching, MatchDecision } from './types.ts';

export interface NameForm {
  nameForm: string;
  state: string;
}

export interface LearnedRule {
  verdict: 'confirm' | 'reject';
  buyerId: string;
  buyerName: string | null;
  accountName: string | null;
  state: string;
  at: Date;
}

/** The account's name form, or null when it has no name to learn by. */
export function nameFormOf(
  account: Pick<AccountForMatching, 'name' | 'state'> & Partial<AccountForMatching>,
) {
  const prepared = prepare({ id: '', website: null, ...account });
  if ('status' in prepared || !prepared.name || !prepared.given) return null;
  // "Police Department", "School District 65": kind words and numbers say which buyer only with the
  // account's place, which the form does not hold (the outcome a review records from keeps no city):
  // learnt, one town's department would be every town's in the state.
  // So do kind words alone ("Tribal Council", "Board of Education"), which a zip may place for the
  // resolver (prepare.ts) but not for a rule: one person's confirm would be every such name's in the state.
  if (!prepared.name.core.some((t) => !/^\d+$/.test(t)) || kindWordsOnly(prepared.name)) return null;
  const tokens = prepared.name.tokens.join(' ').trim();
  if (!tokens) return null;
  return { nameForm: tokens, state: prepared.state?.code ?? '' } satisfies NameForm;
}

/** The reason a learned confirm gives, with the name as the person saw it and the decision's date. */
export function learnedReason(rule: LearnedRule): string {
  const shown = rule.accountName ?? 'this name';
  const state = rule.state ? ` (${rule.state})` : '';
  const day = rule.at.toISOString().slice(0, 10);
  return `a person matched "${shown}"${state} to ${rule.buyerName ?? `buyer ${rule.buyerId}`} on ${day}`;
}

/**
 * The decision with the rules applied: a rejected buyer is never the automatic match (the account goes
 * to review, the buyer still offered); a confirm matches its buyer unless the account's ids decided
 * otherwise (source `id`/`pinned`: a later contradiction wins). A different state is a different form.
 */
export function applyLearned(decision: MatchDecision, rules: readonly LearnedRule[]): MatchDecision {
  if (!rules.length) return decision;
  if (decision.status === 'matched' && decision.source !== 'search') return decision;
  const rejected = new Set(rules.filter((r) => r.verdict === 'reject').map((r) => r.buyerId));
  const confirm = rules.find((r) => r.verdict === 'confirm' && !rejected.has(r.buyerId));
  if (confirm) {
    return {
      status: 'matched',
      buyerId: confirm.buyerId,
      buyerName: confirm.buyerName,
      confidence: 1,
      source: 'search',
      explanation: learnedReason(confirm),
      candidates: decision.candidates,
      learned: true,
    };
  }
  if (decision.status === 'matched' && rejected.has(decision.buyerId)) {
    return {
      status: 'needs_review',
      confidence: decision.confidence,
      explanation: `${decision.explanation}; not matched automatically: a person rejected ${decision.buyerName ?? decision.buyerId} for this name`,
      candidates: decision.candidates,
    };
  }
  return decision;
}

/**
 * The decision for an account with what its tenant learnt: the enrichment's resolve step and
 * `match-eval` both decide this way. `rulesFor` is the tenant's lookup (null: nothing learnt applies,
 * as for an account a person pinned). A learned confirm costs no search, unless the account carries
 * ids, which decide first; every other decision is the resolver's with the rules applied after it.
 *
 * The form looked up is the one a review records: the name and the state field, as the outcome holds
 * them. Where the account's address says more — a zip's state where the field is empty, a city that
 * places a name of kind words — the account is read otherwise than the person read it: a reject still
 * holds, a confirm does not (the zip may be another state's "City of Springfield").
 */
export async function decideWithLearned(
  account: Pick<AccountForMatching, 'name' | 'state' | 'ids'> & Partial<AccountForMatching>,
  rulesFor: ((form: NameForm) => Promise<LearnedRule[]>) | null,
  resolve: () => Promise<MatchDecision>,
): Promise<MatchDecision> {
  const typed = rulesFor ? nameFormOf({ name: account.name, state: account.state }) : null;
  let rules = typed && rulesFor ? await rulesFor(typed) : [];
  const read = typed ? nameFormOf(account) : null;
  if (read?.nameForm !== typed?.nameForm || read?.state !== typed?.state)
    rules = rules.filter((r) => r.verdict === 'reject');
  const carriesIds = !!account.ids && Object.values(account.ids).some((v) => !!v);
  if (!carriesIds && rules.some((r) => r.verdict === 'confirm')) {
    const learnt = applyLearned(
      { status: 'needs_review', confidence: 0, explanation: '', candidates: [] },
      rules,
    );
    if (learnt.status === 'matched') return learnt;
  }
  // After every cache and pool answer, on the final decision: a reject always holds.
  return applyLearned(await resolve(), rules);
}
