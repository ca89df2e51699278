// What the Buyer Intelligence calls of a backfill are spent on, account by account: the bench's accounts
// (accounts.ts) resolved and fetched as a worker does it — the resolver (with its match cache and the
// answers shared between names that read alike) over the cache in front of the client, then a matched
// buyer's attributes and signals — against the sandbox, with no CRM. Each upstream call is counted for
// the account that made it. Prints calls per account by operation for each kind of account (exact,
// variant, typo, non-buyer; no state; with a website), the outcomes and how many automatic matches are
// not the account's buyer, and a window as the backfill bench measures one (calls ÷ buyers first matched
// in it), split by what the accounts came to. Standalone, not part of `npm run bench`:
//   node bench/resolve-calls.ts [--accounts 5000] [--buyers 3000] [--from 600] [--to 2300] [--concurrency 100]
// The window's defaults are the accounts a 30-s window of `--accounts 5000` held (HubSpot ×1, ~57/s).
import { AsyncLocalStorage } from 'node:async_hooks';
import { buildDataset } from '../emulators/buyer-intel/data/dataset.ts';
import { startBuyerIntelSandbox } from '../emulators/buyer-intel/server.ts';
import { cachedBuyerIntel } from '../src/buyer-intel/cache.ts';
import { BuyerIntelClient } from '../src/buyer-intel/client.ts';
import type { BuyerField } from '../src/buyer-intel/fields.ts';
import { renderRecords } from '../src/cli/table.ts';
import { DEFAULT_MAPPING } from '../src/map/default-mapping.ts';
import { type MatchCache, Resolver } from '../src/resolve/resolver.ts';
import { type BenchAccount, benchAccounts } from './accounts.ts';
import { benchArgs } from './args.ts';

const { values } = benchArgs({
  usage: 'node bench/resolve-calls.ts [options]',
  summary:
    "The Buyer Intelligence calls of the bench's accounts, account by account, as a worker resolves and fetches them against the emulator (no CRM; not part of npm run bench).",
  options: {
    accounts: { type: 'string', default: '5000', value: '<n>', describe: "the bench's accounts resolved" },
    buyers: { type: 'string', default: '3000', value: '<n>', describe: 'distinct buyers they name' },
    from: { type: 'string', default: '600', value: '<n>', describe: 'first account of the window (0-based)' },
    to: { type: 'string', default: '2300', value: '<n>', describe: 'the account after the window' },
    concurrency: { type: 'string', default: '100', value: '<n>', describe: 'accounts resolved at once' },
  },
});
const n = (k: keyof typeof values) => Number(values[k]);

const OPERATIONS = [
  'searchBuyers',
  'searchBuyersByCriteria',
  'getBuyerAttributesBulk',
  'listRecentBuyerSignals',
  'listTopRecentSignals',
] as const;
type Operation = (typeof OPERATIONS)[number];
type Calls = Partial<Record<Operation, number>>;
interface Row {
  account: BenchAccount;
  status: string;
  buyerId: string | null;
  calls: Calls;
}

const dataset = buildDataset({ seed: 42 });
const accounts = benchAccounts(dataset, n('accounts'), n('buyers'));
const sandbox = await startBuyerIntelSandbox({ dataset, rateLimit: false });
const client = new BuyerIntelClient({ baseUrl: sandbox.url, token: sandbox.token, rateLimit: false });
const current = new AsyncLocalStorage<Calls>();
const counted =
  <A extends unknown[], R>(op: Operation, call: (...args: A) => Promise<R>) =>
  (...args: A) => {
    const calls = current.getStore();
    if (calls) calls[op] = (calls[op] ?? 0) + 1;
    return call(...args);
  };
// The service's defaults: BUYER_INTEL_CACHE_TTL_MS, BUYER_INTEL_SEARCH_CACHE_TTL_MS.
const cached = cachedBuyerIntel(
  {
    searchBuyers: counted('searchBuyers', (p) => client.searchBuyers(p)),
    searchBuyersByCriteria: counted('searchBuyersByCriteria', (c) => client.searchBuyersByCriteria(c)),
    getBuyerAttributesBulk: counted('getBuyerAttributesBulk', (id, a) =>
      client.getBuyerAttributesBulk(id, a),
    ),
    listRecentBuyerSignals: counted('listRecentBuyerSignals', (p) => client.listRecentBuyerSignals(p)),
    listTopRecentSignals: counted('listTopRecentSignals', (p) => client.listTopRecentSignals(p)),
  },
  { ttlMs: 300_000, searchTtlMs: 600_000, maxEntries: 10_000 },
);
// Redis in the service; a map here (nothing expires within a run of a few minutes).
const kept = new Map<string, string>();
const cache: MatchCache = {
  get: async (key) => kept.get(key) ?? null,
  set: async (key, value) => void kept.set(key, value),
};
const resolver = new Resolver({ client: cached, cache, options: { sharedAnswerTtlSeconds: 600 } });
const keys = [...new Set<BuyerField>(['Name', 'Type', ...DEFAULT_MAPPING.fields.map((f) => f.attribute)])];

const rows: Row[] = [];
let next = 0;
const started = performance.now();
await Promise.all(
  Array.from({ length: n('concurrency') }, async () => {
    for (let i = next++; i < accounts.length; i = next++) {
      const account = accounts[i] as BenchAccount;
      const calls: Calls = {};
      const decision = await current.run(calls, async () => {
        const d = await resolver.resolve({
          id: String(i),
          name: account.name,
          state: account.state || null,
          website: account.domain ?? null,
        });
        if (d.status === 'matched')
          await Promise.all([
            cached.getBuyerAttributesBulk(d.buyerId, keys),
            cached.listRecentBuyerSignals({ buyerId: d.buyerId, relativeDatePeriodFrom: 'LastThreeMonths' }),
          ]);
        return d;
      });
      rows[i] = {
        account,
        status: decision.status,
        buyerId: decision.status === 'matched' ? decision.buyerId : null,
        calls,
      };
    }
  }),
);
await sandbox.close();

const r3 = (x: number) => x.toFixed(3);
const total = (rs: Row[], op?: Operation) =>
  rs.reduce(
    (s, r) => s + (op ? (r.calls[op] ?? 0) : OPERATIONS.reduce((t, o) => t + (r.calls[o] ?? 0), 0)),
    0,
  );
function line(label: string, rs: Row[], per = rs.length) {
  const pct = (status: string) =>
    Math.round((100 * rs.filter((r) => r.status === status).length) / rs.length);
  return {
    accounts: label,
    n: rs.length,
    search: r3(total(rs, 'searchBuyers') / per),
    criteria: r3(total(rs, 'searchBuyersByCriteria') / per),
    attributes: r3(total(rs, 'getBuyerAttributesBulk') / per),
    signals: r3(total(rs, 'listRecentBuyerSignals') / per),
    all: r3(total(rs) / per),
    'matched/review/none %': `${pct('matched')}/${pct('needs_review')}/${pct('no_match')}`,
    'other buyer': rs.filter((r) => r.buyerId && r.buyerId !== r.account.buyerId).length,
  };
}
const buyers = rows.filter((r) => r.account.kind !== 'non-buyer');
console.log(
  `\n${rows.length} accounts over ${n('buyers')} buyers in ${((performance.now() - started) / 1000).toFixed(0)} s; Buyer Intelligence calls per account`,
);
console.log(
  renderRecords([
    line('all', rows),
    ...(['exact', 'variant', 'typo', 'non-buyer'] as const).map((k) =>
      line(
        k,
        rows.filter((r) => r.account.kind === k),
      ),
    ),
    line(
      'no state',
      buyers.filter((r) => !r.account.state),
    ),
    line(
      'with website',
      buyers.filter((r) => r.account.domain),
    ),
  ]),
);

const seen = new Set(rows.slice(0, n('from')).flatMap((r) => (r.buyerId ? [r.buyerId] : [])));
const groups = new Map<string, Row[]>();
for (const r of rows.slice(n('from'), n('to'))) {
  const group = r.buyerId ? (seen.has(r.buyerId) ? 'matched, buyer seen' : 'matched, new buyer') : r.status;
  if (r.buyerId) seen.add(r.buyerId);
  groups.set(group, [...(groups.get(group) ?? []), r]);
}
const window = rows.slice(n('from'), n('to'));
const newBuyers = groups.get('matched, new buyer')?.length ?? 0;
console.log(
  `\nWindow: accounts ${n('from')}–${n('to')}: ${total(window)} calls, ${newBuyers} new buyers → ${r3(total(window) / newBuyers)} per new buyer; per new buyer, by what the accounts came to:`,
);
console.log(renderRecords([...groups].map(([group, rs]) => line(group, rs, newBuyers))));
