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
// A sender's popped items are noted under its slot (the `held` hash) until it answers them: when its
//   slot is gone and it has not renewed for 3 slot TTLs (the process died), the next push or next
//   answers them as lost, so their jobs retry within ~30 s instead of waiting for the item's deadline.
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

// Needs NOW. reap: answers the items of gone slots as lost (transient: their jobs retry) and drops the
// slots — only once their sender has not renewed for 3 slot TTLs (`u`): a live sender starved past its
// slot's TTL still answers its items. carry: notes which process's items (item JSON: p = process,
// i = item id) a slot popped.
const HELD = `
local LOST = { name = 'SharedBatchSenderLost', permanent = false,
  message = 'the worker sending this item stopped before answering; trying again' }
local function reap(slots, held, replyPrefix, keep)
  redis.call('ZREMRANGEBYSCORE', slots, '-inf', now)
  -- Every slot that popped items and is gone (expired, or the whole set with it).
  local entries = redis.call('HGETALL', held)
  for k = 1, #entries, 2 do
    local slot, entry = entries[k], cjson.decode(entries[k + 1])
    if not redis.call('ZSCORE', slots, slot) and entry.u < now then
      redis.call('HDEL', held, slot)
      for p, ids in pairs(entry.p) do
        local replies = {}
        for _, id in ipairs(ids) do replies[#replies + 1] = { id, 0, LOST } end
        redis.call('RPUSH', replyPrefix .. p, cjson.encode(replies))
        redis.call('PEXPIRE', replyPrefix .. p, keep)
      end
    end
  end
end
local function carry(held, slot, items, keep, ttl)
  local byProcess, any = {}, false
  for _, raw in ipairs(items) do
    local ok, item = pcall(cjson.decode, raw)
    if ok and type(item) == 'table' and type(item.p) == 'string' and type(item.i) == 'string' then
      byProcess[item.p] = byProcess[item.p] or {}
      table.insert(byProcess[item.p], item.i)
      any = true
    end
  end
  if any then
    redis.call('HSET', held, slot, cjson.encode({ u = now + 3 * ttl, p = byProcess }))
    redis.call('PEXPIRE', held, keep)
  end
  return items
end`;

// KEYS: queue, slots, call, held. ARGV: ttlMs, maxInFlight, maxBatch, slotId, queueTtlMs,
// lingerFirst, replyPrefix, items...
const PUSH = `
local CALL, KEEP = KEYS[3], ARGV[5]
${ONCE}
${NOW}
${HELD}
local ttl, maxInFlight, maxBatch = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
if #ARGV > 7 then
  redis.call('RPUSH', KEYS[1], unpack(ARGV, 8))
  redis.call('PEXPIRE', KEYS[1], ARGV[5])
end
reap(KEYS[2], KEYS[4], ARGV[7], KEEP)
local busy = redis.call('ZCARD', KEYS[2])
local len = redis.call('LLEN', KEYS[1])
if len == 0 or busy >= maxInFlight or (busy > 0 and len < maxBatch) then return done(nil) end
redis.call('ZADD', KEYS[2], now + ttl, ARGV[4])
redis.call('PEXPIRE', KEYS[2], ttl)
if ARGV[6] == '1' then return done({}) end
return done(carry(KEYS[4], ARGV[4], redis.call('LPOP', KEYS[1], maxBatch), KEEP, ttl))
`;

// KEYS: queue, slots, call, held, reply lists... ARGV: ttlMs, maxBatch, slotId, replyTtlMs, stop,
// replyPrefix, replies... (one per reply list). stop = '1': answer and free the slot (shutting down).
const NEXT = `
local CALL, KEEP = KEYS[3], ARGV[4]
${ONCE}
${NOW}
${HELD}
local ttl, maxBatch = tonumber(ARGV[1]), tonumber(ARGV[2])
for i = 5, #KEYS do
  redis.call('RPUSH', KEYS[i], ARGV[i + 2])
  redis.call('PEXPIRE', KEYS[i], ARGV[4])
end
redis.call('HDEL', KEYS[4], ARGV[3])
reap(KEYS[2], KEYS[4], ARGV[6], KEEP)
local others = redis.call('ZCARD', KEYS[2])
if redis.call('ZSCORE', KEYS[2], ARGV[3]) then others = others - 1 end
local len = redis.call('LLEN', KEYS[1])
if ARGV[5] ~= '1' and len > 0 and (others == 0 or len >= maxBatch) then
  redis.call('ZADD', KEYS[2], now + ttl, ARGV[3])
  redis.call('PEXPIRE', KEYS[2], ttl)
  return done(carry(KEYS[4], ARGV[3], redis.call('LPOP', KEYS[1], maxBatch), KEEP, ttl))
end
redis.call('ZREM', KEYS[2], ARGV[3])
return done(nil)
`;

// KEYS: slots, held. ARGV: ttlMs, slotId. A sender's heartbeat: its slot lives on while its call
// runs, and its popped items are its own (not reaped) even when the slot lapsed under load.
const RENEW = `
${NOW}
if redis.call('ZSCORE', KEYS[1], ARGV[2]) then
  redis.call('ZADD', KEYS[1], now + tonumber(ARGV[1]), ARGV[2])
  redis.call('PEXPIRE', KEYS[1], ARGV[1])
end
local popped = redis.call('HGET', KEYS[2], ARGV[2])
if popped then
  local entry = cjson.decode(popped)
  entry.u = now + 3 * tonumber(ARGV[1])
  redis.call('HSET', KEYS[2], ARGV[2], cjson.encode(entry))
end
return nil
`;

// KEYS: queue, held, this process's reply list. ARGV: process id, item ids... Which of those items
// Redis holds nowhere — not queued, not popped by a sender, not answered and unread: lost with Redis's
// data (a flush, a failover that dropped writes). Nothing else would ever answer them.
const MISSING = `
local pid, want = ARGV[1], {}
for i = 2, #ARGV do want[ARGV[i]] = true end
for _, raw in ipairs(redis.call('LRANGE', KEYS[1], 0, -1)) do
  local ok, item = pcall(cjson.decode, raw)
  if ok and type(item) == 'table' and item.p == pid then want[item.i] = nil end
end
local entries = redis.call('HGETALL', KEYS[2])
for k = 2, #entries, 2 do
  local ok, entry = pcall(cjson.decode, entries[k])
  if ok and type(entry) == 'table' and type(entry.p) == 'table' and type(entry.p[pid]) == 'table' then
    for _, id in ipairs(entry.p[pid]) do want[id] = nil end
  end
end
for _, raw in ipairs(redis.call('LRANGE', KEYS[3], 0, -1)) do
  local ok, replies = pcall(cjson.decode, raw)
  if ok and type(replies) == 'table' then
    for _, reply in ipairs(replies) do
      if type(reply) == 'table' and reply[1] then want[reply[1]] = nil end
    end
  end
end
local gone = {}
for id in pairs(want) do gone[#gone + 1] = id end
return gone
`;

export interface BatchScripts {
  /** Of this process's waiting items, those Redis holds nowhere (MISSING above). */
  missing(queue: string, replyList: string, pid: string, ids: string[]): Promise<string[]>;
  renew(queue: string, slots: string, slotId: string, ttlMs: number): Promise<unknown>;
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
      /** Reply lists are this followed by the process id. */
      replyPrefix: string;
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
      replyPrefix: string;
    },
    replies: [list: string, payload: string][],
  ): Promise<string[] | null>;
}

type Scripted = Redis & {
  batchPush(...args: (string | number)[]): Promise<string[] | null>;
  batchNext(...args: (string | number)[]): Promise<string[] | null>;
  batchRenew(...args: (string | number)[]): Promise<unknown>;
  batchMissing(...args: string[]): Promise<string[]>;
};

export function batchScripts(redis: Redis): BatchScripts {
  const r = redis as Scripted;
  if (typeof r.batchPush !== 'function') {
    redis.defineCommand('batchPush', { numberOfKeys: 4, lua: PUSH });
    redis.defineCommand('batchNext', { lua: NEXT });
    redis.defineCommand('batchRenew', { numberOfKeys: 2, lua: RENEW });
    redis.defineCommand('batchMissing', { numberOfKeys: 3, lua: MISSING });
  }
  return {
    missing: (queue, replyList, pid, ids) => r.batchMissing(queue, `${queue}:held`, replyList, pid, ...ids),
    renew: (queue, slots, slotId, ttlMs) => r.batchRenew(slots, `${queue}:held`, ttlMs, slotId),
    push: (queue, slots, a, lingerFirst, items) =>
      r.batchPush(
        queue,
        slots,
        `${queue}:call:${a.callId}`,
        `${queue}:held`,
        a.ttlMs,
        a.maxInFlight,
        a.maxBatch,
        a.slotId,
        a.queueTtlMs,
        lingerFirst ? '1' : '0',
        a.replyPrefix,
        ...items,
      ),
    next: (queue, slots, a, replies) =>
      r.batchNext(
        4 + replies.length,
        queue,
        slots,
        `${queue}:call:${a.callId}`,
        `${queue}:held`,
        ...replies.map(([list]) => list),
        a.ttlMs,
        a.maxBatch,
        a.slotId,
        a.replyTtlMs,
        a.stop ? '1' : '0',
        a.replyPrefix,
        ...replies.map(([, payload]) => payload),
      ),
  };
}
