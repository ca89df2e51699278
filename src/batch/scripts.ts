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
import type { Redis } from 'ioredis';

const NOW = `local t = redis.call('TIME'); local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)`;

// KEYS: queue, slots. ARGV: ttlMs, maxInFlight, maxBatch, slotId, queueTtlMs, lingerFirst, items...
const PUSH = `
${NOW}
local ttl, maxInFlight, maxBatch = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
if #ARGV > 6 then
  redis.call('RPUSH', KEYS[1], unpack(ARGV, 7))
  redis.call('PEXPIRE', KEYS[1], ARGV[5])
end
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now)
local busy = redis.call('ZCARD', KEYS[2])
local len = redis.call('LLEN', KEYS[1])
if len == 0 or busy >= maxInFlight or (busy > 0 and len < maxBatch) then return nil end
redis.call('ZADD', KEYS[2], now + ttl, ARGV[4])
redis.call('PEXPIRE', KEYS[2], ttl)
if ARGV[6] == '1' then return {} end
return redis.call('LPOP', KEYS[1], maxBatch)
`;

// KEYS: queue, slots, reply lists... ARGV: ttlMs, maxBatch, slotId, replyTtlMs, stop, replies... (one
// per reply list). stop = '1': answer and free the slot (a process shutting down).
const NEXT = `
${NOW}
local ttl, maxBatch = tonumber(ARGV[1]), tonumber(ARGV[2])
for i = 3, #KEYS do
  redis.call('RPUSH', KEYS[i], ARGV[i + 3])
  redis.call('PEXPIRE', KEYS[i], ARGV[4])
end
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now)
local others = redis.call('ZCARD', KEYS[2])
if redis.call('ZSCORE', KEYS[2], ARGV[3]) then others = others - 1 end
local len = redis.call('LLEN', KEYS[1])
if ARGV[5] ~= '1' and len > 0 and (others == 0 or len >= maxBatch) then
  redis.call('ZADD', KEYS[2], now + ttl, ARGV[3])
  redis.call('PEXPIRE', KEYS[2], ttl)
  return redis.call('LPOP', KEYS[1], maxBatch)
end
redis.call('ZREM', KEYS[2], ARGV[3])
return nil
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
    args: { ttlMs: number; maxInFlight: number; maxBatch: number; slotId: string; queueTtlMs: number },
    lingerFirst: boolean,
    items: string[],
  ): Promise<string[] | null>;
  next(
    queue: string,
    slots: string,
    args: { ttlMs: number; maxBatch: number; slotId: string; replyTtlMs: number; stop: boolean },
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
    redis.defineCommand('batchPush', { numberOfKeys: 2, lua: PUSH });
    redis.defineCommand('batchNext', { lua: NEXT });
    redis.defineCommand('batchRenew', { numberOfKeys: 1, lua: RENEW });
  }
  return {
    renew: (slots, slotId, ttlMs) => r.batchRenew(slots, ttlMs, slotId),
    push: (queue, slots, a, lingerFirst, items) =>
      r.batchPush(
        queue,
        slots,
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
        2 + replies.length,
        queue,
        slots,
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
