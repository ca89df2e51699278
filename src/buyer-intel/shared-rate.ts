// One Buyer Intelligence rate for every worker. The provider limits requests per token, not per
// process: a per-process bucket lets N workers send N × the rate, and caps one worker at a share it
// cannot lend. So the budget lives in Redis, keyed by the token's hash (never the token), as a GCRA
// (a token bucket kept as one "theoretical arrival time"), on Redis's own clock so processes on other
// machines agree, and one worker alone may use all of it. A process's requests that wait for a slot
// at the same moment (a chunk's accounts searching together) ask in one script call (by SHA) for as
// many slots as there are of them, reserving those that start within the next second: each request
// goes at its slot's time, and the rest ask again as the second moves on.
//
// Learned down: a 429 means the configured rate is more than the provider gives us now (another
// integration on the same token, or a lower plan). Its Retry-After pushes the arrival time out, so
// every worker waits, and the rate in use drops to a quarter less than it was for LEARN_MS; then the
// configured rate is tried again.
import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';
import { sleep } from './token-bucket.ts';

/** What the transport waits on before each attempt, and tells of each 429. */
export interface RateGate {
  take(signal?: AbortSignal): Promise<void>;
  /** The provider answered 429 (after `retryAfterMs`, when it said). Never rejects. */
  throttled?(retryAfterMs: number | undefined): Promise<void>;
}

/** How long a rate learned from a 429 holds before the configured rate is tried again. */
export const LEARN_MS = 10 * 60_000;
/** A 429 keeps this share of the rate in use. */
const LEARN_FACTOR = 0.75;

const NOW = `local t = redis.call('TIME'); local now = tonumber(t[1]) * 1000 + tonumber(t[2]) / 1000`;
// KEYS: the arrival time (a string), the learned rate (a string that expires when it stops holding).
// The rate in use: the configured one, or the learned one while it holds. Two commands besides the
// script's own call: Redis counts every one a script runs, and this runs once per provider call.
const RATE = `
local s = redis.call('MGET', KEYS[1], KEYS[2])
local rate = tonumber(ARGV[1])
if s[2] then rate = math.min(rate, tonumber(s[2])) end
local tat = math.max(tonumber(s[1] or '0'), now)`;

// ARGV: configured rate (per s), burst, slots wanted (n), horizon (ms). Reserves the next slots, as
// many as are wanted and start within the horizon: answers { slots reserved (0..n), ms until the first
// of them (≤ 0: now), the interval in µs } — the k-th (from 0) may go k intervals after the first.
// A slot is free when tat is within the burst of now (GCRA); reserved, it moves tat on.
const TAKE = `${NOW}${RATE}
local interval = 1000 / rate
local first = tat - now - interval * (tonumber(ARGV[2]) - 1)
local taken = math.floor((tonumber(ARGV[4]) - first) / interval) + 1
taken = math.max(0, math.min(tonumber(ARGV[3]), taken))
if taken > 0 then
  tat = tat + taken * interval
  redis.call('SET', KEYS[1], string.format('%.3f', tat), 'PX', math.ceil(tat - now) + 1000)
end
return { taken, math.ceil(first), math.ceil(interval * 1000) }`;

/** How far ahead one call reserves slots for the requests waiting (a rate's worth at most). */
const HORIZON_MS = 1_000;

// ARGV: configured rate, retry-after ms (0: none). Returns the rate now in use (×1000).
const THROTTLED = `${NOW}${RATE}
local learned = math.max(0.1, rate * ${LEARN_FACTOR})
local pause = math.max(tat, now + tonumber(ARGV[2]))
redis.call('SET', KEYS[2], string.format('%.3f', learned), 'PX', ${LEARN_MS})
redis.call('SET', KEYS[1], string.format('%.3f', pause), 'PX', math.ceil(pause - now) + 1000)
return math.floor(learned * 1000)`;

type Scripted = Redis & {
  biRateTake(
    at: string,
    learned: string,
    rate: number,
    burst: number,
    n: number,
    horizonMs: number,
  ): Promise<[number, number, number]>;
  biRateThrottled(at: string, learned: string, rate: number, retryAfterMs: number): Promise<number>;
};

/**
 * The budget's keys: the install's prefix and the token's hash, in braces so that both keys share a
 * slot on a Redis Cluster (with a hash-tagged prefix, `{bis}`, the prefix's braces decide the slot).
 */
export function sharedRateKeys(prefix: string, token: string): { at: string; learned: string } {
  const id = createHash('sha256').update(token).digest('hex').slice(0, 16);
  const base = `${prefix}:bi-rate:{${id}}`;
  return { at: `${base}:at`, learned: `${base}:learned` };
}

export interface SharedRateOptions {
  redis: Redis;
  prefix: string;
  /** The provider token the limit belongs to (only its hash is kept). */
  token: string;
  ratePerSecond: number;
  burst: number;
}

/** The provider's rate, shared by every process that names the same prefix and token. */
export function sharedRate(options: SharedRateOptions): RateGate {
  const r = options.redis as Scripted;
  if (typeof r.biRateTake !== 'function') {
    // defineCommand sends EVALSHA, and the script's text only the first time a server misses it.
    options.redis.defineCommand('biRateTake', { numberOfKeys: 2, lua: TAKE });
    options.redis.defineCommand('biRateThrottled', { numberOfKeys: 2, lua: THROTTLED });
  }
  const { at, learned } = sharedRateKeys(options.prefix, options.token);
  const { ratePerSecond, burst } = options;
  // The requests waiting for a slot, first come first served. One script call at a time reserves
  // slots for all of them that start within the horizon; each goes at its slot's time, and the rest
  // ask again once the horizon has moved on. A request given up after its slot was reserved leaves
  // the slot unused: the rate is never exceeded, at worst not used in full.
  const waiting: { go: () => void; fail: (err: unknown) => void }[] = [];
  let asking = false;
  const ask = async (): Promise<void> => {
    asking = true;
    try {
      while (waiting.length) {
        let reply: [number, number, number];
        try {
          reply = await r.biRateTake(at, learned, ratePerSecond, burst, waiting.length, HORIZON_MS);
        } catch (err) {
          for (const w of waiting.splice(0)) w.fail(err);
          break;
        }
        const [taken, firstMs, intervalUs] = reply.map(Number) as [number, number, number];
        for (const [i, w] of waiting.splice(0, taken).entries()) {
          const delay = firstMs + (i * intervalUs) / 1000;
          if (delay <= 0) w.go();
          else setTimeout(w.go, delay);
        }
        if (waiting.length) await sleep(Math.max(1, firstMs + (taken * intervalUs) / 1000 - HORIZON_MS));
      }
    } finally {
      asking = false;
    }
  };
  return {
    take(signal) {
      signal?.throwIfAborted();
      return new Promise<void>((resolve, reject) => {
        // A request given up leaves the queue at once (its slot is not asked for).
        const onAbort = () => {
          const i = waiting.indexOf(waiter);
          if (i >= 0) waiting.splice(i, 1);
          reject(signal?.reason);
        };
        const waiter = {
          go: () => {
            signal?.removeEventListener('abort', onAbort);
            resolve();
          },
          fail: (err: unknown) => {
            signal?.removeEventListener('abort', onAbort);
            reject(err);
          },
        };
        signal?.addEventListener('abort', onAbort, { once: true });
        waiting.push(waiter);
        // Requests of the same tick (a chunk's accounts resumed by one answer) go in one call.
        if (!asking) {
          asking = true;
          queueMicrotask(() => void ask());
        }
      });
    },
    async throttled(retryAfterMs) {
      await r.biRateThrottled(at, learned, ratePerSecond, retryAfterMs ?? 0).catch(() => undefined);
    },
  };
}

/** The rate every process uses now (learned or configured): for `doctor` and tests. */
export async function readSharedRate(
  redis: Redis,
  prefix: string,
  token: string,
  configured: number,
): Promise<{ ratePerSecond: number; learnedForMs?: number }> {
  const { learned } = sharedRateKeys(prefix, token);
  const [value, ttl] = await Promise.all([redis.get(learned), redis.pttl(learned)]);
  const rate = Number(value);
  if (value === null || !(rate < configured)) return { ratePerSecond: configured };
  return { ratePerSecond: rate, learnedForMs: ttl };
}
