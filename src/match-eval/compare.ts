// Two evaluations of the same accounts side by side — without and with what a tenant learnt — in the
// figures a customer decides on: the automatic share, the wrong matches, the provider's calls per
// account, and which accounts changed their decision.
import type { EvalRow, Evaluation } from './evaluate.ts';

export interface PassSummary {
  accounts: number;
  /** Accounts with one right buyer, and how many were matched to it automatically. */
  oneBuyer: number;
  automatic: number;
  automaticRate: number;
  wrong: number;
  /** Buyer Intelligence requests the pass made (a fresh cache each pass), and per account. */
  biCalls: number;
  biCallsPerAccount: number;
}

export function summaryOf(evaluation: Evaluation, biCalls: number): PassSummary {
  const s = evaluation.scorecard;
  return {
    accounts: s.accounts,
    oneBuyer: s.oneBuyer.accounts,
    automatic: s.oneBuyer.matched,
    automaticRate: s.oneBuyer.automaticRate,
    wrong: s.wrong.total,
    biCalls,
    biCallsPerAccount: s.accounts ? Math.round((biCalls / s.accounts) * 100) / 100 : 0,
  };
}

/** A decision in a few words: "matched 123 (source)", "needs_review", "no_match", "error". */
export function decisionWords(row: EvalRow): string {
  const d = row.decision;
  if (!d) return 'error';
  return d.status === 'matched' ? `matched ${d.buyerId}` : d.status;
}

export interface Changed {
  line: number;
  label: string;
  name: string | null;
  before: string;
  after: string;
  /** The decision's reason after (a learned rule names the person's decision). */
  why: string | null;
}

/** The accounts whose decision differs between two evaluations of the same rows (same order). */
export function changedRows(before: readonly EvalRow[], after: readonly EvalRow[]): Changed[] {
  const changed: Changed[] = [];
  after.forEach((row, i) => {
    const was = before[i];
    if (!was) return;
    const b = decisionWords(was);
    const a = decisionWords(row);
    if (a !== b)
      changed.push({
        line: row.account.line,
        label: row.account.label,
        name: row.account.name,
        before: b,
        after: a,
        why: row.decision?.explanation ?? null,
      });
  });
  return changed;
}
