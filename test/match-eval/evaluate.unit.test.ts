// How match-eval judges one decision against the expected answer, and how the scorecard counts: the
// rules a customer reads the figures by.
import { describe, expect, it } from 'vitest';
import type { EvalAccount, Expected } from '../../src/match-eval/accounts.ts';
import { type EvalRow, judge, scorecardOf } from '../../src/match-eval/evaluate.ts';
import type { MatchDecision, ScoredCandidate } from '../../src/resolve/types.ts';

const account = (expected: Expected, name: string | null = 'Austin'): EvalAccount => ({
  line: 2,
  label: 'line 2',
  name,
  state: 'TX',
  website: null,
  city: null,
  county: null,
  zip: null,
  street: null,
  emailDomains: [],
  ids: {},
  expected,
  note: null,
});
const candidate = (buyerId: string, score: number): ScoredCandidate => ({
  buyerId,
  name: buyerId,
  stateCode: 'TX',
  type: 'City',
  url: null,
  score,
  signals: [],
});
const matched = (buyerId: string): MatchDecision => ({
  status: 'matched',
  buyerId,
  buyerName: buyerId,
  confidence: 0.9,
  source: 'search',
  explanation: 'Matched',
  candidates: [candidate(buyerId, 0.9)],
});
const review = (confidence: number, ...ids: string[]): MatchDecision => ({
  status: 'needs_review',
  confidence,
  explanation: 'Needs review',
  candidates: ids.map((id, i) => candidate(id, confidence - i * 0.05)),
});
const none = (...ids: string[]): MatchDecision => ({
  status: 'no_match',
  explanation: 'No match',
  candidates: ids.map((id) => candidate(id, 0)),
});
const buyer = (buyerId: string): Expected => ({ kind: 'buyer', buyerId });

describe('judge', () => {
  it.each([
    ['the expected buyer matched', buyer('a'), matched('a'), 'right', null],
    ['another buyer matched', buyer('a'), matched('b'), 'wrong', 'matched another buyer'],
    [
      'a match where a review was expected',
      { kind: 'review' },
      matched('b'),
      'wrong',
      'matched a non-buyer or an ambiguous account',
    ],
    [
      'a match where none was expected',
      { kind: 'nomatch' },
      matched('b'),
      'wrong',
      'matched a non-buyer or an ambiguous account',
    ],
    [
      'a review first with the buyer, below the threshold',
      buyer('a'),
      review(0.7, 'a', 'b'),
      'review-holds',
      'expected buyer first, below the threshold',
    ],
    [
      'a review first with the buyer, a rival close',
      buyer('a'),
      review(0.8, 'a', 'b'),
      'review-holds',
      'expected buyer first, a rival within the margin',
    ],
    [
      'a review with the buyer second',
      buyer('a'),
      review(0.8, 'b', 'a'),
      'review-holds',
      'another candidate ranked above the expected buyer',
    ],
    [
      'a review without the buyer',
      buyer('a'),
      review(0.8, 'b', 'c'),
      'review-lacks',
      'expected buyer not among the candidates',
    ],
    ['no match where a buyer was expected', buyer('a'), none(), 'missed', 'search found nothing related'],
    [
      'no match, candidates in other states',
      buyer('a'),
      none('x'),
      'missed',
      'candidates only in other states',
    ],
    [
      'no match where a review was expected',
      { kind: 'review' },
      none(),
      'missed',
      'search found nothing related',
    ],
    ['a review where a review was expected', { kind: 'review' }, review(0.8, 'a', 'b'), 'right', null],
    [
      'a review for a non-buyer',
      { kind: 'nomatch' },
      review(0.5, 'a'),
      'over-review',
      'a review for a non-buyer',
    ],
    ['no match for a non-buyer', { kind: 'nomatch' }, none(), 'right', null],
  ] as const)('%s', (_, expected, decision, verdict, cause) => {
    const judged = judge(account(expected), decision, 0.75);
    expect(judged.verdict).toBe(verdict);
    expect(judged.cause).toBe(cause);
  });

  it('an account with no name that finds nothing missed for that reason', () => {
    expect(judge(account(buyer('a'), null), none(), 0.75).cause).toBe('no name to search by');
  });

  it('records where the expected buyer stands among the candidates', () => {
    expect(judge(account(buyer('a')), review(0.8, 'b', 'c', 'a'), 0.75).expectedRank).toBe(3);
    expect(judge(account(buyer('a')), review(0.8, 'b'), 0.75).expectedRank).toBeNull();
  });
});

describe('scorecardOf', () => {
  it('counts the automatic rate on one-buyer accounts only, and wrong matches by what was expected', () => {
    const row = (expected: Expected, decision: MatchDecision): EvalRow => {
      const a = account(expected);
      return { account: a, error: null, ...judge(a, decision, 0.75) };
    };
    const s = scorecardOf([
      row(buyer('a'), matched('a')),
      row(buyer('a'), matched('a')),
      row(buyer('a'), review(0.7, 'a')),
      row(buyer('a'), none()),
      row({ kind: 'review' }, review(0.8, 'a', 'b')),
      row({ kind: 'nomatch' }, matched('z')),
    ]);
    expect(s.oneBuyer).toMatchObject({
      accounts: 4,
      matched: 2,
      automaticRate: 0.5,
      reviewHolds: 1,
      noMatch: 1,
    });
    expect(s.wrong).toEqual({ total: 1, otherBuyer: 0, expectedReview: 0, expectedNoMatch: 1 });
    expect(s.expectedReview).toMatchObject({ accounts: 1, review: 1 });
    expect(s.misses.map((m) => m.count).reduce((a, b) => a + b, 0)).toBe(3);
    // Scored at or above 0.75: the two right matches, the review of an ambiguous row (its top candidate
    // is no right buyer) and the wrong match; the review at 0.7 is below.
    expect(s.calibration).toEqual({ scored: 4, right: 2 });
  });

  it('counts the automatic matches by what carried them: website, an equal name, a reading, resemblance', () => {
    const row = (expected: Expected, decision: MatchDecision): EvalRow => {
      const a = account(expected);
      return { account: a, error: null, ...judge(a, decision, 0.75) };
    };
    const carried = (
      buyerId: string,
      reasons: string,
      signals: ScoredCandidate['signals'],
      source: 'search' | 'id' = 'search',
    ): MatchDecision => ({
      status: 'matched',
      buyerId,
      buyerName: buyerId,
      confidence: 0.9,
      source,
      explanation: `Matched "${buyerId}" (TX) with 0.90: ${reasons}`,
      candidates: [{ ...candidate(buyerId, 0.9), signals }],
    });
    const name = (points: number) => ({ signal: 'name' as const, points, detail: '' });
    const s = scorecardOf([
      row(
        buyer('a'),
        carried('a', 'name 0.67 similar, website', [
          name(0.4),
          { signal: 'website', points: 0.25, detail: '' },
        ]),
      ),
      row(buyer('a'), carried('a', 'name equal, state TX', [name(0.55)])),
      row(buyer('a'), carried('a', 'name equal after expanding ISD', [name(0.55)])),
      row(
        buyer('a'),
        carried('a', 'name 0.9 similar, a short form', [
          name(0.5),
          { signal: 'short-form', points: 0.05, detail: '' },
        ]),
      ),
      row(buyer('a'), carried('b', 'name 0.8 similar, state TX', [name(0.44)])),
      row(buyer('a'), carried('a', 'NCES id', [], 'id')),
      row(buyer('a'), review(0.7, 'a')),
    ]);
    expect(s.automaticBy).toEqual([
      { carrier: 'an id', matched: 1, right: 1, wrong: 0 },
      { carrier: 'website, email or address', matched: 1, right: 1, wrong: 0 },
      { carrier: 'the name equal', matched: 2, right: 2, wrong: 0 },
      { carrier: 'a reading of the name', matched: 1, right: 1, wrong: 0 },
      { carrier: 'resemblance only', matched: 1, right: 0, wrong: 1 },
    ]);
  });

  it('counts the id-bearing accounts with one buyer, and those matched to it by their id', () => {
    const row = (ids: EvalAccount['ids'], expected: Expected, decision: MatchDecision): EvalRow => {
      const a = { ...account(expected), ids };
      return { account: a, error: null, ...judge(a, decision, 0.75) };
    };
    const byId = (buyerId: string): MatchDecision => ({
      status: 'matched',
      buyerId,
      buyerName: buyerId,
      confidence: 1,
      source: 'id',
      explanation: 'Matched by its NCES id',
      candidates: [candidate(buyerId, 1)],
    });
    const s = scorecardOf([
      row({ nces: '0602316' }, buyer('a'), byId('a')),
      row({ ipeds: '179816' }, buyer('a'), matched('a')),
      row({ census: '617347' }, buyer('a'), byId('b')),
      row({ buyer: 'a' }, { kind: 'review' }, review(0.8, 'a')),
      row({}, buyer('a'), byId('a')),
    ]);
    expect(s.ids).toEqual({ accounts: 3, matchedById: 1 });
  });
});
