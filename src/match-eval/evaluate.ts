// The scorecard of the resolver: each account of the file resolved as enrichment resolves it, its
// outcome held against the expected answer, and the counts a customer decides on — above all the wrong
// automatic matches, which cost more than any review.
import type { AccountForMatching, MatchDecision, ScoredCandidate } from '../resolve/types.ts';
import type { EvalAccount } from './accounts.ts';
import { CARRIERS, type Carrier, carriedBy } from './carried-by.ts';

/**
 * How an outcome compares with the expected answer:
 * - `right`: what was expected (the buyer matched, a review, or no match);
 * - `wrong`: an automatic match to another buyer, or any match where a review or no match was expected;
 * - `review-holds` / `review-lacks`: one buyer expected, sent to review with / without it among the candidates;
 * - `missed`: no match where a buyer or a review was expected;
 * - `over-review`: no match expected, sent to review (a person's time, no harm);
 * - `error`: the API failed for this account.
 */
export type Verdict =
  | 'right'
  | 'wrong'
  | 'review-holds'
  | 'review-lacks'
  | 'missed'
  | 'over-review'
  | 'error';

/**
 * Why a miss happened, read from the decision's structure (never from its wording, which changes):
 * the expected buyer's place among the candidates and the score it needed.
 */
export type Cause =
  | 'matched another buyer'
  | 'matched a non-buyer or an ambiguous account'
  | 'expected buyer first, below the threshold'
  | 'expected buyer first, a rival within the margin'
  | 'another candidate ranked above the expected buyer'
  | 'expected buyer not among the candidates'
  | 'search found nothing related'
  | 'candidates only in other states'
  | 'no name to search by'
  | 'a review for a non-buyer'
  | 'API error';

export interface EvalRow {
  account: EvalAccount;
  verdict: Verdict;
  cause: Cause | null;
  decision: MatchDecision | null;
  error: string | null;
  /** 1-based place of the expected buyer among the listed candidates, null when not listed. */
  expectedRank: number | null;
}

export interface Scorecard {
  accounts: number;
  /** Automatic matches that are not the expected answer, by what was expected. */
  wrong: { total: number; otherBuyer: number; expectedReview: number; expectedNoMatch: number };
  /** The accounts with exactly one expected buyer. */
  oneBuyer: {
    accounts: number;
    matched: number;
    /** matched / accounts, 0..1 (0 when there are none). */
    automaticRate: number;
    reviewHolds: number;
    reviewLacks: number;
    noMatch: number;
    wrong: number;
    errors: number;
  };
  expectedReview: { accounts: number; review: number; noMatch: number; matched: number; errors: number };
  expectedNoMatch: { accounts: number; noMatch: number; review: number; matched: number; errors: number };
  /**
   * The accounts with one expected buyer that carry an id (NCES, IPEDS, Census, buyer id), and how many
   * of them were matched to it by that id rather than by name.
   */
  ids: { accounts: number; matchedById: number };
  /**
   * Calibration: of the accounts whose best candidate scored at or above the threshold (matched, or held
   * back from a match by a rival or a contradiction), how many had that candidate as their right buyer.
   */
  calibration: { scored: number; right: number };
  /** The automatic matches by what carried them (carried-by.ts), right and wrong, in CARRIERS order. */
  automaticBy: { carrier: Carrier; matched: number; right: number; wrong: number }[];
  errors: number;
  /** The rows whose verdict is not `right`, counted by cause, most frequent first. */
  misses: { cause: Cause; count: number }[];
}

export interface Evaluation {
  rows: EvalRow[];
  scorecard: Scorecard;
}

export interface EvaluateOptions {
  /** Accounts resolved at once; the client's rate limit paces the calls. */
  concurrency: number;
  /** Called after each account (progress). */
  onResolved?: (done: number, total: number) => void;
  /** An error that makes every other account pointless (a refused token): stops the run. */
  isFatal?: (err: unknown) => boolean;
}

export interface MatchResolver {
  resolve(account: AccountForMatching): Promise<MatchDecision>;
}

export function forMatching(account: EvalAccount): AccountForMatching {
  return {
    id: account.label,
    name: account.name,
    state: account.state,
    city: account.city,
    county: account.county,
    zip: account.zip,
    street: account.street,
    website: account.website,
    ...(account.emailDomains.length ? { emailDomains: account.emailDomains } : {}),
    ids: account.ids,
  };
}

function rankOf(candidates: readonly ScoredCandidate[], buyerId: string): number | null {
  const at = candidates.findIndex((c) => c.buyerId === buyerId);
  return at < 0 ? null : at + 1;
}

function noMatchCause(account: EvalAccount, decision: MatchDecision): Cause {
  if (!account.name) return 'no name to search by';
  return decision.candidates.length ? 'candidates only in other states' : 'search found nothing related';
}

/** Compares one decision with the expected answer. */
export function judge(
  account: EvalAccount,
  decision: MatchDecision,
  acceptThreshold: number,
): Omit<EvalRow, 'account' | 'error'> {
  const { expected } = account;
  const base = { decision, expectedRank: null as number | null };
  if (expected.kind !== 'buyer') {
    if (decision.status === 'matched')
      return { ...base, verdict: 'wrong', cause: 'matched a non-buyer or an ambiguous account' };
    if (expected.kind === 'review')
      return decision.status === 'needs_review'
        ? { ...base, verdict: 'right', cause: null }
        : { ...base, verdict: 'missed', cause: noMatchCause(account, decision) };
    return decision.status === 'no_match'
      ? { ...base, verdict: 'right', cause: null }
      : { ...base, verdict: 'over-review', cause: 'a review for a non-buyer' };
  }
  const expectedRank = rankOf(decision.candidates, expected.buyerId);
  if (decision.status === 'matched') {
    return decision.buyerId === expected.buyerId
      ? { decision, expectedRank, verdict: 'right', cause: null }
      : { decision, expectedRank, verdict: 'wrong', cause: 'matched another buyer' };
  }
  if (decision.status === 'no_match')
    return { decision, expectedRank, verdict: 'missed', cause: noMatchCause(account, decision) };
  if (expectedRank === null)
    return {
      decision,
      expectedRank,
      verdict: 'review-lacks',
      cause: 'expected buyer not among the candidates',
    };
  const cause: Cause =
    expectedRank > 1
      ? 'another candidate ranked above the expected buyer'
      : decision.confidence < acceptThreshold
        ? 'expected buyer first, below the threshold'
        : 'expected buyer first, a rival within the margin';
  return { decision, expectedRank, verdict: 'review-holds', cause };
}

/** Counts of the rows: the figures of the scorecard. */
export function scorecardOf(rows: readonly EvalRow[], acceptThreshold = 0.75): Scorecard {
  const count = (p: (r: EvalRow) => boolean) => rows.filter(p).length;
  const of = (kind: EvalAccount['expected']['kind']) => rows.filter((r) => r.account.expected.kind === kind);
  const status = (list: readonly EvalRow[], s: MatchDecision['status']) =>
    list.filter((r) => r.decision?.status === s).length;
  const errorsIn = (list: readonly EvalRow[]) => list.filter((r) => r.verdict === 'error').length;

  const one = of('buyer');
  const review = of('review');
  const none = of('nomatch');
  const matched = one.filter((r) => r.verdict === 'right').length;
  const withIds = one.filter((r) => Object.values(r.account.ids).some(Boolean));
  const byId = withIds.filter(
    (r) => r.verdict === 'right' && r.decision?.status === 'matched' && r.decision.source === 'id',
  );
  const byCause = new Map<Cause, number>();
  for (const r of rows) if (r.cause) byCause.set(r.cause, (byCause.get(r.cause) ?? 0) + 1);

  return {
    accounts: rows.length,
    wrong: {
      total: count((r) => r.verdict === 'wrong'),
      otherBuyer: one.filter((r) => r.verdict === 'wrong').length,
      expectedReview: review.filter((r) => r.verdict === 'wrong').length,
      expectedNoMatch: none.filter((r) => r.verdict === 'wrong').length,
    },
    oneBuyer: {
      accounts: one.length,
      matched,
      automaticRate: one.length ? matched / one.length : 0,
      reviewHolds: one.filter((r) => r.verdict === 'review-holds').length,
      reviewLacks: one.filter((r) => r.verdict === 'review-lacks').length,
      noMatch: status(one, 'no_match'),
      wrong: one.filter((r) => r.verdict === 'wrong').length,
      errors: errorsIn(one),
    },
    expectedReview: {
      accounts: review.length,
      review: status(review, 'needs_review'),
      noMatch: status(review, 'no_match'),
      matched: status(review, 'matched'),
      errors: errorsIn(review),
    },
    expectedNoMatch: {
      accounts: none.length,
      noMatch: status(none, 'no_match'),
      review: status(none, 'needs_review'),
      matched: status(none, 'matched'),
      errors: errorsIn(none),
    },
    ids: { accounts: withIds.length, matchedById: byId.length },
    calibration: calibrationOf(rows, acceptThreshold),
    automaticBy: CARRIERS.map((carrier) => {
      const carried = rows.filter((r) => carriedBy(r.decision, r.account.name) === carrier);
      return {
        carrier,
        matched: carried.length,
        right: carried.filter((r) => r.verdict === 'right').length,
        wrong: carried.filter((r) => r.verdict === 'wrong').length,
      };
    }).filter((c) => c.matched > 0),
    errors: count((r) => r.verdict === 'error'),
    misses: [...byCause.entries()]
      .map(([cause, n]) => ({ cause, count: n }))
      .sort((a, b) => b.count - a.count || a.cause.localeCompare(b.cause)),
  };
}

function calibrationOf(rows: readonly EvalRow[], acceptThreshold: number): Scorecard['calibration'] {
  const scored = rows.filter((r) => {
    const d = r.decision;
    return !!d && d.status !== 'no_match' && d.confidence >= acceptThreshold && d.candidates.length > 0;
  });
  const right = scored.filter((r) => {
    const { expected } = r.account;
    const top = r.decision?.status === 'matched' ? r.decision.buyerId : r.decision?.candidates[0]?.buyerId;
    return expected.kind === 'buyer' && top === expected.buyerId;
  });
  return { scored: scored.length, right: right.length };
}

/** Resolves every account, at most `concurrency` at once, in the file's order of results. */
export async function evaluate(
  accounts: readonly EvalAccount[],
  resolver: MatchResolver,
  acceptThreshold: number,
  options: EvaluateOptions,
): Promise<Evaluation> {
  const rows: EvalRow[] = new Array(accounts.length);
  let next = 0;
  let done = 0;
  let fatal: unknown;
  const work = async () => {
    while (fatal === undefined && next < accounts.length) {
      const index = next++;
      const account = accounts[index] as EvalAccount;
      try {
        const decision = await resolver.resolve(forMatching(account));
        rows[index] = { account, error: null, ...judge(account, decision, acceptThreshold) };
      } catch (err) {
        if (options.isFatal?.(err)) {
          fatal ??= err;
          return;
        }
        const message = err instanceof Error ? err.message : String(err);
        rows[index] = {
          account,
          verdict: 'error',
          cause: 'API error',
          decision: null,
          error: message,
          expectedRank: null,
        };
      }
      options.onResolved?.(++done, accounts.length);
    }
  };
  const workers = Math.max(1, Math.min(options.concurrency, accounts.length));
  await Promise.all(Array.from({ length: workers }, work));
  if (fatal !== undefined) throw fatal;
  return { rows, scorecard: scorecardOf(rows, acceptThreshold) };
}
