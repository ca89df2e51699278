// Redis connections as BullMQ wants them: workers block, so they must never give up on a command
// (maxRetriesPerRequest null); producers (the webhook receiver) must fail fast instead of queueing
// commands while Redis is down, so that the CRM gets a 5xx and retries the delivery.
import { Redis } from 'ioredis';

export type RedisRole = 'worker' | 'producer';

/**
 * ioredis reconnects by itself; its connection errors are reported to `onError` (a log line) instead
 * of crashing the process as an unhandled 'error' event. /readyz tells whether Redis answers.
 */
export function createRedis(url: string, role: RedisRole, onError: (err: Error) => void = () => {}): Redis {
  const redis = new Redis(url, {
    maxRetriesPerRequest: role === 'worker' ? null : 1,
    enableOfflineQueue: role === 'worker',
    lazyConnect: false,
  });
  let last = 0;
  redis.on('error', (err: Error) => {
    // One line per 10 s at most while Redis stays down.
    if (Date.now() - last < 10_000) return;
    last = Date.now();
    onError(err);
  });
  return redis;
}
