// A small Buyer Intelligence of a test's own for the resolver's rules: a plain search that finds every
// buyer sharing a word with the name asked (its legal name or its CommonName attribute), most words
// first, the state filter honoured; attributes by id, 404 for an unknown one. A rule is then what is
// tested, not a search index's kindness.
import { NotFoundError } from '../../src/buyer-intel/errors.ts';
import type { ResolverClient } from '../../src/resolve/resolver.ts';

export interface WordSearchBuyer {
  id: string;
  name: string;
  stateCode: string;
  type?: string;
  url?: string;
  attributes?: Record<string, unknown>;
}

const words = (s: string) =>
  s
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean);

/** The stand-in's client and the calls made to it. `withType: false`: briefs without a type (the spec's). */
export function wordSearch(buyers: readonly WordSearchBuyer[], options: { withType?: boolean } = {}) {
  const calls = { search: 0, attributes: 0 };
  const client: ResolverClient = {
    async searchBuyers({ buyerName, buyerStateCode, limit }) {
      calls.search++;
      const asked = new Set(words(buyerName));
      const found = buyers
        .filter((b) => !buyerStateCode || b.stateCode === buyerStateCode)
        .map((b) => {
          const names = [b.name, String(b.attributes?.CommonName ?? '')];
          return { b, n: Math.max(...names.map((n) => words(n).filter((w) => asked.has(w)).length)) };
        })
        .filter((x) => x.n > 0)
        .sort((x, y) => y.n - x.n)
        .slice(0, Number(limit ?? 10))
        .map(({ b }) => ({
          id: b.id,
          name: b.name,
          countryCode: 'US',
          fromSourceFile: false,
          stateCode: b.stateCode,
          url: b.url ?? null,
          // The spec's BuyerBrief carries no type; the provider's OpenAPI does.
          ...(options.withType === false ? {} : { type: b.type ?? null }),
        }));
      return { buyers: found };
    },
    async getBuyerAttributesBulk(buyerId, keys) {
      calls.attributes++;
      const b = buyers.find((x) => x.id === buyerId);
      if (!b) throw new NotFoundError('no such buyer', { operation: 'getBuyerAttributesBulk', status: 404 });
      const all: Record<string, unknown> = {
        Name: b.name,
        StateCode: b.stateCode,
        Type: b.type ?? null,
        Url: b.url ?? null,
        ...b.attributes,
      };
      return { buyerId, buyerData: Object.fromEntries((keys ?? []).map((k) => [k, all[k] ?? null])) };
    },
  };
  return { client, calls };
}
