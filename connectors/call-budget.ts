// A tenant's call budget, shared by every worker through Redis. HubSpot allows 190 (or 100, or 110 for
// OAuth apps) calls per 10 s per app and portal, across all our processes, and the customer's other
// integrations may spend the same portal's limit. So a call waits before it goes out when either
//   - the CRM's last answer said the window is nearly spent (its Remaining, minus the calls we let out
//     since that answer, at or below a small reserve): it waits for that window to roll, instead of
//     calling into a 429; or
//   - our own rolling count of calls (a sorted set) is at the configured limit: the floor for when no
//     answer has been read yet.
// Every answer's limits (success or error) are stored with `observe`; the daily allocation is only
// kept for reading (limits.ts: dailyHeadroom), the backfill gate uses it.
import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import { IntegrationError } from '../src/shared/errors.ts';
import { budgetIndexKey, budgetKey, dailyKey, type LimitReading, windowKey } from './limits.ts';

// KEYS: own log (sorted set), window reading (hash). ARGV: now, held ms, own limit (0: none), member,
// reserve. 0: go; otherwise the ms to wait. A reading counts until its interval has rolled past.
const TAKE = `local now = tonumber(ARGV[1])
local r = redis.call('HMGET', KEYS[2], 'remaining', 'at', 'intervalMs', 'started')
local live = false
if r[1] and r[2] and r[3] then
  local rolls = tonumber(r[2]) + tonumber(r[3])
  if now < rolls then
    live = true
    if tonumber(r[1]) - tonumber(r[4] or '0') <= tonumber(ARGV[5]) then return rolls - now + 1 end
  end
end
if tonumber(ARGV[3]) > 0 then
  redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - tonumber(ARGV[2]))
  if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[3]) then
    local oldest = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
    return tonumber(oldest[2]) + tonumber(ARGV[2]) - now + 1
  end
  redis.call('ZADD', KEYS[1], now, ARGV[4])
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
end
if live then redis.call('HINCRBY', KEYS[2], 'started', 1) end
return 0`;

/** How often a budget writes its tenant into the index of budgets (`budget-tenants`) again. */
const INDEX_EVERY_MS = 60_000;

/** How long a daily reading is kept: past it nothing it says is current. */
const DAILY_KEEP_MS = 48 * 3600_000;

/**
 * A daily reading is written again once its remaining share moved by this much since this process
 * last wrote it (or the limit changed), else once DAILY_EVERY_MS has passed: the backfill's headroom
 * gate and doctor read a share of a day's allocation, which one call moves by 1/625,000 on HubSpot.
 * Written with every answer it was two of a CRM call's 11 Redis commands.
 */
const DAILY_STEP = 0.001;
const DAILY_EVERY_MS = 60_000;

export interface CallBudget {
  /** Resolves once a call may go out; rejects with a CallBudgetTimeout after `maxWaitMs`. */
  take(): Promise<void>;
  /** What the CRM's answer said about its limits. Never rejects: a lost reading only costs accuracy. */
  observe(reading: LimitReading): Promise<void>;
}

/** The budget stayed full: the call never went out, and a slot frees up in `retryAfterMs`. */
export class CallBudgetTimeout extends IntegrationError {
  declare readonly retryAfterMs: number;
  constructor(key: string, retryAfterMs: number) {
    // A budget is one tenant's (one app and portal): only that tenant's work has to wait.
    super(`the call budget ${key} stayed full; try again in ${retryAfterMs} ms`, {
      permanent: false,
      retryAfterMs,
      limit: 'tenant',
    });
  }
}

export function redisCallBudget(options: {
  redis: Redis;
  /** Namespace of this install's keys, the CRM kind and the tenant: the budget's Redis keys. */
  prefix: string;
  crm: string;
  tenant: string;
  /** Our own calls allowed per window (the floor); none: only the CRM's answers limit calls. */
  limit?: number | undefined;
  windowMs?: number;
  /**
   * Calls kept back from what the CRM says remains: calls already on their way when it answered are
   * not in its count. Default 3.
   */
  reserve?: number;
  /** The longest a call waits for a slot before giving up (the job is then parked, not failed). */
  maxWaitMs?: number;
  /**
   * A slot is held this much longer than the window: HubSpot counts a call when it arrives, we when it
   * leaves, and a later call may travel faster than the one whose slot it takes. Default 250 ms.
   */
  marginMs?: number;
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
}): CallBudget {
  const { redis } = options;
  // By SHA (EVALSHA), the script's text only to a server that lacks it: one call per CRM call.
  const scripted = redis as Redis & { bisBudgetTake(...args: string[]): Promise<unknown> };
  if (typeof scripted.bisBudgetTake !== 'function')
    redis.defineCommand('bisBudgetTake', { numberOfKeys: 2, lua: TAKE });
  const now = options.now ?? Date.now;
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  const maxWaitMs = options.maxWaitMs ?? 30_000;
  const marginMs = options.marginMs ?? 250;
  const heldMs = (options.windowMs ?? 10_000) + marginMs;
  const reserve = options.reserve ?? 3;
  const base = budgetKey(options.prefix, options.crm, options.tenant);
  const member = `${options.crm}:${options.tenant}`;
  let indexedAt = Number.NEGATIVE_INFINITY;
  let daily: { limit: number; remaining: number; at: number } | undefined;
  /** Whether this daily reading says something the last one this process wrote does not. */
  const dailyMoved = (d: { limit: number; remaining: number }, t: number) =>
    !daily ||
    d.limit !== daily.limit ||
    Math.abs(d.remaining - daily.remaining) >= DAILY_STEP * d.limit ||
    t - daily.at >= DAILY_EVERY_MS;
  return {
    async take() {
      const started = now();
      for (;;) {
        const wait = Number(
          await scripted.bisBudgetTake(
            base,
            windowKey(base),
            String(now()),
            String(heldMs),
            String(options.limit ?? 0),
            randomUUID(),
            String(reserve),
          ),
        );
        if (wait <= 0) return;
        if (now() - started + wait > maxWaitMs) throw new CallBudgetTimeout(base, wait);
        await sleep(wait);
      }
    },
    async observe(reading) {
      const t = now();
      const dailyNow = reading.daily && dailyMoved(reading.daily, t) ? reading.daily : undefined;
      if (!reading.window && !dailyNow) return;
      const at = String(t);
      // One round trip, not a transaction: a reader takes each hash as it finds it (MULTI and EXEC
      // were two commands more per CRM call). The tenant's entry in the index is written again once a
      // minute rather than with every call: a Redis that lost it has it back within a minute.
      const tx = redis.pipeline();
      if (t - indexedAt >= INDEX_EVERY_MS) {
        indexedAt = t;
        tx.sadd(budgetIndexKey(options.prefix), member);
      }
      if (reading.window) {
        const { max, remaining, intervalMs } = reading.window;
        const key = windowKey(base);
        tx.hset(key, { max, remaining, intervalMs, at, started: 0 }).pexpire(key, intervalMs + marginMs);
      }
      if (dailyNow) {
        daily = { limit: dailyNow.limit, remaining: dailyNow.remaining, at: t };
        const key = dailyKey(base);
        tx.hset(key, { ...dailyNow, at }).pexpire(key, DAILY_KEEP_MS);
      }
      await tx.exec().catch(() => undefined);
    },
  };
}
