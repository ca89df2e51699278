// What a worker process of the shared-pace tests builds from its environment: a Redis connection and
// the service's client paced by the rate shared through it (REDIS_URL, PREFIX, BASE_URL, RATE, BURST).
import { redisClient } from '../../queues/redis-url.ts';
import { BuyerIntelClient, type BuyerIntelClientOptions } from '../../src/buyer-intel/client.ts';
import { sharedRate } from '../../src/buyer-intel/shared-rate.ts';

export function childClient(token: string, retry?: BuyerIntelClientOptions['retry']) {
  const env = process.env;
  const redis = redisClient(env.REDIS_URL ?? 'redis://127.0.0.1:6379', { maxRetriesPerRequest: null });
  const limiter = sharedRate({
    redis,
    prefix: String(env.PREFIX),
    token,
    ratePerSecond: Number(env.RATE),
    burst: Number(env.BURST),
  });
  const client = new BuyerIntelClient({
    baseUrl: String(env.BASE_URL),
    token,
    limiter,
    ...(retry ? { retry } : {}),
  });
  return { client, redis };
}
