// A worker process of the enrichment benchmark: builds the service from the settings the parent sends
// (BENCH_SETTINGS, JSON) and runs `startWorker()`, exactly as `buyer-intel-sync worker` would. It samples
// its own RSS and reports the peak when the parent sends `stop`, then closes and exits.
// The service's Buyer Intelligence cache (settings.buyerIntel.cacheTtlMs) reports its counters here.
import type { BuyerIntelCacheStats } from '../src/buyer-intel/cache.ts';
import { createService, type ServiceSettings } from '../src/service/runtime.ts';

const settings = JSON.parse(process.env.BENCH_SETTINGS ?? 'null') as ServiceSettings | null;
if (!settings || !process.send) {
  console.error('bench/worker-process.ts is started by bench/enrichment.ts (fork, BENCH_SETTINGS)');
  process.exit(2);
}
const send = (message: unknown) => process.send?.(message);

const service = createService(settings);
const cache = service.deps.buyerIntel as { stats?: BuyerIntelCacheStats };

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
  const stats = cache.stats && (settings.buyerIntel.cacheTtlMs ?? 0) > 0 ? { ...cache.stats } : null;
  await service.close();
  send({ type: 'stopped', peakRssMb: Math.round(peakRss / 2 ** 20), cache: stats });
  process.disconnect?.();
  setTimeout(() => process.exit(0), 50).unref();
});
