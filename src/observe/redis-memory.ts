// What Redis says of its memory, for the "Redis memory" alert (docs/operations.md): BullMQ needs
// noeviction, so a Redis at its maxmemory refuses writes (webhooks answer 503, jobs stop moving) rather
// than dropping keys, and the gap between used and max is the only warning. Managed Redis rarely runs
// an exporter next to it, so the service reports what INFO says, at scrape time, over the connection
// its queues already hold. On a cluster: the master nearest its limit (the one that fails first).
import type { Redis } from 'ioredis';
import { nodesOf } from '../../queues/redis-url.ts';

export interface RedisMemory {
  /** INFO memory's used_memory. */
  usedBytes: number;
  /** INFO memory's maxmemory; 0 = no limit (Redis grows until the host or container kills it). */
  maxBytes: number;
  /** INFO stats' evicted_keys since Redis started: anything above 0 lost data under noeviction's absence. */
  evictedKeys: number;
}

/** The fields of an INFO answer (`name:value` lines; `#` section headers skipped). */
export function infoFields(info: string): Map<string, string> {
  const fields = new Map<string, string>();
  for (const line of info.split(/\r?\n/)) {
    const at = line.indexOf(':');
    if (at > 0 && !line.startsWith('#')) fields.set(line.slice(0, at), line.slice(at + 1).trim());
  }
  return fields;
}

/** The memory figures of one node's INFO, or undefined when it shows none (a proxy, a refused INFO). */
export function memoryOf(info: string): RedisMemory | undefined {
  const fields = infoFields(info);
  const number = (name: string) => {
    const value = Number(fields.get(name));
    return Number.isFinite(value) ? value : undefined;
  };
  const usedBytes = number('used_memory');
  if (usedBytes === undefined) return undefined;
  return { usedBytes, maxBytes: number('maxmemory') ?? 0, evictedKeys: number('evicted_keys') ?? 0 };
}

/** How full a node is: used ÷ max, or 0 without a limit (such a node is judged by its own figures). */
const fullness = (m: RedisMemory) => (m.maxBytes > 0 ? m.usedBytes / m.maxBytes : 0);

/**
 * Every master's figures, the fullest one's reported (its evictions summed over all of them). Undefined
 * when no node answers INFO (down, or an ACL without it): the gauges are then absent, not zero.
 */
export async function readRedisMemory(redis: Redis): Promise<RedisMemory | undefined> {
  const readings = await Promise.all(
    nodesOf(redis).map((node) =>
      node.info().then(
        (info) => memoryOf(info),
        () => undefined,
      ),
    ),
  );
  const known = readings.filter((m): m is RedisMemory => m !== undefined);
  const [first, ...rest] = known;
  if (!first) return undefined;
  const fullest = rest.reduce((worst, m) => (fullness(m) > fullness(worst) ? m : worst), first);
  return { ...fullest, evictedKeys: known.reduce((n, m) => n + m.evictedKeys, 0) };
}
