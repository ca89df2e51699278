// The resolver's own cost, without the network: the bench's accounts (accounts.ts) resolved once to
// fill the in-process cache in front of the sandbox, then again, pass after pass, over that cache — so
// what is measured is the scoring and the plan, not the calls. Prints the bytes allocated per account
// (V8's sampling heap profiler, collected objects included; one pass) and the CPU per account of each
// pass, and a digest of the decisions: two trees whose digests agree decided every account alike.
// Standalone, not part of `npm run bench`:
//   node bench/resolve-cpu.ts [--accounts 3000] [--buyers 2700] [--passes 4] [--top 0]
import { createHash } from 'node:crypto';
import { Session } from 'node:inspector/promises';
import { buildDataset } from '../emulators/buyer-intel/data/dataset.ts';
import { startBuyerIntelSandbox } from '../emulators/buyer-intel/server.ts';
import { cachedBuyerIntel } from '../src/buyer-intel/cache.ts';
import { BuyerIntelClient } from '../src/buyer-intel/client.ts';
import { type MatchCache, Resolver } from '../src/resolve/resolver.ts';
import { benchAccounts } from './accounts.ts';
import { benchArgs } from './args.ts';

const { values } = benchArgs({
  usage: 'node bench/resolve-cpu.ts [options]',
  summary:
    "The resolver's own CPU and allocation per account, every answer already in memory, and a digest of its decisions (not part of npm run bench).",
  options: {
    accounts: { type: 'string', default: '3000', value: '<n>', describe: "the bench's accounts resolved" },
    buyers: { type: 'string', default: '2700', value: '<n>', describe: 'distinct buyers they name' },
    passes: { type: 'string', default: '4', value: '<n>', describe: 'passes over the accounts, each timed' },
    top: {
      type: 'string',
      default: '0',
      value: '<n>',
      describe: 'allocation sites printed, the largest first',
    },
  },
});
const dataset = buildDataset({ seed: 42 });
const accounts = benchAccounts(dataset, Number(values.accounts), Number(values.buyers));
const sandbox = await startBuyerIntelSandbox({ dataset, rateLimit: false });
const client = new BuyerIntelClient({ baseUrl: sandbox.url, token: sandbox.token, rateLimit: false });
// An hour: nothing expires between passes.
const cached = cachedBuyerIntel(client, { ttlMs: 3_600_000, maxEntries: 100_000 });

/** One pass over every account with a fresh resolver (pool and shared answers empty): CPU ms per account. */
async function pass(decisions: unknown[]): Promise<number> {
  const kept = new Map<string, string>();
  const cache: MatchCache = {
    get: async (key) => kept.get(key) ?? null,
    set: async (key, value) => void kept.set(key, value),
  };
  const resolver = new Resolver({ client: cached, cache, options: { sharedAnswerTtlSeconds: 600 } });
  const start = process.cpuUsage();
  let next = 0;
  await Promise.all(
    Array.from({ length: 50 }, async () => {
      for (let i = next++; i < accounts.length; i = next++) {
        const a = accounts[i];
        if (!a) continue;
        decisions[i] = await resolver.resolve({
          id: String(i),
          name: a.name,
          state: a.state || null,
          website: a.domain ?? null,
        });
      }
    }),
  );
  const used = process.cpuUsage(start);
  return (used.user + used.system) / 1000 / accounts.length;
}

interface ProfileNode {
  selfSize: number;
  children: ProfileNode[];
  callFrame: { functionName: string; url: string; lineNumber: number };
}

const decisions: unknown[] = [];
await pass(decisions);
const session = new Session();
session.connect();
await session.post('HeapProfiler.startSampling', {
  samplingInterval: 4096,
  includeObjectsCollectedByMajorGC: true,
  includeObjectsCollectedByMinorGC: true,
});
await pass(decisions);
const { profile } = (await session.post('HeapProfiler.stopSampling')) as { profile: { head: ProfileNode } };
session.disconnect();
const bySite = new Map<string, number>();
let allocated = 0;
const walk = (node: ProfileNode) => {
  allocated += node.selfSize;
  const where = `${node.callFrame.functionName || '(anonymous)'} ${node.callFrame.url.replace(/^.*?\/(src|node_modules)\//, '$1/')}:${node.callFrame.lineNumber}`;
  bySite.set(where, (bySite.get(where) ?? 0) + node.selfSize);
  for (const child of node.children) walk(child);
};
walk(profile.head);

const cpu: number[] = [];
for (let p = 0; p < Number(values.passes); p++) cpu.push(await pass(decisions));
await sandbox.close();

const digest = createHash('sha256').update(JSON.stringify(decisions)).digest('hex').slice(0, 16);
const sorted = [...cpu].sort((a, b) => a - b);
console.log(`${accounts.length} accounts over ${values.buyers} buyers, every answer at hand`);
console.log(`allocated: ${(allocated / 1024 / accounts.length).toFixed(1)} KB per account`);
console.log(
  `CPU per account, pass by pass: ${cpu.map((ms) => ms.toFixed(3)).join(', ')} ms (median ${sorted[Math.floor(sorted.length / 2)]?.toFixed(3)} ms)`,
);
console.log(`decisions digest: ${digest}`);
for (const [where, bytes] of [...bySite].sort((a, b) => b[1] - a[1]).slice(0, Number(values.top)))
  console.log(`${(bytes / 1024 / accounts.length).toFixed(2).padStart(8)} KB  ${where}`);
