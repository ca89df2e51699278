// The service's two Redis connections: one for workers (blocking commands, locks, budgets) and one
// for producers (enqueueing from HTTP), so a slow blocking read never delays a webhook's answer.
import type { Redis } from 'ioredis';
import { createRedis } from '../../queues/redis.ts';
import type { Logger } from '../observe/logger.ts';

export interface RedisConnections {
  worker: Redis;
  producer: Redis;
  close(): void;
}

export function connectRedis(url: string, logger: Logger): RedisConnections {
  const onError = (role: string) => (err: Error) =>
    logger.warn({ role, reason: err.message }, 'Redis connection error; retrying');
  const worker = createRedis(url, 'worker', onError('worker'));
  const producer = createRedis(url, 'producer', onError('producer'));
  return {
    worker,
    producer,
    close() {
      worker.disconnect();
      producer.disconnect();
    },
  };
}
