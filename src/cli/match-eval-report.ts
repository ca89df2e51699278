// What `match-eval` prints: the outcome table (expected × decided), the scorecard's figures, the misses
// by cause, and each miss with the resolver's reason and its top candidates; or all of it as JSON.
import type { BuyerIntelClient } from '../buyer-intel/client.ts';
import { NotFoundError } from '../buyer-intel/errors.ts';
import type { EvalAccount } from '../match-eval/accounts.ts';
import { carriedBy } from '../match-eval/carried-by.ts';
import type { EvalRow, Evaluation, Verdict } from '../match-eval/evaluate.ts';
import type { ScoredCandidate } from '../resolve/types.ts';
import { renderTable, TABLE_WIDTH, wrapParagraph } from './table.ts';

/** An expected buyer the decision did not list, as the API knows it (null: the API does not know the id). */
export type ExpectedBuyers = Map<
  string,
  { name: string; stateCode: string | null; type: string | null } | null
>;

export interface ReportContext {
  file: string;
  api: string;
  match: { acceptThreshold: number; ambiguityMargin: number };
}

/** Candidates shown per miss (the expected buyer too, when it is listed lower). */
const SHOWN = 3;

const SEVERITY: readonly Verdict[] = [
  'wrong',
  'review-lacks',
  'missed',
  'review-holds',
  'over-review',
  'error',
];

const expectedId = (a: EvalAccount): string | null =>
  a.expected.kind === 'buyer' ? a.expected.buyerId : null;

/**
 * Looks up the expected buyers that no miss listed among its candidates, so each miss can say whom it
 * missed (and a mistyped id in the file shows as unknown).
 */
export async function expectedBuyers(
  client: Pick<BuyerIntelClient, 'getBuyerAttributesBulk'>,
  rows: readonly EvalRow[],
): Promise<ExpectedBuyers> {
  const ids = new Set<string>();
  for (const r of rows) {
    const id = expectedId(r.account);
    if (id && r.verdict !== 'right' && r.expectedRank === null) ids.add(id);
  }
  const found: ExpectedBuyers = new Map();
  const queue = [...ids];
  const work = async () => {
    for (let id = queue.shift(); id !== undefined; id = queue.shift()) {
      try {
        const { buyerData } = await client.getBuyerAttributesBulk(id, ['Name', 'StateCode', 'Type']);
        const text = (v: unknown) => (typeof v === 'string' && v ? v : null);
        found.set(id, {
          name: text(buyerData?.Name) ?? id,
          stateCode: text(buyerData?.StateCode),
          type: text(buyerData?.Type),
        });
      } catch (err) {
        if (err instanceof NotFoundError) found.set(id, null);
        // Any other failure: the miss is shown with the id alone.
      }
    }
  };
  await Promise.all(Array.from({ length: 4 }, work));
  return found;
}

/** A line under a miss: indented by 2, its wrapped lines by 4. */
const detail = (text: string): string => `  ${wrapParagraph(text, 4, TABLE_WIDTH - 2)}`;

const percent = (part: number, whole: number): string =>
  whole ? `${((100 * part) / whole).toFixed(1)} %` : '–';

function accountText(a: EvalAccount): string {
  const parts = [a.name ? `"${a.name}"` : '(no name)', a.state ?? '(no state)', a.website ?? '(no website)'];
  const ids = Object.entries(a.ids).map(([k, v]) => `${k} ${v}`);
  return [...parts, ...ids].join(' · ');
}

function expectedText(a: EvalAccount, row: EvalRow, buyers: ExpectedBuyers): string {
  if (a.expected.kind === 'review') return 'a review';
  if (a.expected.kind === 'nomatch') return 'no match';
  const id = a.expected.buyerId;
  const listed = row.decision?.candidates.find((c) => c.buyerId === id);
  const known = listed
    ? { name: listed.name, stateCode: listed.stateCode, type: listed.type }
    : buyers.get(id);
  if (known === null) return `${id} (unknown to the API)`;
  if (!known) return id;
  return `${known.name} (${[known.stateCode, known.type].filter(Boolean).join(', ')}) ${id}`;
}

function decisionText(row: EvalRow): string {
  const d = row.decision;
  if (!d) return `error: ${row.error ?? 'failed'}`;
  if (d.status === 'matched') return `matched ${d.buyerName ?? d.buyerId} (${d.confidence.toFixed(2)})`;
  if (d.status === 'needs_review') return `needs review (best ${d.confidence.toFixed(2)})`;
  return 'no match';
}

function candidateRows(row: EvalRow): string[][] {
  const candidates = row.decision?.candidates ?? [];
  const expected = expectedId(row.account);
  const shown = candidates.filter((c, i) => i < SHOWN || c.buyerId === expected);
  const chosen = row.decision?.status === 'matched' ? row.decision.buyerId : null;
  return shown.map((c: ScoredCandidate) => [
    c.buyerId === expected ? '✓' : c.buyerId === chosen ? '✗' : '',
    c.score.toFixed(2),
    [c.name, c.stateCode, c.type].filter(Boolean).join(' · '),
    c.buyerId,
  ]);
}

function outcomeTable(evaluation: Evaluation): string {
  const line = (label: string, rows: readonly EvalRow[]) => {
    const status = (s: string) => rows.filter((r) => r.decision?.status === s).length;
    const right = rows.filter((r) => r.decision?.status === 'matched' && r.verdict === 'right').length;
    return [
      label,
      right,
      status('matched') - right,
      status('needs_review'),
      status('no_match'),
      rows.filter((r) => r.verdict === 'error').length,
      rows.length,
    ];
  };
  const of = (kind: string) => evaluation.rows.filter((r) => r.account.expected.kind === kind);
  return renderTable(
    [
      line('one buyer', of('buyer')),
      line('review', of('review')),
      line('nomatch', of('nomatch')),
      line('all', evaluation.rows),
    ],
    {
      head: ['expected', 'matched, right', 'matched, wrong', 'needs review', 'no match', 'error', 'accounts'],
    },
  );
}

export function reportText(evaluation: Evaluation, buyers: ExpectedBuyers, context: ReportContext): string {
  const s = evaluation.scorecard;
  const out: string[] = [];
  out.push(
    wrapParagraph(
      `match-eval: ${s.accounts} accounts of ${context.file}, resolved against ${context.api} (matched from ${context.match.acceptThreshold.toFixed(2)}, ambiguity margin ${context.match.ambiguityMargin})`,
    ),
    '',
    'Outcomes (rows: what the file expects; columns: what the resolver decided)',
    outcomeTable(evaluation),
    '',
    'Scorecard',
    renderTable([
      [
        'Wrong automatic matches',
        s.wrong.total,
        `other buyer ${s.wrong.otherBuyer} · on review rows ${s.wrong.expectedReview} · on nomatch rows ${s.wrong.expectedNoMatch}`,
      ],
      [
        'Matched automatically (one right buyer)',
        `${s.oneBuyer.matched} of ${s.oneBuyer.accounts}`,
        percent(s.oneBuyer.matched, s.oneBuyer.accounts),
      ],
      [
        'Id-bearing accounts matched by their id',
        `${s.ids.matchedById} of ${s.ids.accounts}`,
        percent(s.ids.matchedById, s.ids.accounts),
      ],
      [
        'Calibration: scored ≥ the threshold and right',
        `${s.calibration.right} of ${s.calibration.scored}`,
        percent(s.calibration.right, s.calibration.scored),
      ],
      ...s.automaticBy.map((c) => [
        `Automatic by ${c.carrier}`,
        c.matched,
        `${c.right} right · ${c.wrong} wrong`,
      ]),
      ['Reviews holding the expected buyer', s.oneBuyer.reviewHolds, 'among their candidates'],
      ['Reviews missing the expected buyer', s.oneBuyer.reviewLacks, ''],
      ['No match where a buyer was expected', s.oneBuyer.noMatch, ''],
      [
        'Ambiguous accounts sent to review',
        `${s.expectedReview.review} of ${s.expectedReview.accounts}`,
        `no match ${s.expectedReview.noMatch}`,
      ],
      [
        'Non-buyers left unmatched',
        `${s.expectedNoMatch.noMatch} of ${s.expectedNoMatch.accounts}`,
        `sent to review ${s.expectedNoMatch.review}`,
      ],
      ['API errors', s.errors, ''],
    ]),
  );
  const misses = evaluation.rows
    .filter((r) => r.verdict !== 'right')
    .sort(
      (a, b) => SEVERITY.indexOf(a.verdict) - SEVERITY.indexOf(b.verdict) || a.account.line - b.account.line,
    );
  if (s.misses.length) {
    out.push(
      '',
      'Misses by cause',
      renderTable(
        s.misses.map((m) => [m.cause, m.count]),
        { head: ['cause', 'accounts'] },
      ),
    );
  }
  out.push('', misses.length ? `Misses (${misses.length}), the worst first` : 'No misses.');
  for (const row of misses) {
    const a = row.account;
    const where = a.label === `line ${a.line}` ? a.label : `line ${a.line} (${a.label})`;
    out.push(
      '',
      wrapParagraph(`${where}: ${accountText(a)}`),
      detail(`expected ${expectedText(a, row, buyers)}`),
      detail(`got ${decisionText(row)} — ${row.verdict}${row.cause ? `: ${row.cause}` : ''}`),
    );
    if (row.decision) out.push(detail(`why: ${row.decision.explanation}`));
    if (a.note) out.push(detail(`note: ${a.note}`));
    const candidates = candidateRows(row);
    if (candidates.length)
      out.push(
        renderTable(candidates, { head: ['', 'score', 'candidate (✓ expected, ✗ matched)', 'buyer id'] }),
      );
  }
  return `${out.join('\n')}\n`;
}

export function reportJson(evaluation: Evaluation, buyers: ExpectedBuyers, context: ReportContext) {
  return {
    file: context.file,
    api: context.api,
    match: context.match,
    scorecard: evaluation.scorecard,
    accounts: evaluation.rows.map((row) => {
      const a = row.account;
      const d = row.decision;
      const id = expectedId(a);
      return {
        line: a.line,
        label: a.label,
        name: a.name,
        state: a.state,
        website: a.website,
        ids: a.ids,
        note: a.note,
        expected: id ?? a.expected.kind,
        ...(id && buyers.has(id) ? { expectedBuyer: buyers.get(id) ?? null } : {}),
        verdict: row.verdict,
        cause: row.cause,
        expectedRank: row.expectedRank,
        status: d?.status ?? 'error',
        buyerId: d?.status === 'matched' ? d.buyerId : null,
        source: d?.status === 'matched' ? d.source : null,
        carriedBy: carriedBy(d, a.name),
        confidence: d && d.status !== 'no_match' ? d.confidence : null,
        explanation: d?.explanation ?? null,
        error: row.error,
        candidates: (d?.candidates ?? []).map((c) => ({
          buyerId: c.buyerId,
          name: c.name,
          stateCode: c.stateCode,
          type: c.type,
          score: c.score,
        })),
      };
    }),
  };
}
