// One Buyer Intelligence pace for every worker. The provider limits requests per token, not per
// process: a per-process bucket lets N workers send N × the rate, and caps one worker at a share it
// cannot lend. So the budget lives in Redis, keyed by the token's hash (never the token), as a GCRA
// (a token bucket kept as one "theoretical arrival time"), and one worker alone may use all of it.
// A process's requests that wait for a slot at the same moment (a chunk's accounts searching together)
// ask in one script call (by SHA) for as many slots as there are of them, reserving those that start
// within the horizon: each request goes at its slot's time, and the rest (with those that came
// meanwhile) ask again when the last slot reserved is due.
//
// When the provider says no, the pace converges to what it gives (pace-scripts.ts has the rules and
// their sources): one cut per round trip, every worker paused for a Retry-After, burst 1 from then on,
// a cubic climb back under a learned cap, a floor tied to the configured rate. A 429 in this process
// also takes back the slots it had reserved ahead, so they are paced anew after the pause instead of
// leaving into it. Each change is logged and the rate in use and the time spent waiting are metrics.
import { createHash } from 'node:crypto';
import { channel } from 'node:diagnostics_channel';
import type { Redis } from 'ioredis';
import type { LogPort } from '../shared/log.ts';
import { isUrgent } from '../shared/urgency.ts';
import { READ, TAKE, THROTTLED } from './pace-scripts.ts';

/** What the transport waits on before each attempt, and tells of each 429. */
export interface RateGate {
  /** Resolves when the request may go, with when its slot was reserved (for `throttled`), if known. */
  take(signal?: AbortSignal): Promise<number | undefined>;
  /** The provider answered 429 to a request paced at `reservedAt` (after `retryAfterMs`). Never rejects. */
  throttled?(retryAfterMs: number | undefined, reservedAt?: number): Promise<void>;
}

/** What the pace tells the service's metrics. */
export interface PaceObserver {
  /** The rate in use changed (requests per second). */
  rate?(ratePerSecond: number): void;
  /** A request waited this long for its slot. */
  waited?(ms: number): void;
}

/** How far ahead one call reserves slots for the requests waiting (while nothing is learned). */
const HORIZON_MS = 1_000;

type Scripted = Redis & {
  biPaceTake(
    at: string,
    state: string,
    rate: number,
    burst: number,
    n: number,
    horizonMs: number,
  ): Promise<number[]>;
  biPaceThrottled(
    at: string,
    state: string,
    rate: number,
    retryAfterMs: number,
    reservedAt: number,
  ): Promise<number[]>;
  biPaceRead(at: string, state: string, rate: number): Promise<number[]>;
};

function scripted(redis: Redis): Scripted {
  const r = redis as Scripted;
  if (typeof r.biPaceTake !== 'function') {
    // defineCommand sends EVALSHA, and the script's text only the first time a server misses it.
    redis.defineCommand('biPaceTake', { numberOfKeys: 2, lua: TAKE });
    redis.defineCommand('biPaceThrottled', { numberOfKeys: 2, lua: THROTTLED });
    redis.defineCommand('biPaceRead', { numberOfKeys: 2, lua: READ });
  }
  return r;
}

/**
 * The pace's keys: the install's prefix and the token's hash, in braces so that both keys share a
 * slot on a Redis Cluster (with a hash-tagged prefix, `{bis}`, the prefix's braces decide the slot).
 */
export function sharedRateKeys(prefix: string, token: string): { at: string; learned: string } {
  const id = createHash('sha256').update(token).digest('hex').slice(0, 16);
  const base = `${prefix}:bi-rate:{${id}}`;
  return { at: `${base}:at`, learned: `${base}:pace` };
}

export interface SharedRateOptions {
  redis: Redis;
  prefix: string;
  /** The provider token the limit belongs to (only its hash is kept). */
  token: string;
  ratePerSecond: number;
  burst: number;
  log?: LogPort;
  observe?: PaceObserver;
}

interface Waiter {
  since: number;
  /** A person waits on it (src/shared/urgency.ts): it goes before the waiting backfill requests. */
  urgent: boolean;
  timer?: NodeJS.Timeout;
  go: (reservedAt: number) => void;
  fail: (err: unknown) => void;
}

const perSecond = (milli: number) => Math.round(milli) / 1000;

/**
 * Published as a request leaves the pace (`{ at }`, performance.now()): the bench's send probe pairs it
 * with the socket write undici publishes, to tell a late write from a pace that sent too close.
 */
export const paceReleased = channel('buyer-intel-sync:pace:release');

/** The provider's pace, shared by every process that names the same prefix and token. */
export function sharedRate(options: SharedRateOptions): RateGate {
  const r = scripted(options.redis);
  const { at, learned } = sharedRateKeys(options.prefix, options.token);
  const { ratePerSecond, burst, log, observe } = options;
  // The requests waiting for a slot, first come first served, and those holding a slot not yet due.
  // One script call at a time reserves slots for the waiting that start within the horizon. A request
  // given up after its slot was reserved leaves the slot unused: the rate is never exceeded.
  const waiting: Waiter[] = [];
  const scheduled = new Set<Waiter>();
  let asking = false;
  let known = ratePerSecond;
  const seen = (milli: number) => {
    const now = perSecond(milli);
    if (now === known) return;
    if (now >= ratePerSecond && known < ratePerSecond)
      log?.info('provider pace restored', { ratePerSecond: now });
    known = now;
    observe?.rate?.(now);
  };
  let spacing = 0;
  let lastSent = Number.NEGATIVE_INFINITY;
  const release = (w: Waiter, reservedAt: number) => {
    // Not a ms early either: a provider with no burst at exactly the configured rate refuses a request
    // 99.3 ms after the last (bench probe, issue #42: sends 99.6 and 99.3 ms apart just before a 429).
    const wait = lastSent + spacing - performance.now();
    if (wait > 0) {
      scheduled.add(w);
      w.timer = setTimeout(() => {
        scheduled.delete(w);
        release(w, reservedAt);
      }, wait);
      return;
    }
    lastSent = performance.now();
    if (paceReleased.hasSubscribers) paceReleased.publish({ at: lastSent });
    w.go(reservedAt);
  };
  const ask = async (): Promise<void> => {
    asking = true;
    try {
      while (waiting.length) {
        let reply: number[];
        try {
          reply = await r.biPaceTake(at, learned, ratePerSecond, burst, waiting.length, HORIZON_MS);
        } catch (err) {
          for (const w of waiting.splice(0)) w.fail(err);
          break;
        }
        const [taken = 0, firstMs = 0, intervalUs = 0, redisNow = 0, rateMilli = 0, horizonMs = HORIZON_MS] =
          reply.map(Number);
        seen(rateMilli);
        // At burst 1 (configured, or while throttled) this process also keeps its own requests an
        // interval apart: a slot whose timer fired late would otherwise leave close before the next,
        // on-time one, and a provider with no burst refuses the second. A stalled event loop (a GC
        // pause, a loaded machine) fires every timer that came due at once: at load 9, before this held
        // at the configured burst 1 too, bursts of 5–12 requests within 3 ms met the provider and 6 % of
        // a backfill's calls were refused (bench, issue #42).
        spacing = horizonMs < HORIZON_MS || burst <= 1 ? intervalUs / 1000 : 0;
        for (const [i, w] of waiting.splice(0, taken).entries()) {
          const delay = firstMs + (i * intervalUs) / 1000;
          if (delay <= 0) release(w, redisNow);
          else {
            scheduled.add(w);
            w.timer = setTimeout(() => {
              scheduled.delete(w);
              release(w, redisNow);
            }, delay);
          }
        }
        // The next call waits until the last slot reserved here has gone, and asks for the requests
        // waiting by then (those not served, and those that came meanwhile) together: a horizon's worth
        // of slots per script call (3 while throttled at ~10/s), not one per call as when it asked each
        // time a further slot came within the horizon (at the provider's pace, 4 Redis commands per
        // request). No request loses by the wait: the next free slot is after this process's last one.
        // A quarter interval after it, so that a whole horizon's slots fit again, and three quarters
        // before the next slot is due, room for the round trip. Nothing reserved (other processes hold
        // the horizon): ask a quarter horizon before the next free slot is due, early enough to lose
        // none after a pause (a Retry-After's). Asking as soon as it came within the horizon, 4 busy
        // workers raced for each slot while throttled: 45 % of their calls reserved nothing, the others
        // about one slot each (3.3 calls, 13 Redis commands per account). The rate is the same either
        // way: the slots one process does not take go to those that ask.
        const intervalMs = intervalUs / 1000;
        const nextMs = taken > 0 ? firstMs + (taken - 1 + 0.25) * intervalMs : firstMs - horizonMs / 4;
        if (taken > 0 || waiting.length) await sleep(Math.max(1, nextMs));
      }
    } finally {
      asking = false;
    }
  };
  const wake = () => {
    if (asking) return;
    asking = true;
    queueMicrotask(() => void ask());
  };
  return {
    take(signal) {
      signal?.throwIfAborted();
      return new Promise<number>((resolve, reject) => {
        // A request given up leaves the queue at once (its slot is not asked for).
        const onAbort = () => {
          const i = waiting.indexOf(waiter);
          if (i >= 0) waiting.splice(i, 1);
          if (scheduled.delete(waiter)) clearTimeout(waiter.timer);
          reject(signal?.reason);
        };
        const waiter: Waiter = {
          since: performance.now(),
          urgent: isUrgent(),
          go: (reservedAt) => {
            signal?.removeEventListener('abort', onAbort);
            observe?.waited?.(performance.now() - waiter.since);
            resolve(reservedAt);
          },
          fail: (err) => {
            signal?.removeEventListener('abort', onAbort);
            reject(err);
          },
        };
        signal?.addEventListener('abort', onAbort, { once: true });
        // First come first served, except that a request a person waits on goes after the other
        // urgent ones and before every backfill request still waiting for a slot.
        const at = waiter.urgent ? waiting.findIndex((w) => !w.urgent) : -1;
        if (at >= 0) waiting.splice(at, 0, waiter);
        else waiting.push(waiter);
        // Requests of the same tick (a chunk's accounts resumed by one answer) go in one call.
        wake();
      });
    },
    async throttled(retryAfterMs, reservedAt) {
      // The slots this process holds were paced before the provider said no: take them back, first
      // in line, so they are paced anew (after the pause) instead of meeting more 429s.
      if (scheduled.size) {
        const back = [...scheduled];
        scheduled.clear();
        for (const w of back) clearTimeout(w.timer);
        waiting.unshift(...back);
      }
      try {
        const reply = await r.biPaceThrottled(at, learned, ratePerSecond, retryAfterMs ?? 0, reservedAt ?? 0);
        const [cut = 0, rateMilli = 0, beforeMilli = 0, pauseMs = 0] = reply.map(Number);
        if (cut) {
          log?.warn('provider throttling: pace lowered', {
            fromPerSecond: perSecond(beforeMilli),
            ratePerSecond: perSecond(rateMilli),
            pausedMs: Math.max(0, pauseMs),
            ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
          });
        }
        seen(rateMilli);
      } catch {
        // Redis away: the retry's own wait still spaces this request; the next take() reports it.
      } finally {
        if (waiting.length) wake();
      }
    },
  };
}

export interface SharedRateReading {
  /** The rate every worker paces to now (requests per second). */
  ratePerSecond: number;
  /** Whether the provider's 429s hold it below the configured rate. */
  throttled: boolean;
  /** How long what the 429s taught still holds (ms), when anything does. */
  learnedForMs?: number;
}

/** The pace every process uses now: for `doctor`, progress and tests. */
export async function readSharedRate(
  redis: Redis,
  prefix: string,
  token: string,
  configured: number,
): Promise<SharedRateReading> {
  const { at, learned } = sharedRateKeys(prefix, token);
  const [rateMilli = 0, ttl = -2] = (await scripted(redis).biPaceRead(at, learned, configured)).map(Number);
  const ratePerSecond = Math.min(configured, perSecond(rateMilli));
  return {
    ratePerSecond,
    throttled: ratePerSecond < configured,
    ...(ttl > 0 ? { learnedForMs: ttl } : {}),
  };
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
