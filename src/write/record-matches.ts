// The last step of a job on the ledgers (ledgers.ts): its account's buyer in the index of matches both
// ways (off a previous buyer's set, onto the new one's). Jobs that end at the same moment — a chunk's
// accounts, resumed by one write batch's answer — are recorded in one script call (by SHA): one HMGET,
// HSET, HDEL for the whole index, with one SREM / SADD per buyer, instead of a script per account.
// Every key shares the ledgers' prefix and its hash tag: one slot on a Redis Cluster.
import type { Redis } from 'ioredis';
import { Batcher } from '../batch/batcher.ts';

// KEYS[1]: the index (hash member → buyer). ARGV[1]: the prefix of a buyer's set of members; then per
// account: member, buyer ('' for none).
const RECORD = `local entries, members = {}, {}
for at = 2, #ARGV, 2 do
  entries[#entries + 1] = { ARGV[at], ARGV[at + 1] }
  members[#members + 1] = ARGV[at]
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
  /** The account as a member of the index. */
  member: string;
  /** Its buyer now; null: none. */
  buyerId: string | null;
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
      // One entry per account: its last.
      const last = new Map(records.map((r) => [r.member, r]));
      const args = [...last.values()].flatMap((r) => [r.member, r.buyerId ?? '']);
      await (redis as Scripted).bisRecordMatches('1', matchesKey, buyerKeyPrefix, ...args);
      return records.map(() => undefined);
    },
  });
  return (record) => batcher.submit(record);
}
