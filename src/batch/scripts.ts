// The two atomic steps of a shared batch channel (Lua, so no item is ever stranded between them).
// A key's senders hold slots in a sorted set scored by their expiry (Redis TIME), renewed while their
// call runs: a sender that dies stops counting once its slot expires, and a waiting process takes over.
//
// push: a process's items of one tick in one RPUSH; then, if the key may take a sender — no slot held,
//   or a full batch waits and fewer than maxInFlight are held — take a slot and pop up to maxBatch
//   (or pop nothing when the caller lingers first). Answers nil when another sender has the items.
// next: a sender's answers, one RPUSH per submitting process; then either the next batch (nothing
//   else in flight, or a full batch waits) with the slot renewed, or the slot released. A push either
//   lands before `next` looks (and is sent) or after the slot is gone (and takes it).
// Both are idempotent by a call id: ioredis re-sends a command whose answer a dropped connection lost
// (a Redis restart), and a second run would push the items twice (sent twice: a note made twice) or
// pop a second batch while the first one's answer is gone (its items never sent). The first run's
// answer is kept under the call id for as long as an item may wait, and a re-sent call gets it back.
import type { Redis } from 'ioredis';

const NOW = `local t = redis.call('TIME'); local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)`;

// A call run before answers what it answered then; otherwise `done(result)` keeps the answer. Needs
// CALL (the call id's key) and KEEP (ms) set first.
const ONCE = `
local seen = redis.call('GET', CALL)
if seen then
  if seen == 'N' then return nil end
  return cjson.decode(seen)
end
local function done(result)
  if result then redis.call('SET', CALL, cjson.encode(result), 'PX', KEEP)
  else redis.call('SET', CALL, 'N', 'PX', KEEP) end
  return result
end`;

// KEYS: queue, slots, call. ARGV: ttlMs, maxInFlight, maxBatch, slotId, queueTtlMs, lingerFirst,
// items...
const PUSH = `
local CALL, KEEP = KEYS[3], ARGV[5]
${ONCE}
${NOW}
local ttl, maxInFlight, maxBatch = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
if #ARGV > 6 then
  redis.call('RPUSH', KEYS[1], unpack(ARGV, 7))
  redis.call('PEXPIRE', KEYS[1], ARGV[5])
end
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now)
local busy = redis.call('ZCARD', KEYS[2])
local len = redis.call('LLEN', KEYS[1])
if len == 0 or busy >= maxInFlight or (busy > 0 and len < maxBatch) then return done(nil) end
redis.call('ZADD', KEYS[2], now + ttl, ARGV[4])
redis.call('PEXPIRE', KEYS[2], ttl)
if ARGV[6] == '1' then return done({}) end
return done(redis.call('LPOP', KEYS[1], maxBatch))
`;

// KEYS: queue, slots, call, reply lists... ARGV: ttlMs, maxBatch, slotId, replyTtlMs, stop, replies...
// (one per reply list). stop = '1': answer and free the slot (a process shutting down).
const NEXT = `
local CALL, KEEP = KEYS[3], ARGV[4]
${ONCE}
${NOW}
local ttl, maxBatch = tonumber(ARGV[1]), tonumber(ARGV[2])
for i = 4, #KEYS do
  redis.call('RPUSH', KEYS[i], ARGV[i + 2])
  redis.call('PEXPIRE', KEYS[i], ARGV[4])
end
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now)
local others = redis.call('ZCARD', KEYS[2])
if redis.call('ZSCORE', KEYS[2], ARGV[3]) then others = others - 1 end
local len = redis.call('LLEN', KEYS[1])
if ARGV[5] ~= '1' and len > 0 and (others == 0 or len >= maxBatch) then
  redis.call('ZADD', KEYS[2], now + ttl, ARGV[3])
  redis.call('PEXPIRE', KEYS[2], ttl)
  return done(redis.call('LPOP', KEYS[1], maxBatch))
end
redis.call('ZREM', KEYS[2], ARGV[3])
return done(nil)
`;

// KEYS: slots. ARGV: ttlMs, slotId. A sender's heartbeat: its slot lives on while its call runs.
const RENEW = `
${NOW}
if redis.call('ZSCORE', KEYS[1], ARGV[2]) then
  redis.call('ZADD', KEYS[1], now + tonumber(ARGV[1]), ARGV[2])
  redis.call('PEXPIRE', KEYS[1], ARGV[1])
end
return nil
`;

export interface BatchScripts {
  renew(slots: string, slotId: string, ttlMs: number): Promise<unknown>;
  push(
    queue: string,
    slots: string,
    args: {
      ttlMs: number;
      maxInFlight: number;
      maxBatch: number;
      slotId: string;
      queueTtlMs: number;
      callId: string;
    },
    lingerFirst: boolean,
    items: string[],
  ): Promise<string[] | null>;
  next(
    queue: string,
    slots: string,
    args: {
      ttlMs: number;
      maxBatch: number;
      slotId: string;
      replyTtlMs: number;
      stop: boolean;
      callId: string;
    },
    replies: [list: string, payload: string][],
  ): Promise<string[] | null>;
}

type Scripted = Redis & {
  batchPush(...args: (string | number)[]): Promise<string[] | null>;
  batchNext(...args: (string | number)[]): Promise<string[] | null>;
  batchRenew(...args: (string | number)[]): Promise<unknown>;
};

export function batchScripts(redis: Redis): BatchScripts {
  const r = redis as Scripted;
  if (typeof r.batchPush !== 'function') {
    redis.defineCommand('batchPush', { numberOfKeys: 3, lua: PUSH });
    redis.defineCommand('batchNext', { lua: NEXT });
    redis.defineCommand('batchRenew', { numberOfKeys: 1, lua: RENEW });
  }
  return {
    renew: (slots, slotId, ttlMs) => r.batchRenew(slots, ttlMs, slotId),
    push: (queue, slots, a, lingerFirst, items) =>
      r.batchPush(
        queue,
        slots,
        `${queue}:call:${a.callId}`,
        a.ttlMs,
        a.maxInFlight,
        a.maxBatch,
        a.slotId,
        a.queueTtlMs,
        lingerFirst ? '1' : '0',
        ...items,
      ),
    next: (queue, slots, a, replies) =>
      r.batchNext(
        3 + replies.length,
        queue,
        slots,
        `${queue}:call:${a.callId}`,
        ...replies.map(([list]) => list),
        a.ttlMs,
        a.maxBatch,
        a.slotId,
        a.replyTtlMs,
        a.stop ? '1' : '0',
        ...replies.map(([, payload]) => payload),
      ),
  };
}
