// One Buyer Intelligence rate for every worker. The provider limits requests per token, not per
// process: a per-process bucket lets N workers send N × the rate, and caps one worker at a share it
// cannot lend. So the budget lives in Redis, keyed by the token's hash (never the token), as a GCRA
// (a token bucket kept as one "theoretical arrival time"): one script call (by SHA) per request, on
// Redis's own clock so processes on other machines agree, and one worker alone may use all of it.
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

// ARGV: configured rate (per s), burst. 0: go (the slot is taken); else the ms to wait.
const TAKE = `${NOW}${RATE}
local interval = 1000 / rate
local wait = tat - now - interval * (tonumber(ARGV[2]) - 1)
if wait > 0 then return math.ceil(wait) end
redis.call('SET', KEYS[1], string.format('%.3f', tat + interval), 'PX', math.ceil(tat + interval - now) + 1000)
return 0`;

// ARGV: configured rate, retry-after ms (0: none). Returns the rate now in use (×1000).
const THROTTLED = `${NOW}${RATE}
local learned = math.max(0.1, rate * ${LEARN_FACTOR})
local pause = math.max(tat, now + tonumber(ARGV[2]))
redis.call('SET', KEYS[2], string.format('%.3f', learned), 'PX', ${LEARN_MS})
redis.call('SET', KEYS[1], string.format('%.3f', pause), 'PX', math.ceil(pause - now) + 1000)
return math.floor(learned * 1000)`;

type Scripted = Redis & {
  biRateTake(at: string, learned: string, rate: number, burst: number): Promise<number>;
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
  return {
    async take(signal) {
      for (;;) {
        signal?.throwIfAborted();
        const wait = Number(await r.biRateTake(at, learned, ratePerSecond, burst));
        if (wait <= 0) return;
        await sleep(wait, signal);
      }
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
