// `doctor`'s Redis mode: standalone or cluster, as REDIS_URL says and the server answers, and how the
// answers of a cluster's masters combine into one line per check.
import type { Redis } from 'ioredis';
import { isHashTag, nodesOf, redisTarget } from '../../queues/redis-url.ts';
import type { CheckResult, CheckStatus } from './result.ts';

/** `key:value` lines of an INFO section. */
export function parseInfo(info: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const line of info.split(/\r?\n/)) {
    const i = line.indexOf(':');
    if (i > 0 && !line.startsWith('#')) out.set(line.slice(0, i), line.slice(i + 1).trim());
  }
  return out;
}

/** Per check, the worst answer of the nodes, naming the node when they differ. */
export function worstOf(perNode: CheckResult[][], nodes: Redis[]): CheckResult[] {
  const rank: Record<CheckStatus, number> = { skip: 0, pass: 1, warn: 2, fail: 3 };
  return (perNode[0] ?? []).map((first, i) => {
    const answers = perNode.map((results, n) => ({ result: results[i] ?? first, node: nodes[n] }));
    const worst = answers.reduce((a, b) => (rank[b.result.status] > rank[a.result.status] ? b : a));
    if (answers.every((a) => a.result.detail === worst.result.detail)) return worst.result;
    const at = worst.node ? `${worst.node.options.host}:${worst.node.options.port}` : 'a node';
    return { ...worst.result, detail: `${at}: ${worst.result.detail}` };
  });
}

/**
 * Standalone or cluster, as the URL says and the server answers. A cluster needs `?cluster=true` (else
 * every command on a key of another node fails with MOVED) and a hash-tagged prefix (else scripts and
 * transactions over several keys fail with CROSSSLOT); a replica refuses writes.
 */
export async function modeCheck(
  redis: Redis,
  url: string,
  prefix: string,
  name: string,
): Promise<CheckResult> {
  const wanted = redisTarget(url).cluster;
  const info = parseInfo(await redis.info('cluster').catch(() => ''));
  const enabled = info.get('cluster_enabled') === '1';
  if (enabled && !wanted)
    return {
      name,
      status: 'fail',
      // A prefix that is a hash tag already (the demo's own) needs no advice about REDIS_PREFIX.
      detail: /^\{[^{}]+\}$/.test(prefix)
        ? 'this Redis is a cluster: add ?cluster=true to REDIS_URL'
        : `this Redis is a cluster: add ?cluster=true to REDIS_URL and set REDIS_PREFIX to a hash tag such as {${prefix.replace(/[{}]/g, '')}}`,
    };
  if (!enabled && wanted)
    return { name, status: 'fail', detail: 'REDIS_URL says cluster=true but this Redis is not a cluster' };
  if (!enabled) {
    const role = parseInfo(await redis.info('replication').catch(() => '')).get('role');
    return role === 'slave'
      ? { name, status: 'fail', detail: 'a read-only replica: point REDIS_URL at the primary' }
      : { name, status: 'pass', detail: 'standalone' };
  }
  const state = parseInfo(String(await redis.call('CLUSTER', 'INFO').catch(() => ''))).get('cluster_state');
  const masters = nodesOf(redis).length;
  if (state !== 'ok')
    return { name, status: 'fail', detail: `cluster state ${state ?? 'unknown'} (not every slot is served)` };
  if (!isHashTag(prefix))
    return {
      name,
      status: 'fail',
      detail: `cluster (${masters} masters), but REDIS_PREFIX ${prefix} is not a hash tag: set it to {${prefix.replace(/[{}]/g, '')}} so that scripts and BullMQ keep their keys in one slot`,
    };
  return {
    name,
    status: 'pass',
    detail: `cluster, ${masters} master${masters === 1 ? '' : 's'}, state ok; REDIS_PREFIX ${prefix} keeps every key in one slot`,
  };
}
