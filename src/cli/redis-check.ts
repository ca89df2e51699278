// Every command that needs Redis asks it first, with a short deadline: an unreachable Redis is one
// line in a few seconds, not a command waiting forever on ioredis' reconnects and offline queue. A
// Redis that answers but is not what REDIS_URL says (a cluster node named as a plain URL, a replica,
// a cluster prefix without a hash tag) is one line too, instead of a start that logs "started" and
// then answers every request with MOVED or CROSSSLOT. A Redis user whose ACL refuses a command the
// service needs is refused with the line `doctor`'s `redis permissions` prints, rather than a worker
// failing (BullMQ, refused INFO, retries it without end) or a job failing on NOPERM later.
import { pingRedis, probeClient, RedisUnavailableError } from '../../queues/redis.ts';
import { modeCheck } from '../doctor/redis-mode.ts';
import { permissionsProblem, refusedPermissions } from '../doctor/redis-permissions.ts';
import { endpointOf } from '../shared/network-cause.ts';

export async function requireRedis(url: string, prefix?: string): Promise<void> {
  try {
    await pingRedis(url);
  } catch (err) {
    if (!(err instanceof RedisUnavailableError)) throw err;
    const fix = err.reason.startsWith('authentication')
      ? 'fix the user or password in REDIS_URL'
      : err.reason.startsWith('the cluster is down')
        ? 'bring back a node of those slots (or CLUSTER FAILOVER FORCE on a live replica of them)'
        : 'start Redis or set REDIS_URL';
    throw new Error(`${err.message}: ${fix}`, { cause: err });
  }
  if (prefix === undefined) return;
  const redis = probeClient(url, 5_000);
  redis.on('error', () => undefined);
  let problem: string | undefined;
  try {
    await redis.connect();
    const mode = await modeCheck(redis, url, prefix, 'redis mode');
    // A cluster state that is not ok is a failover in progress, not a setting to fix: start anyway.
    if (mode.status === 'fail' && !mode.detail.startsWith('cluster state')) problem = mode.detail;
    else problem = permissionsProblem(await refusedPermissions(redis, prefix), prefix);
  } catch {
    // It answered PING a moment ago; what cannot be read now the service's own retries deal with.
  } finally {
    redis.disconnect();
  }
  if (problem) throw new Error(`Redis at ${endpointOf(url)}: ${problem}`);
}
