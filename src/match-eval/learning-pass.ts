// `match-eval --learning-pass`: what the review queue learns, measured on the file's own accounts.
// A person confirms once every review that holds its right buyer, and rejects a wrong candidate where
// the resolver offered one or the match where it made one (each in its own tenant, through the review
// service's recording); then a SECOND account typed the same way — the same name as another rep or an
// import writes it, the same state — is evaluated in that tenant, and in a tenant that learnt nothing.
// The figures: the share of second accounts matched automatically to the confirmed buyer (goal ≥ 95 %,
// 0 wrong), the automatic matches of a rejected buyer (goal 0), the other tenant's changes (goal 0),
// and the provider's calls per account with and without what was learnt.
import { rejectedBuyer } from '../review/learn.ts';
import type { EvalAccount } from './accounts.ts';
import { type Changed, changedRows, decisionWords, type PassSummary, summaryOf } from './compare.ts';
import type { EvalRow, Evaluation, MatchResolver } from './evaluate.ts';
import type { Learning } from './learning.ts';

/** How a second rep, or an import, types the same name: general rewritings, never per account. */
export const TYPINGS: readonly { typing: string; retype: (name: string) => string }[] = [
  { typing: 'as typed', retype: (n) => n },
  { typing: 'all capitals', retype: (n) => n.toUpperCase() },
  { typing: 'lower case', retype: (n) => n.toLowerCase() },
  { typing: 'a contact after it', retype: (n) => `${n} – Attn: Purchasing` },
  { typing: 'spacing and a closing period', retype: (n) => ` ${n.replace(/ /g, '  ')}. ` },
];

type Pass = (
  resolver: MatchResolver,
  list: readonly EvalAccount[],
) => Promise<{ evaluation: Evaluation; calls: number }>;

export interface LearningPassReport {
  confirms: {
    /** Reviews whose right buyer was among the candidates, confirmed once each. */
    taught: number;
    notLearnable: number;
    second: number;
    matchedToBuyer: number;
    wrong: number;
    rate: number;
    byTyping: { typing: string; second: number; matched: number; wrong: number }[];
    misses: { line: number; typed: string; typing: string; got: string; why: string | null }[];
  };
  rejects: {
    /** A wrong top candidate of a review, and a match the person turned down. */
    taught: { wrongCandidate: number; automaticMatch: number };
    second: number;
    /** Second accounts matched automatically to the buyer rejected for their name form (goal 0). */
    automaticToRejected: number;
    /** …of which an id on the account decided (an id wins over a learned rule). */
    byId: number;
  };
  /** Another tenant's second accounts: decisions that differ from those of no learning at all (goal 0). */
  otherTenant: { accounts: number; changed: Changed[] };
  /** The file's accounts before and after the confirms, each pass with a fresh cache. */
  file: { before: PassSummary; after: PassSummary };
}

const expectedBuyer = (a: EvalAccount) => (a.expected.kind === 'buyer' ? a.expected.buyerId : null);

function seconds(rows: readonly EvalRow[]): EvalAccount[] {
  return rows.flatMap(({ account: a }) =>
    TYPINGS.map(({ typing, retype }) => ({
      ...a,
      label: `${a.label} · ${typing}`,
      name: retype(a.name ?? ''),
      note: typing,
    })),
  );
}

export async function learningPass(
  baseline: { evaluation: Evaluation; calls: number },
  learning: Learning,
  pass: Pass,
  fresh: () => MatchResolver,
): Promise<LearningPassReport> {
  const rows = baseline.evaluation.rows.filter((r) => r.decision && r.account.name);
  // Confirms: the reviews a person settles with one click.
  const toConfirm: EvalRow[] = [];
  let notLearnable = 0;
  for (const r of rows) {
    const buyer = expectedBuyer(r.account);
    const pick = r.decision?.candidates.find((c) => c.buyerId === buyer);
    if (r.decision?.status !== 'needs_review' || !buyer || !pick) continue;
    const ok = await learning.teach('confirms', {
      accountId: r.account.label,
      name: r.account.name,
      state: r.account.state,
      buyerId: buyer,
      buyerName: pick.name,
      verdict: 'confirm',
    });
    if (ok) toConfirm.push(r);
    else notLearnable++;
  }
  // Rejects: the buyer the review service turns down (the match, else the best candidate).
  const rejected = new Map<EvalRow, string>();
  const rejectTaught = { wrongCandidate: 0, automaticMatch: 0 };
  for (const r of rows) {
    const d = r.decision;
    if (!d || d.status === 'no_match') continue;
    const matched = d.status === 'matched';
    const buyer = rejectedBuyer({
      buyerId: matched ? d.buyerId : null,
      buyerName: matched ? d.buyerName : null,
      candidates: d.candidates,
    });
    if (!buyer || (!matched && buyer.buyerId === expectedBuyer(r.account))) continue;
    const ok = await learning.teach('rejects', {
      accountId: r.account.label,
      name: r.account.name,
      state: r.account.state,
      ...buyer,
      verdict: 'reject',
    });
    if (!ok) continue;
    rejected.set(r, buyer.buyerId);
    rejectTaught[matched ? 'automaticMatch' : 'wrongCandidate']++;
  }

  const confirmSeconds = seconds(toConfirm);
  const rejectRows = [...rejected.keys()];
  const rejectSeconds = seconds(rejectRows);
  const shared = fresh();
  const plain = await pass(shared, [...confirmSeconds, ...rejectSeconds]);
  const taughtConfirms = await pass(learning.resolverFor('confirms', fresh()), confirmSeconds);
  const taughtRejects = await pass(learning.resolverFor('rejects', shared), rejectSeconds);
  const other = await pass(learning.resolverFor('other', shared), [...confirmSeconds, ...rejectSeconds]);
  const fileAfter = await pass(
    learning.resolverFor('confirms', fresh()),
    baseline.evaluation.rows.map((r) => r.account),
  );

  const confirmed = taughtConfirms.evaluation.rows;
  const byTyping = TYPINGS.map(({ typing }) => {
    const of = confirmed.filter((r) => r.account.note === typing);
    return {
      typing,
      second: of.length,
      matched: of.filter((r) => r.verdict === 'right').length,
      wrong: of.filter((r) => r.verdict === 'wrong').length,
    };
  });
  const matchedToBuyer = confirmed.filter((r) => r.verdict === 'right').length;
  let automaticToRejected = 0;
  let byId = 0;
  taughtRejects.evaluation.rows.forEach((r, i) => {
    const d = r.decision;
    const buyer = rejected.get(rejectRows[Math.floor(i / TYPINGS.length)] as EvalRow);
    if (d?.status !== 'matched' || d.buyerId !== buyer) return;
    automaticToRejected++;
    if (d.source === 'id') byId++;
  });
  return {
    confirms: {
      taught: toConfirm.length,
      notLearnable,
      second: confirmed.length,
      matchedToBuyer,
      wrong: confirmed.filter((r) => r.verdict === 'wrong').length,
      rate: confirmed.length ? matchedToBuyer / confirmed.length : 0,
      byTyping,
      misses: confirmed
        .filter((r) => r.verdict !== 'right')
        .map((r) => ({
          line: r.account.line,
          typed: r.account.name ?? '',
          typing: r.account.note ?? '',
          got: decisionWords(r),
          why: r.decision?.explanation ?? null,
        })),
    },
    rejects: { taught: rejectTaught, second: rejectSeconds.length, automaticToRejected, byId },
    otherTenant: {
      accounts: other.evaluation.rows.length,
      changed: changedRows(plain.evaluation.rows, other.evaluation.rows),
    },
    file: {
      before: summaryOf(baseline.evaluation, baseline.calls),
      after: summaryOf(fileAfter.evaluation, fileAfter.calls),
    },
  };
}
