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

describe.each([
  ['with a search by criteria', true, 0.9],
  ['without a search by criteria', false, 0.8],
])('the match-eval set on a plainer server, %s', (_, criteria, automatic) => {
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
    const { rows, scorecard } = await evaluate(accounts, resolver, 0.75, { concurrency: 1 });
    expect(rows.filter((r) => r.verdict === 'wrong').map((r) => `line ${r.account.line}`)).toEqual([]);
    expect(scorecard.oneBuyer.automaticRate).toBeGreaterThanOrEqual(automatic);
    expect(Math.max(...searches)).toBeLessThanOrEqual(MAX_SEARCHES);
  }, 60_000);
});
