// The shared pace against a provider that enforces its limit (the emulator's token bucket: a burst,
// 429 and Retry-After), driven as a busy deployment drives it: several worker processes, each with many
// calls in flight, configured at the service's rate with a burst of 20 (more than the provider gives) against a provider that
// gives exactly 10/s. Issue #42, finding 1: every 429 of a burst cut the rate again and held it for 10
// minutes (40 concurrent calls fell to 1.34/s, 60 to 0.1/s with 17 calls failed), and a 30-s storm of
// 429s left nothing finished for ~14 minutes after it ended.
// On a Redis Cluster the same scripts run on the same hash-tagged pair of keys: shared-rate.test.ts
// covers that there; these runs are not repeated. Three runs go side by side (each its own provider
// and key prefix, as three deployments): each is tens of seconds of paced waiting, not of CPU. The
// burst-1 run goes alone: its provider refuses any arrival a few ms early.
// Each provider runs in a process of its own (bench/provider-process.ts), apart from its clients as a
// provider's edge is: sharing this file's event loop, three emulators' buckets counted arrivals when
// that loop was free. So placed, at load 8 (two copies of the suite side by side) bursts 10 and 20 met
// 3.4 % 429s in one copy of two; apart, in none of four.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { type ProviderProcess, startProviderProcess } from '../../bench/provider-process.ts';
import { buildDataset } from '../../emulators/buyer-intel/data/dataset.ts';
import { BETA } from '../../src/buyer-intel/pace-scripts.ts';
import { readSharedRate } from '../../src/buyer-intel/shared-rate.ts';
import { REDIS_URL, testPrefix, testRedis } from '../helpers/redis.ts';

const CHILD = fileURLToPath(new URL('./pace-child.ts', import.meta.url));
/** The provider's limit, and the service's default rate with a burst above the provider's. */
const LIMIT = 10;
const SERVICE_BURST = 20;
/** The first window: the service meets the provider's burst and learns from it; not judged. */
const FIRST_WINDOW_MS = 7_000;
const redis = testRedis();
// Each run's prefix is its own deployment's; testPrefix deletes their keys after the file.
const newPrefix = () => testPrefix('test-pace');

afterAll(() => redis.disconnect());

interface Seen {
  ok: number;
  gaveUp: number;
  failed: number;
}

const sleepUntil = (t: number) => new Promise((r) => setTimeout(r, Math.max(0, t - Date.now())));

/** `processes` workers, `concurrency` calls in flight each, from `start` for `runMs`. */
function workers(
  sandbox: ProviderProcess,
  o: { prefix: string; processes: number; concurrency: number; start: number; runMs: number },
): Promise<Seen[]> {
  return Promise.all(
    Array.from({ length: o.processes }, () => {
      const child = spawn(process.execPath, [CHILD], {
        env: {
          ...process.env,
          REDIS_URL,
          PREFIX: o.prefix,
          BASE_URL: sandbox.url,
          TOKEN: sandbox.token,
          RATE: String(LIMIT),
          BURST: String(SERVICE_BURST),
          CONCURRENCY: String(o.concurrency),
          START: String(o.start),
          UNTIL: String(o.start + o.runMs),
        },
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      let out = '';
      child.stdout.on('data', (d) => {
        out += d;
      });
      return new Promise<Seen>((resolve, reject) =>
        child.on('exit', (code) =>
          code === 0 ? resolve(JSON.parse(out) as Seen) : reject(new Error(`worker exited ${code}`)),
        ),
      );
    }),
  );
}

/** What the provider answered so far: 200s and 429s. */
async function answered(sandbox: ProviderProcess) {
  const search = (await sandbox.calls()).searchBuyers ?? {};
  return { ok: search['200'] ?? 0, refused: search['429'] ?? 0 };
}

/** The provider's answers between two moments: the share refused, and the share of its limit used. */
async function window(sandbox: ProviderProcess, from: number, to: number) {
  await sleepUntil(from);
  const a = await answered(sandbox);
  const t0 = performance.now();
  await sleepUntil(to);
  const b = await answered(sandbox);
  const ok = b.ok - a.ok;
  const refused = b.refused - a.refused;
  const seconds = (performance.now() - t0) / 1000;
  return { ok, refused, share429: refused / Math.max(1, ok + refused), usedOfLimit: ok / seconds / LIMIT };
}

const noneLost = (seen: Seen[]) => expect(seen.map((s) => s.failed + s.gaveUp)).toEqual(seen.map(() => 0));

/** The searches' names match nothing: a small data set is enough, and quick to build. */
const DATASET = { seed: 42, now: '2026-12-01T00:00:00Z', buyerCount: 40 };
const built = buildDataset({ ...DATASET, now: new Date(DATASET.now) });
const EXPECTED = { buyers: built.buyers.length, firstBuyerId: built.buyers[0]?.id };

/** A provider of its own that enforces LIMIT with `burst`, 80 ms away, for the length of `run`. */
async function withProvider(burst: number, run: (sandbox: ProviderProcess) => Promise<void>) {
  const sandbox = await startProviderProcess(
    { dataset: DATASET, rateLimit: { ratePerSecond: LIMIT, burst }, faults: { latencyMs: 80 } },
    EXPECTED,
  );
  try {
    await run(sandbox);
  } finally {
    await sandbox.close();
  }
}

describe.concurrent('the shared pace converges to an enforcing provider’s limit', () => {
  for (const [burst, processes, concurrency] of [
    [10, 2, 30],
    [20, 4, 25],
  ] as const) {
    it(`a provider's burst of ${burst}: ${processes} workers × ${concurrency} calls in flight`, async () => {
      await withProvider(burst, async (sandbox) => {
        const start = Date.now() + 1_500;
        const runMs = 19_000;
        const done = workers(sandbox, { prefix: newPrefix(), processes, concurrency, start, runMs });
        const judged = await window(sandbox, start + FIRST_WINDOW_MS, start + runMs);
        noneLost(await done);
        expect(judged.share429).toBeLessThanOrEqual(0.01);
        expect(judged.usedOfLimit).toBeGreaterThanOrEqual(0.9);
      });
    }, 60_000);
  }

  it('after a storm of 429s (60 % of calls for 10 s) it is back at the limit within 30 s', async () => {
    await withProvider(10, async (sandbox) => {
      const start = Date.now() + 1_500;
      const stormFrom = start + 3_000;
      const stormTo = stormFrom + 10_000;
      const done = workers(sandbox, {
        prefix: newPrefix(),
        processes: 2,
        concurrency: 30,
        start,
        runMs: stormTo + 30_000 - start,
      });
      await sleepUntil(stormFrom);
      await sandbox.setFaults({ rateLimitRate: 0.6 });
      await sleepUntil(stormTo);
      await sandbox.setFaults({ rateLimitRate: 0 });
      // The last 10 s of the 30 after the storm: the pace has climbed back.
      const after = await window(sandbox, stormTo + 20_000, stormTo + 30_000);
      noneLost(await done);
      expect(after.refused).toBe(0);
      expect(after.usedOfLimit).toBeGreaterThanOrEqual(0.9);
    });
  }, 90_000);
});

/** The share of the limit a pace must keep against no burst, on a machine at load 8 (see below). */
const KEPT_AT_LOAD = 0.5;

describe('the shared pace against a provider with no burst', () => {
  it('a provider with no burst at all: even pacing, a few 429s, most of the limit used', async () => {
    // A burst of 1 leaves no room for timing noise: on a loaded 2-core machine, timers and the
    // emulator's own event loop move arrivals by tens of ms, and each such 429 pauses everyone a
    // whole second (Retry-After is in seconds). The bench measures the goal (≥ 0.9, ≤ 1 %) where the
    // service runs; here, that the pace settles under the limit instead of sawing down to nothing:
    // the defect of issue #42 kept 0.13 of the limit or less. Quiet, this run kept 0.90; beside six
    // busy loops 0.78; at load 8 (two copies of the suite side by side) 0.54, where timers fire ~30 ms
    // late at the median and the learned cap must leave that much room (a probe of the sends: gaps of
    // 12–93 ms at its 429s).
    await withProvider(1, async (sandbox) => {
      const start = Date.now() + 1_500;
      const runMs = 17_000;
      const prefix = newPrefix();
      const done = workers(sandbox, { prefix, processes: 3, concurrency: 20, start, runMs });
      const judged = await window(sandbox, start + FIRST_WINDOW_MS, start + runMs);
      noneLost(await done);
      expect(judged.share429).toBeLessThanOrEqual(0.05);
      expect(judged.usedOfLimit).toBeGreaterThanOrEqual(KEPT_AT_LOAD);
      const pace = await readSharedRate(redis, prefix, sandbox.token, LIMIT);
      // Read at any moment, it may be just after a cut: BETA of a pace that kept that much.
      expect(pace.ratePerSecond).toBeGreaterThan(LIMIT * KEPT_AT_LOAD * BETA);
      expect(pace.throttled).toBe(true);
    });
  }, 60_000);
});
