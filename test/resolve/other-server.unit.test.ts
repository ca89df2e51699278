// The match-eval set against another server than the sandbox: the same buyers, but a plainer search
// (legal names only — no common names —, whole words only, its own order, five results) and, in one
// variant, no search by criteria. The rules must not lean on the sandbox's search: no wrong automatic
// match, whatever the server; no more than four searches an account (three in its state, one across).
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { SandboxBuyer } from '../../emulators/buyer-intel/data/dataset.ts';
import { buyerBrief } from '../../emulators/buyer-intel/present.ts';
import { tokens } from '../../emulators/buyer-intel/search.ts';
import { NotFoundError } from '../../src/buyer-intel/errors.ts';
import { findState } from '../../src/buyer-intel/states.ts';
import { parseAccounts } from '../../src/match-eval/accounts.ts';
import { evaluate } from '../../src/match-eval/evaluate.ts';
import { MAX_SEARCHES, Resolver, type ResolverClient } from '../../src/resolve/resolver.ts';
import { sharedDataset } from '../helpers/buyer-intel-sandbox.ts';

const SET = new URL('../fixtures/match-eval/accounts.csv', import.meta.url).pathname;
const accounts = parseAccounts(readFileSync(SET, 'utf8'));
const dataset = sharedDataset();

const hostOf = (url: string | null | undefined): string | undefined => {
  try {
    return url
      ? new URL(url.includes('://') ? url : `https://${url}`).hostname.replace(/^www\./, '')
      : undefined;
  } catch {
    return undefined;
  }
};
const hash = (s: string) => [...s].reduce((h, c) => (h * 31 + c.charCodeAt(0)) >>> 0, 7);

/** Legal names, whole words, ranked by the share of the query found, ties in an arbitrary order. */
function plainSearch(query: string, keep: (b: SandboxBuyer) => boolean): SandboxBuyer[] {
  const asked = tokens(query);
  return dataset.buyers
    .filter(keep)
    .map((buyer) => {
      const words = new Set(tokens(buyer.name));
      const found = asked.filter((t) => words.has(t)).length;
      return { buyer, score: found / asked.length + (0.1 * found) / (words.size + 1) };
    })
    .filter((s) => s.score > 0)
    .sort((a, b) => b.score - a.score || hash(a.buyer.id) - hash(b.buyer.id))
    .map((s) => s.buyer);
}

function otherServer(criteria: boolean): { client: ResolverClient; perAccount: () => number } {
  let calls = 0;
  const client: ResolverClient = {
    async searchBuyers(p) {
      calls++;
      const state = p.buyerStateCode ? findState(p.buyerStateCode) : undefined;
      const found = plainSearch(p.buyerName, (b) => !state || b.stateCode === state.code);
      return { buyers: found.slice(0, 5).map(buyerBrief) };
    },
    async searchBuyersByCriteria(c) {
      calls++;
      if (!criteria)
        throw new NotFoundError('HTTP 404', { operation: 'searchBuyersByCriteria', status: 404 });
      const host = hostOf(c.url);
      return {
        buyers: dataset.buyers
          .filter((b) => hostOf(b.url) === host)
          .slice(0, 5)
          .map(buyerBrief),
      };
    },
  };
  return {
    client,
    perAccount: () => {
      const n = calls;
      calls = 0;
      return n;
    },
  };
}

/**
 * The set's first 334 accounts (lines 2–335) are the cities, counties, districts and agencies most
 * CRMs hold; the rest is the long tail, much of it known to the provider by a common name that this
 * plainer server does not search — there it needs the attribute calls this server does not answer.
 */
const FIRST_SET_LAST_LINE = 335;
// Measured 0.60 and 0.50 on this server (0.87 on the sandbox, which answers the attribute calls).
const LONG_TAIL_FLOOR_WITH = 0.55;
const LONG_TAIL_FLOOR_WITHOUT = 0.45;
const rate = (rows: readonly { verdict: string; account: { expected: { kind: string } } }[]) => {
  const one = rows.filter((r) => r.account.expected.kind === 'buyer');
  return one.filter((r) => r.verdict === 'right').length / one.length;
};

describe.each([
  ['with a search by criteria', true, 0.9, LONG_TAIL_FLOOR_WITH],
  ['without a search by criteria', false, 0.8, LONG_TAIL_FLOOR_WITHOUT],
])('the match-eval set on a plainer server, %s', (_, criteria, automatic, longTail) => {
  it('makes no wrong automatic match, matches most accounts with one buyer, and searches at most four times', async () => {
    const server = otherServer(criteria);
    const inner = new Resolver({ client: server.client });
    const searches: number[] = [];
    const resolver = {
      async resolve(account: Parameters<Resolver['resolve']>[0]) {
        const decision = await inner.resolve(account);
        searches.push(server.perAccount());
        return decision;
      },
    };
    const { rows } = await evaluate(accounts, resolver, 0.75, { concurrency: 1 });
    expect(rows.filter((r) => r.verdict === 'wrong').map((r) => `line ${r.account.line}`)).toEqual([]);
    const first = rows.filter((r) => r.account.line <= FIRST_SET_LAST_LINE);
    const tail = rows.filter((r) => r.account.line > FIRST_SET_LAST_LINE);
    expect(rate(first)).toBeGreaterThanOrEqual(automatic);
    expect(rate(tail)).toBeGreaterThanOrEqual(longTail);
    expect(Math.max(...searches)).toBeLessThanOrEqual(MAX_SEARCHES);
  }, 180_000);
});
