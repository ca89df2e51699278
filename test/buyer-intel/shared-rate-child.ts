// One worker process of shared-rate.test.ts: sends CALLS quick searches through the service's client
// with the rate shared through Redis, as fast as that rate lets it, then exits.
import { redisClient } from '../../queues/redis-url.ts';
import { BuyerIntelClient } from '../../src/buyer-intel/client.ts';
import { sharedRate } from '../../src/buyer-intel/shared-rate.ts';

const env = process.env;
const redis = redisClient(env.REDIS_URL ?? 'redis://127.0.0.1:6379', { maxRetriesPerRequest: null });
const token = 'shared-rate-token';
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
  retry: { maxAttempts: 1 },
});
const calls = Number(env.CALLS);
// A fresh process's first fetch loads its HTTP stack (~200 ms) after its slot is taken, and arrives
// bunched with later ones: the workers measured here are warm, as a running worker is. Not counted.
await Promise.all(Array.from({ length: 4 }, () => fetch(`${env.BASE_URL}/__warm`).then((r) => r.text())));
// A few at a time, as a worker's concurrent jobs do.
let next = 0;
await Promise.all(
  Array.from({ length: 4 }, async () => {
    while (next < calls) {
      next++;
      await client.searchBuyers({ buyerName: `Springfield ${process.pid}` });
    }
  }),
);
redis.disconnect();
