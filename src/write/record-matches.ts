// The last step of a job on the ledgers (ledgers.ts): the values it wrote, and its account's buyer in
// the index of matches both ways (off a previous buyer's set, onto the new one's). Jobs that end at
// the same moment — a chunk's accounts, resumed by one write batch's answer — are recorded in one
// script call (by SHA): one HSET of written values per account, and one HMGET, HSET, HDEL for the
// whole index, with one SREM / SADD per buyer, instead of a script and four commands per account.
// Every key shares the ledgers' prefix and its hash tag: one slot on a Redis Cluster.
import type { Redis } from 'ioredis';
import { Batcher } from '../batch/batcher.ts';

// KEYS: the index (hash member → buyer), then each account's written-values hash. ARGV[1]: the prefix
// of a buyer's set of members; then per account: member, buyer ('' for none), n, n field/value pairs.
const RECORD = `local entries, members, at = {}, {}, 2
for i = 2, #KEYS do
  local n = tonumber(ARGV[at + 2])
  if n > 0 then redis.call('HSET', KEYS[i], unpack(ARGV, at + 3, at + 2 + 2 * n)) end
  entries[#entries + 1] = { ARGV[at], ARGV[at + 1] }
  members[#members + 1] = ARGV[at]
  at = at + 3 + 2 * n
end
local previous = redis.call('HMGET', KEYS[1], unpack(members))
local set, gone, adds, rems = {}, {}, {}, {}
for i, e in ipairs(entries) do
  local before = previous[i] or ''
  if before ~= e[2] then
    if before ~= '' then
      rems[before] = rems[before] or {}
      table.insert(rems[before], e[1])
    end
    if e[2] == '' then gone[#gone + 1] = e[1]
    else
      set[#set + 1] = e[1]
      set[#set + 1] = e[2]
      adds[e[2]] = adds[e[2]] or {}
      table.insert(adds[e[2]], e[1])
    end
  end
end
for buyer, ms in pairs(rems) do redis.call('SREM', ARGV[1] .. buyer, unpack(ms)) end
if #gone > 0 then redis.call('HDEL', KEYS[1], unpack(gone)) end
if #set > 0 then redis.call('HSET', KEYS[1], unpack(set)) end
for buyer, ms in pairs(adds) do redis.call('SADD', ARGV[1] .. buyer, unpack(ms)) end
return 0`;

export interface MatchRecord {
  /** The account's hash of values we wrote. */
  fieldsKey: string;
  /** The account as a member of the index. */
  member: string;
  /** Its buyer now; null: none. */
  buyerId: string | null;
  written: Record<string, string>;
}

type Scripted = Redis & { bisRecordMatches(...args: string[]): Promise<unknown> };

/** Records as they come, those of one moment together (at most 100 a call, one call at a time). */
export function matchRecorder(
  redis: Redis,
  matchesKey: string,
  buyerKeyPrefix: string,
): (record: MatchRecord) => Promise<void> {
  if (typeof (redis as Scripted).bisRecordMatches !== 'function')
    redis.defineCommand('bisRecordMatches', { lua: RECORD });
  const batcher = new Batcher<MatchRecord, void>({
    maxBatch: 100,
    // One at a time: what ends while a call is in flight leaves with the next one.
    maxInFlight: 1,
    async send(records) {
      // One entry per account (its last); the values of each are written in order.
      const last = new Map(records.map((r) => [r.member, r]));
      const keys = [...last.values()].map((r) => r.fieldsKey);
      const args = [...last.values()].flatMap((r) => {
        const written = Object.assign(
          {},
          ...records.filter((o) => o.member === r.member).map((o) => o.written),
        ) as Record<string, string>;
        const pairs = Object.entries(written).flat();
        return [r.member, r.buyerId ?? '', String(pairs.length / 2), ...pairs];
      });
      await (redis as Scripted).bisRecordMatches(
        String(1 + keys.length),
        matchesKey,
        ...keys,
        buyerKeyPrefix,
        ...args,
      );
      return records.map(() => undefined);
    },
  });
  return (record) => batcher.submit(record);
}
