// A worker process of the enrichment benchmark: builds the service from the settings the parent sends
// (BENCH_SETTINGS, JSON) and runs `startWorker()`, exactly as `buyer-intel-sync worker` would. It samples
// its own RSS and reports the peak when the parent sends `stop`, then closes and exits.
//
// BENCH_CACHE_TTL_MS > 0 puts `cachedBuyerIntel` (src/buyer-intel/cache.ts) in front of the Buyer
// Intelligence client, shared through Redis under `<prefix>:bi-cache:`, for the pipeline's attribute
// and signal reads and for the resolver's searches — what src/service/runtime.ts does once the cache
// is wired there. When runtime.ts already wraps the client (deps.buyerIntel is no longer a bare
// BuyerIntelClient), nothing is patched here.
import { Redis } from 'ioredis';
import { cachedBuyerIntel } from '../src/buyer-intel/cache.ts';
import { BuyerIntelClient } from '../src/buyer-intel/client.ts';
import { Resolver, redisMatchCache } from '../src/resolve/resolver.ts';
import { createService, type ServiceSettings } from '../src/service/runtime.ts';

const settings = JSON.parse(process.env.BENCH_SETTINGS ?? 'null') as ServiceSettings | null;
if (!settings || !process.send) {
  console.error('bench/worker-process.ts is started by bench/enrichment.ts (fork, BENCH_SETTINGS)');
  process.exit(2);
}
const send = (message: unknown) => process.send?.(message);
const ttlMs = Number(process.env.BENCH_CACHE_TTL_MS ?? 0);

const service = createService(settings);
let cacheRedis: Redis | undefined;
let cache: ReturnType<typeof cachedBuyerIntel> | undefined;
if (ttlMs > 0 && service.deps.buyerIntel instanceof BuyerIntelClient) {
  // The same client the service built (its token bucket, retries and metrics), wrapped.
  const raw = service.deps.buyerIntel;
  cacheRedis = new Redis(settings.redisUrl, { maxRetriesPerRequest: 1 });
  cache = cachedBuyerIntel(raw, {
    ttlMs,
    maxEntries: 10_000,
    redis: { client: cacheRedis, prefix: `${settings.prefix}:bi-cache:` },
  });
  service.deps.buyerIntel = cache;
  service.deps.resolver = new Resolver({
    client: cache,
    cache: redisMatchCache(cacheRedis, `${settings.prefix}:match:`),
    options: settings.match,
  });
}

let peakRss = process.memoryUsage().rss;
const sampler = setInterval(() => {
  peakRss = Math.max(peakRss, process.memoryUsage().rss);
}, 50);

service.startWorker();
send({ type: 'ready', pid: process.pid, rssMb: Math.round(process.memoryUsage().rss / 2 ** 20) });

process.on('message', async (message: { type?: string }) => {
  if (message?.type !== 'stop') return;
  clearInterval(sampler);
  peakRss = Math.max(peakRss, process.memoryUsage().rss);
  const stats = cache ? { ...cache.stats } : null;
  await service.close();
  cacheRedis?.disconnect();
  send({ type: 'stopped', peakRssMb: Math.round(peakRss / 2 ** 20), cache: stats });
  process.disconnect?.();
  setTimeout(() => process.exit(0), 50).unref();
});
