// `match-eval --decisions`: the past decisions taught to one tenant, and what they change — the
// automatic share and the wrong matches before → after, the provider's calls per account, and every
// account whose decision changed, with the reason it has now.
import { type Changed, changedRows, type PassSummary, summaryOf } from '../match-eval/compare.ts';
import type { PastDecision } from '../match-eval/decisions-file.ts';
import type { Evaluation } from '../match-eval/evaluate.ts';
import type { Learning } from '../match-eval/learning.ts';
import type { LearningPassReport } from '../match-eval/learning-pass.ts';
import { renderTable, wrapParagraph } from './table.ts';

/** The one tenant a decisions file teaches (the accounts file is one tenant's accounts). */
export const DECISIONS_TENANT = 'decisions';

export interface Taught {
  confirm: number;
  reject: number;
  /** Decisions whose name gives no form to learn by (a name of kind words only, a bare domain). */
  notLearnable: string[];
}

export interface LearningReport {
  file: string;
  taught: Taught;
  before: PassSummary;
  after: PassSummary;
  changed: Changed[];
}

/** Teaches every decision of the file to the decisions tenant, in the file's order. */
export async function teachDecisions(
  learning: Learning,
  decisions: readonly PastDecision[],
): Promise<Taught> {
  const taught: Taught = { confirm: 0, reject: 0, notLearnable: [] };
  for (const d of decisions) {
    const ok = await learning.teach(DECISIONS_TENANT, {
      accountId: d.where,
      name: d.name,
      state: d.state,
      buyerId: d.buyerId,
      buyerName: d.buyerName,
      verdict: d.verdict,
    });
    if (ok) taught[d.verdict]++;
    else taught.notLearnable.push(`${d.where} "${d.name}"`);
  }
  return taught;
}

type Pass = { evaluation: Evaluation; calls: number };

export function decisionsReport(file: string, taught: Taught, before: Pass, after: Pass): LearningReport {
  return {
    file,
    taught,
    before: summaryOf(before.evaluation, before.calls),
    after: summaryOf(after.evaluation, after.calls),
    changed: changedRows(before.evaluation.rows, after.evaluation.rows),
  };
}

const pct = (rate: number) => `${Math.round(rate * 1000) / 10} %`;

/** The text report's closing sections: the provider's calls, and what the decisions changed. */
export function learningText(plain: PassSummary, learning: LearningReport | null): string {
  const out = [
    '',
    `Buyer Intelligence calls: ${plain.biCalls} for ${plain.accounts} accounts (${plain.biCallsPerAccount} per account)`,
  ];
  if (learning) {
    const { before: b, after: a, taught } = learning;
    out.push(
      '',
      wrapParagraph(
        `Decisions of ${learning.file}: ${taught.confirm} confirms and ${taught.reject} rejects taught${taught.notLearnable.length ? `; not learnable (no name form): ${taught.notLearnable.join(', ')}` : ''}`,
      ),
      renderTable(
        [
          [
            'Matched automatically (one right buyer)',
            `${b.automatic} of ${b.oneBuyer} (${pct(b.automaticRate)})`,
            `${a.automatic} of ${a.oneBuyer} (${pct(a.automaticRate)})`,
          ],
          ['Wrong automatic matches', b.wrong, a.wrong],
          ['Buyer Intelligence calls per account', b.biCallsPerAccount, a.biCallsPerAccount],
          ['Accounts whose decision changed', '', learning.changed.length],
        ],
        { head: ['', 'before', 'after'] },
      ),
    );
    for (const c of learning.changed)
      out.push(
        wrapParagraph(
          `line ${c.line} "${c.name ?? ''}": ${c.before} → ${c.after}${c.why ? ` (${c.why})` : ''}`,
        ),
      );
  }
  return `${out.join('\n')}\n`;
}

/** The learning pass in the text report. */
export function learningPassText(p: LearningPassReport): string {
  const c = p.confirms;
  const r = p.rejects;
  const out = [
    '',
    'Learning pass (a person decides each review once; a second account typed the same way follows)',
    renderTable(
      [
        [
          'Reviews confirmed once (right buyer among the candidates)',
          c.taught,
          `not learnable ${c.notLearnable}`,
        ],
        [
          'Second accounts matched to the confirmed buyer',
          `${c.matchedToBuyer} of ${c.second}`,
          `${pct(c.rate)} · wrong ${c.wrong}`,
        ],
        ...c.byTyping.map((t) => [`  typed: ${t.typing}`, `${t.matched} of ${t.second}`, `wrong ${t.wrong}`]),
        [
          'Rejects (a wrong candidate · a match turned down)',
          `${r.taught.wrongCandidate} · ${r.taught.automaticMatch}`,
          '',
        ],
        [
          'Second accounts matched to the rejected buyer',
          `${r.automaticToRejected} of ${r.second}`,
          `by an id ${r.byId}`,
        ],
        [
          'Another tenant: decisions changed',
          `${p.otherTenant.changed.length} of ${p.otherTenant.accounts}`,
          '',
        ],
        [
          'Buyer Intelligence calls per account (file, before → after)',
          `${p.file.before.biCallsPerAccount} → ${p.file.after.biCallsPerAccount}`,
          '',
        ],
        [
          'Matched automatically (file, before → after)',
          `${p.file.before.automatic} → ${p.file.after.automatic} of ${p.file.after.oneBuyer}`,
          `wrong ${p.file.before.wrong} → ${p.file.after.wrong}`,
        ],
      ],
      { head: ['', 'accounts', ''] },
    ),
  ];
  for (const m of c.misses)
    out.push(
      wrapParagraph(`line ${m.line} "${m.typed}" (${m.typing}): ${m.got}${m.why ? ` — ${m.why}` : ''}`),
    );
  return `${out.join('\n')}\n`;
}
