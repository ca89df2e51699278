// A worker process of the enrichment benches: builds the service from the settings the parent sends
// (BENCH_SETTINGS, JSON) and runs `startWorker()`, exactly as `buyer-intel-sync worker` would. It answers
// `sample` with its CPU time, RSS (and its peak) and PostgreSQL statements sent, `live` with the heap
// left after a full collection (run with --expose-gc), and on `stop` closes and exits.
// The service's Buyer Intelligence cache (settings.buyerIntel.cacheTtlMs) reports its counters here.
import type { BuyerIntelCacheStats } from '../src/buyer-intel/cache.ts';
import { createService, type ServiceSettings } from '../src/service/runtime.ts';
import { countStatements, statementsByKind, statementsSent } from './pg-cost.ts';

const settings = JSON.parse(process.env.BENCH_SETTINGS ?? 'null') as ServiceSettings | null;
if (!settings || !process.send) {
  console.error('bench/worker-process.ts is started by the enrichment benches (fork, BENCH_SETTINGS)');
  process.exit(2);
}
const send = (message: unknown) => process.send?.(message);
countStatements();

const service = createService(settings);
const cache = service.deps.buyerIntel as { stats?: BuyerIntelCacheStats };

// The peak is the kernel's high-water mark (getrusage's ru_maxrss, in KiB): exact, and free. Sampling
// memoryUsage.rss() every 50 ms was 1 % of the measured worker's CPU and could miss a short peak.
const peakRssBytes = () => process.resourceUsage().maxRSS * 1024;
const sample = () => {
  const rss = process.memoryUsage.rss();
  const cpu = process.cpuUsage();
  return {
    cpuMs: Math.round((cpu.user + cpu.system) / 1000),
    rssMb: Math.round(rss / 2 ** 20),
    peakRssMb: Math.round(Math.max(rss, peakRssBytes()) / 2 ** 20),
    statements: statementsSent(),
  };
};

service.startWorker();
send({ type: 'ready', pid: process.pid, ...sample() });

process.on('message', async (message: { type?: string }) => {
  if (message?.type === 'sample') return send({ type: 'sample', ...sample() });
  if (message?.type === 'live') {
    // Two passes: the first may leave objects a finalizer or weak callback frees only on the next.
    globalThis.gc?.();
    globalThis.gc?.();
    return send({ type: 'live', liveHeapMb: Math.round(process.memoryUsage().heapUsed / 2 ** 20) });
  }
  if (message?.type !== 'stop') return;
  const last = sample();
  const stats = cache.stats && (settings.buyerIntel.cacheTtlMs ?? 0) > 0 ? { ...cache.stats } : null;
  const kinds = statementsByKind();
  await service.close();
  send({ type: 'stopped', ...last, cache: stats, statementsByKind: kinds });
  process.disconnect?.();
  setTimeout(() => process.exit(0), 50).unref();
});
