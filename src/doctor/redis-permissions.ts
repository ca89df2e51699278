// `doctor`'s `redis permissions` line, and the same look at every command's start: does the Redis user
// (an ACL user on a managed Redis) may run what the service runs, on the keys under REDIS_PREFIX? A
// user cannot read its own ACL (ACL GETUSER and DRYRUN are admin commands), so each command is tried
// for real on keys of its own under the prefix, deleted at once: the ones run outside scripts by BullMQ
// and ioredis (INFO for the server version, CLIENT SETNAME, EVALSHA, SCRIPT LOAD, MULTI, BZPOPMIN) one
// by one, and the data commands of BullMQ's scripts and ours inside one script (`redis.pcall`, which an
// ACL refusal does not abort). What is refused is named with the ACL rule that permits it.
import { createHash, randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { CheckResult } from './result.ts';

/** A refused command answers NOPERM (Redis 7.0: "…to run the 'info' command"). */
const isNoPerm = (err: unknown): err is Error => err instanceof Error && /^NOPERM\b/.test(err.message);
/** The refused command's ACL name (`client|setname`), from a NOPERM answer. */
const refusedName = (err: Error, fallback: string): string =>
  /run the '([^']+)' command/.exec(err.message)?.[1]?.toLowerCase() ?? fallback;
const keyRefused = (err: Error) =>
  /access one of the keys|access a key|keys used as arguments/.test(err.message);

// Every data command BullMQ 6.7's scripts and ours run (rcall / redis.call), on keys of each type;
// KEYS: 1 string, 2 hash, 3 sorted set, 4 list, 5 set, 6 stream, 7 a second list, 8 a rename target.
const PROBE_SCRIPT = `
local s, h, z, l, st, x, l2, r = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5], KEYS[6], KEYS[7], KEYS[8]
local probes = {
  {'SET', s, '1', 'PX', '60000'}, {'GET', s}, {'MGET', s}, {'INCR', s}, {'INCRBY', s, '1'},
  {'PEXPIRE', s, '60000'}, {'PEXPIREAT', s, '9999999999999'}, {'PTTL', s}, {'EXISTS', s}, {'TYPE', s},
  {'RENAME', s, r}, {'GETDEL', r},
  {'HSET', h, 'f', '1'}, {'HMSET', h, 'g', '1'}, {'HGET', h, 'f'}, {'HMGET', h, 'f'}, {'HGETALL', h},
  {'HINCRBY', h, 'f', '1'}, {'HEXISTS', h, 'f'}, {'HLEN', h}, {'HSCAN', h, '0'}, {'HDEL', h, 'f'},
  {'ZADD', z, '1', 'a'}, {'ZSCORE', z, 'a'}, {'ZCARD', z}, {'ZCOUNT', z, '-inf', '+inf'},
  {'ZLEXCOUNT', z, '-', '+'}, {'ZRANGE', z, '0', '-1'}, {'ZREVRANGE', z, '0', '-1'},
  {'ZRANGEBYSCORE', z, '-inf', '+inf'}, {'ZREVRANGEBYSCORE', z, '+inf', '-inf'}, {'ZRANGEBYLEX', z, '-', '+'},
  {'ZREM', z, 'b'}, {'ZREMRANGEBYSCORE', z, '5', '6'}, {'ZREMRANGEBYRANK', z, '5', '6'}, {'ZPOPMIN', z},
  {'LPUSH', l, 'a'}, {'RPUSH', l, 'b'}, {'LRANGE', l, '0', '-1'}, {'LLEN', l}, {'LINDEX', l, '0'},
  {'LPOS', l, 'a'}, {'LSET', l, '0', 'c'}, {'LREM', l, '0', 'x'}, {'RPOPLPUSH', l, l2}, {'LTRIM', l, '0', '9'},
  {'LPOP', l}, {'RPOP', l},
  {'SADD', st, 'a'}, {'SISMEMBER', st, 'a'}, {'SMISMEMBER', st, 'a'}, {'SMEMBERS', st}, {'SCARD', st},
  {'SREM', st, 'a'},
  {'XADD', x, '*', 'f', '1'}, {'XLEN', x}, {'XRANGE', x, '-', '+'}, {'XREVRANGE', x, '+', '-'},
  {'XREAD', 'COUNT', '1', 'STREAMS', x, '0'}, {'XTRIM', x, 'MAXLEN', '9'}, {'XDEL', x, '0-1'},
  {'SCAN', '0', 'COUNT', '1'}, {'TIME'}, {'UNLINK', l2},
}
local refused = {}
for _, p in ipairs(probes) do
  local reply = redis.pcall(unpack(p))
  if type(reply) == 'table' and reply.err and (string.find(reply.err, "can't run", 1, true)
      or string.find(reply.err, "can't access", 1, true)) then
    refused[#refused + 1] = string.lower(p[1])
  end
end
for i = 1, #KEYS do redis.pcall('DEL', KEYS[i]) end
return refused`;

const SHA_OF_RETURN_0 = createHash('sha1').update('return 0').digest('hex');

/**
 * What the Redis user may not do of what the service needs: ACL command names and whether the keys
 * under the prefix are refused. Throws what is not a refusal (a replica's READONLY, CROSSSLOT, a lost
 * connection): the look could not be made.
 */
export async function refusedPermissions(
  redis: Redis,
  prefix: string,
): Promise<{ commands: string[]; keys: boolean }> {
  const commands = new Set<string>();
  let keys = false;
  const attempt = async (fallback: string, run: () => Promise<unknown>) => {
    try {
      await run();
    } catch (caught) {
      // A transaction with a refused command is discarded (EXECABORT); the refusal is the one before.
      const err = (caught as { previousErrors?: unknown[] }).previousErrors?.[0] ?? caught;
      if (!isNoPerm(err)) {
        // NOSCRIPT: EVALSHA was permitted and found no script, as for a script not yet loaded.
        if (err instanceof Error && /^NOSCRIPT\b/.test(err.message)) return;
        throw err;
      }
      if (keyRefused(err)) keys = true;
      else commands.add(refusedName(err, fallback));
    }
  };
  const base = `${prefix}:doctor:probe:${randomUUID()}`;
  const probeKeys = ['s', 'h', 'z', 'l', 'st', 'x', 'l2', 'r'].map((k) => `${base}:${k}`);
  const [first] = probeKeys as [string];
  // BullMQ reads the server version with INFO on every connection, and cannot connect without it.
  await attempt('info', () => redis.info('server'));
  // BullMQ names its workers' connections; a refused name fails the worker.
  await attempt('client|setname', () => redis.client('SETNAME', 'buyer-intel-sync-probe'));
  await attempt('evalsha', () => redis.evalsha(SHA_OF_RETURN_0, 0));
  // ioredis loads a pipeline's scripts with SCRIPT EXISTS / LOAD before sending it.
  await attempt('script|exists', () => redis.script('EXISTS', SHA_OF_RETURN_0));
  await attempt('script|load', () => redis.script('LOAD', 'return 0'));
  await attempt('multi', async () => {
    const replies = await redis.multi().exists(first).exec();
    const failed = replies?.find(([err]) => err)?.[0];
    if (failed) throw failed;
  });
  await attempt('bzpopmin', () => redis.bzpopmin(first, 0.01));
  await attempt('eval', async () => {
    const refused = (await redis.eval(PROBE_SCRIPT, probeKeys.length, ...probeKeys)) as string[];
    for (const name of refused) commands.add(name);
  });
  return { commands: [...commands], keys };
}

/**
 * The one line that says what the ACL lacks (the same for doctor and for a refused start), or
 * undefined when nothing the service needs is refused.
 */
export function permissionsProblem(
  refused: { commands: string[]; keys: boolean },
  prefix: string,
): string | undefined {
  const { commands, keys } = refused;
  if (!keys && !commands.length) return undefined;
  const what = [
    ...(keys ? [`use the keys under ${prefix}:*`] : []),
    ...(commands.length ? [`run ${commands.map((c) => c.toUpperCase()).join(', ')}`] : []),
  ].join(' nor ');
  const rules = [...(keys ? [`~${prefix}:*`] : []), ...commands.map((c) => `+${c}`)].join(' ');
  return `the Redis user may not ${what}, which the service needs: add ${rules} to its ACL (docs/operations.md gives the whole line)`;
}

export async function permissionsCheck(redis: Redis, prefix: string, name: string): Promise<CheckResult> {
  try {
    const problem = permissionsProblem(await refusedPermissions(redis, prefix), prefix);
    return problem
      ? { name, status: 'fail', detail: problem }
      : { name, status: 'pass', detail: `every command the service runs is permitted on ${prefix}:*` };
  } catch (err) {
    return {
      name,
      status: 'warn',
      detail: `cannot check: ${err instanceof Error ? err.message.split('\n')[0] : String(err)}`,
    };
  }
}
