// Redis connections as BullMQ wants them: workers block, so they must never give up on a command
// (maxRetriesPerRequest null); producers (the webhook receiver) must fail fast instead of queueing
// commands while Redis is down, so that the CRM gets a 5xx and retries the delivery.
import { Redis } from 'ioredis';

export type RedisRole = 'worker' | 'producer';

export function createRedis(url: string, role: RedisRole): Redis {
  return new Redis(url, {
    maxRetriesPerRequest: role === 'worker' ? null : 1,
    enableOfflineQueue: role === 'worker',
    lazyConnect: false,
  });
}
