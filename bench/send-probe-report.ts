// Reads what bench/send-probe.ts wrote for one customer run (one worker) and prints where the 429s
// came from: the gaps between the worker's socket writes, the one-way delay of each request to the
// emulator's server (same machine, same clock), how often that delay shrank a gap, and the last
// send and arrival before each 429. `node bench/send-probe-report.ts --dir <dir>`.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { benchArgs } from './args.ts';
import type { ProbeRow } from './send-probe.ts';

const { values } = benchArgs({
  usage: 'node bench/send-probe-report.ts [--dir <dir>]',
  summary:
    "Where a customer run's 429s came from: the gaps between the worker's sends and between their arrivals at the provider, from what bench/send-probe.ts wrote (run the bench with BENCH_SEND_PROBE=<dir> and one worker).",
  options: {
    dir: {
      type: 'string',
      value: '<dir>',
      default: process.env.BENCH_SEND_PROBE ?? '',
      describe: 'the BENCH_SEND_PROBE directory of one run',
    },
  },
});
const dir = values.dir;
if (!dir) {
  console.error('send-probe-report: name the BENCH_SEND_PROBE directory of one run (--dir)');
  process.exit(2);
}

const read = (prefix: string): ProbeRow[] => {
  const files = readdirSync(dir).filter((f) => f.startsWith(prefix) && f.endsWith('.json'));
  // The largest file of its kind: a run has one provider and (here) one worker that sends.
  const rows = files.map((f) => JSON.parse(readFileSync(join(dir, f), 'utf8')) as ProbeRow[]);
  return rows.sort((a, b) => b.length - a.length)[0] ?? [];
};
const sends = read('worker-').filter((r) => r[0] === 'send');
const provider = read('provider-');
const arrivals = provider.filter((r) => r[0] === 'arrive');
if (!sends.length || !arrivals.length) {
  console.error(`send-probe-report: no sends or arrivals in ${dir} (was BENCH_SEND_PROBE set for the run?)`);
  process.exit(1);
}

// The bucket's counts, in the order the server began the requests (one connection, first in first out).
const hits = provider.filter((r) => r[0] === 'hit');
// Each send with its arrival (the same path, in order) and the moment the bucket counted it.
const paired: { sent: number; arrived: number; counted?: number; refused: boolean; path: string }[] = [];
let j = 0;
for (const s of sends) {
  while (j < arrivals.length && arrivals[j]?.[2] !== s[2]) j++;
  const a = arrivals[j];
  const h = hits[j++];
  if (a)
    paired.push({ sent: s[1], arrived: a[1], counted: h?.[1], refused: h?.[2] === 0, path: String(s[2]) });
}
const sorted = (xs: number[]) => [...xs].sort((a, b) => a - b);
const at = (xs: number[], q: number) => xs[Math.floor(q * (xs.length - 1))] ?? Number.NaN;
const ms = (x: number) => x.toFixed(1);
const gaps = (ts: number[]) => ts.slice(1).map((t, i) => t - (ts[i] ?? t));

const sendGaps = sorted(gaps(paired.map((p) => p.sent)));
const arriveGaps = sorted(gaps(paired.map((p) => p.arrived)));
const delays = sorted(paired.map((p) => p.arrived - p.sent));
const shrink = paired.slice(1).map((p, i) => {
  const before = paired[i] as (typeof paired)[number];
  return before.arrived - before.sent - (p.arrived - p.sent);
});
console.log(`${paired.length} requests paired (${sends.length} sent, ${arrivals.length} arrived)`);
console.log(
  `gap between sends, ms: min ${ms(sendGaps[0] ?? Number.NaN)}, p1 ${ms(at(sendGaps, 0.01))}, p50 ${ms(at(sendGaps, 0.5))}, p90 ${ms(at(sendGaps, 0.9))}`,
);
console.log(
  `gap between arrivals, ms: min ${ms(arriveGaps[0] ?? Number.NaN)}, p1 ${ms(at(arriveGaps, 0.01))}, p50 ${ms(at(arriveGaps, 0.5))}`,
);
console.log(
  `one-way delay (socket write → server), ms: p50 ${delays.length ? at(delays, 0.5).toFixed(2) : '-'}, p99 ${at(delays, 0.99).toFixed(2)}, max ${ms(delays.at(-1) ?? Number.NaN)}`,
);
console.log(
  `a gap shrunk on the way by more than 1 / 2 / 5 / 10 ms: ${[1, 2, 5, 10]
    .map((m) => `${((100 * shrink.filter((x) => x > m).length) / Math.max(1, shrink.length)).toFixed(2)} %`)
    .join(' / ')}`,
);

// The pace's releases and the socket writes, in order: the n-th request let go is the n-th written
// (one connection, first in first out; a release whose request was given up would shift the pairs).
const releases = read('worker-')
  .filter((r) => r[0] === 'release')
  .map((r) => r[1]);
if (releases.length) {
  const late = sorted(sends.slice(0, releases.length).map((s, i) => s[1] - (releases[i] ?? s[1])));
  const releaseGaps = sorted(gaps(releases));
  console.log(
    `${releases.length} releases: gap min ${ms(releaseGaps[0] ?? Number.NaN)} ms; release → socket write p50 ${at(late, 0.5).toFixed(2)}, p99 ${at(late, 0.99).toFixed(2)}, max ${ms(late.at(-1) ?? Number.NaN)} ms`,
  );
}

const counted = paired.filter((p) => p.counted !== undefined) as Required<(typeof paired)[number]>[];
if (counted.length) {
  const waits = sorted(counted.map((p) => p.counted - p.arrived));
  const countGaps = sorted(gaps(counted.map((p) => p.counted)));
  console.log(
    `arrival → the bucket's count (the emulator's body read and loop), ms: p50 ${at(waits, 0.5).toFixed(2)}, p99 ${at(waits, 0.99).toFixed(2)}, max ${ms(waits.at(-1) ?? Number.NaN)}; gap between counts min ${ms(countGaps[0] ?? Number.NaN)}`,
  );
}

// The provider's loop stalls (a 1-ms timer late) against the requests that reached it late: was its
// loop held, and was it waiting to run (a busy machine) or running (its own work)?
const stalls = provider.filter((r) => r[0] === 'stall');
if (stalls.length) {
  const late = paired.filter((p) => p.arrived - p.sent > 3);
  // A stall row is written when the timer fires, at its end: it covers [end - ms, end].
  const during = (p: (typeof paired)[number]) =>
    stalls.find((r) => r[1] >= p.sent && r[1] - r[2] - 1 <= p.arrived);
  const held = late.map(during).filter((r) => r !== undefined);
  const queued = held.filter((r) => r[3] >= r[2] / 2);
  console.log(
    `provider loop stalls > 3 ms: ${stalls.length}; of ${late.length} requests > 3 ms on the way, ${held.length} met one, ${queued.length} of those while the provider waited to run (not its own work)`,
  );
}

const t0 = paired[0]?.sent ?? 0;
paired.forEach((p, i) => {
  const prev = paired[i - 1];
  if (!p.refused || !prev) return;
  const counts =
    p.counted !== undefined && prev.counted !== undefined
      ? `, counted ${ms(p.counted - prev.counted)} ms after it`
      : '';
  console.log(
    `429 at ${((p.sent - t0) / 1000).toFixed(2)} s: sent ${ms(p.sent - prev.sent)} ms after the one before, arrived ${ms(p.arrived - prev.arrived)} ms after it${counts} (one-way delays ${ms(prev.arrived - prev.sent)} then ${ms(p.arrived - p.sent)} ms)`,
  );
});
