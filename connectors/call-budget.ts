// A rolling-window call budget shared by every worker through Redis: HubSpot allows 190 (or 100, or
// 110 for OAuth apps) calls per 10 s per app and portal, across all our processes. Each call takes a
// slot before it goes out and waits for one when the window is full, so a busy install slows down
// instead of collecting 429s (and retrying whole jobs). The log lives in a sorted set, one per tenant.
import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import { IntegrationError } from '../src/shared/errors.ts';

// Drop what left the window; take a slot if there is room (0), else say how long until the oldest leaves.
const TAKE = `redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[1] - ARGV[2])
if redis.call('ZCARD', KEYS[1]) < tonumber(ARGV[3]) then
  redis.call('ZADD', KEYS[1], ARGV[1], ARGV[4])
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  return 0
end
local oldest = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
return tonumber(oldest[2]) + tonumber(ARGV[2]) - tonumber(ARGV[1]) + 1`;

export interface CallBudget {
  /** Resolves once a call may go out; rejects with a CallBudgetTimeout after `maxWaitMs`. */
  take(): Promise<void>;
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
  key: string;
  /** Calls allowed per window. */
  limit: number;
  windowMs: number;
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
  const now = options.now ?? Date.now;
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  const maxWaitMs = options.maxWaitMs ?? 30_000;
  const heldMs = options.windowMs + (options.marginMs ?? 250);
  return {
    async take() {
      const started = now();
      for (;;) {
        const wait = Number(
          await options.redis.eval(
            TAKE,
            1,
            options.key,
            String(now()),
            String(heldMs),
            String(options.limit),
            randomUUID(),
          ),
        );
        if (wait <= 0) return;
        if (now() - started + wait > maxWaitMs) throw new CallBudgetTimeout(options.key, wait);
        await sleep(wait);
      }
    },
  };
}
