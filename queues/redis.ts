// Redis connections as BullMQ wants them: workers block, so they must never give up on a command
// (maxRetriesPerRequest null); producers (the webhook receiver) must fail fast instead of queueing
// commands while Redis is down, so that the CRM gets a 5xx and retries the delivery.
// One REDIS_URL says where and how (queues/redis-url.ts): a single Redis or a Redis Cluster
// (`?cluster=true`, the URL naming any node), TLS (rediss://, certificates), an ACL user and password.
import type { Redis, RedisOptions } from 'ioredis';
import { IntegrationError } from '../src/shared/errors.ts';
import { endpointOf, networkCause } from '../src/shared/network-cause.ts';
import { clusterDownCause } from './cluster-cause.ts';
import { redisClient } from './redis-url.ts';
import { writeTogether } from './redis-writes.ts';

export type RedisRole = 'worker' | 'producer';
export type { RedisOptions };
export { redisClient };

/**
 * ioredis reconnects by itself; its connection errors are reported to `onError` (a log line) instead
 * of crashing the process as an unhandled 'error' event. /readyz tells whether Redis answers.
 */
export function createRedis(url: string, role: RedisRole, onError: (err: Error) => void = () => {}): Redis {
  const redis = redisClient(url, {
    maxRetriesPerRequest: role === 'worker' ? null : 1,
    enableOfflineQueue: role === 'worker',
    lazyConnect: false,
  });
  writeTogether(redis);
  let last = 0;
  redis.on('error', (err: Error) => {
    // One line per 10 s at most while Redis stays down.
    if (Date.now() - last < 10_000) return;
    last = Date.now();
    onError(err);
  });
  return redis;
}

/** How long a command waits for Redis to answer its first PING before it gives up. */
export const REDIS_PING_TIMEOUT_MS = 3_000;

/** Redis did not answer a PING: where (no password) and why, in words. */
export class RedisUnavailableError extends IntegrationError {
  /** `redis://host:port`, without credentials. */
  readonly endpoint: string;
  /** "connection refused", "host not found in DNS", "timed out", "authentication failed", … */
  readonly reason: string;
  constructor(endpoint: string, reason: string) {
    super(`Redis does not answer at ${endpoint} (${reason})`, { permanent: false });
    this.endpoint = endpoint;
    this.reason = reason;
  }
}

/** The reason a connection to Redis failed, from what ioredis reported (its own error says little). */
export function redisFailureReason(err: unknown, url: string): string {
  const message = err instanceof Error ? err.message : String(err);
  if (/^(NOAUTH|WRONGPASS)\b|invalid password|invalid username-password/i.test(message))
    return /^NOAUTH/.test(message)
      ? 'authentication failed: Redis wants a password (redis://:password@host)'
      : 'authentication failed: wrong user or password';
  // ioredis' Cluster says only this when the node refused CLUSTER SLOTS (or none answered it).
  if (/refresh slots cache/i.test(message))
    return 'no cluster answered at this address (is it a Redis Cluster? else drop ?cluster=true)';
  const cause = networkCause(err);
  // A rediss:// URL on a port that does not speak TLS waits for a handshake that never comes.
  if (cause?.startsWith('timed out') && url.startsWith('rediss:'))
    return `${cause} (TLS handshake: is it a TLS port?)`;
  if (cause) return cause;
  return /connection is closed/i.test(message) ? 'connection closed' : message.split('\n')[0] || 'no answer';
}

/**
 * A client for one short look (a PING, doctor's checks): it connects when asked, fails instead of
 * queueing or retrying, and gives up connecting after `connectTimeoutMs`, so a Redis that is not there
 * is said in seconds. Its 'error' events are the caller's to listen to.
 */
export function probeClient(url: string, connectTimeoutMs: number): Redis {
  return redisClient(url, {
    lazyConnect: true,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
    connectTimeout: connectTimeoutMs,
    // ioredis' ready check is an INFO, which an ACL user may be refused (it then warns on the console
    // and goes on): a look answers for itself, a Redis still loading says LOADING to its command.
    enableReadyCheck: false,
  });
}

/**
 * One PING with a short deadline, no reconnects and no offline queue, so an unreachable Redis is said
 * in seconds instead of retried forever. Resolves when Redis answered PONG; rejects with
 * RedisUnavailableError otherwise.
 */
export async function pingRedis(url: string, timeoutMs = REDIS_PING_TIMEOUT_MS): Promise<void> {
  const endpoint = endpointOf(url);
  const redis = probeClient(url, timeoutMs);
  // ioredis rejects with "Connection is closed."; the error event before it says why.
  let reported: Error | undefined;
  redis.on('error', (err: Error) => {
    reported ??= err;
  });
  let timer: NodeJS.Timeout | undefined;
  const timedOut = Object.assign(new Error(`no answer within ${timeoutMs} ms`), { code: 'ETIMEDOUT' });
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(timedOut), timeoutMs);
  });
  try {
    await Promise.race([
      (async () => {
        await redis.connect();
        await redis.ping();
      })(),
      deadline,
    ]);
  } catch (err) {
    redis.disconnect();
    // A cluster that lost a master and its replica refuses everything, which reads as a timeout
    // against a seed that is alive: ask the seeds why before blaming the network (cluster-cause.ts).
    const down = await clusterDownCause(url, timeoutMs).catch(() => undefined);
    throw new RedisUnavailableError(endpoint, down ?? redisFailureReason(reported ?? err, url));
  } finally {
    clearTimeout(timer);
    redis.disconnect();
  }
}
