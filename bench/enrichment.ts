// Enrichment throughput: N companies created in the HubSpot emulator flow through its webhooks, our
// receiver, BullMQ on real Redis and the worker, against both sandboxes with an injected upstream
// latency. Reports accounts/s and upstream calls per account.
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { DEFAULT_MAPPING } from '../src/map/default-mapping.ts';
import { fieldDefinitions } from '../src/map/field-definitions.ts';
import type { SandboxDataset } from '../src/sandbox/buyer-intel/data/dataset.ts';
import { startBuyerIntelSandbox } from '../src/sandbox/buyer-intel/server.ts';
import { startHubSpotSandbox } from '../src/sandbox/hubspot/server.ts';
import { redisForDemo } from '../src/service/private-redis.ts';
import { createService } from '../src/service/runtime.ts';
import { sandboxSettings } from '../src/service/sandbox-settings.ts';

export interface EnrichmentBenchOptions {
  accounts: number;
  latencyMs: number;
  concurrency: number;
  dataset: SandboxDataset;
}

/** Companies as a CRM holds them: the buyer's name, its state, sometimes its website. */
function companies(dataset: SandboxDataset, n: number) {
  const buyers = dataset.buyers;
  return Array.from({ length: n }, (_, i) => {
    const b = buyers[(i * 7919) % buyers.length];
    const host = b?.url ? new URL(b.url).hostname.replace(/^www\./, '') : undefined;
    return {
      name: b?.name ?? `Account ${i}`,
      state: b?.stateCode ?? '',
      ...(host && i % 2 === 0 ? { domain: host } : {}),
    };
  });
}

export async function runEnrichmentBench(o: EnrichmentBenchOptions) {
  const redis = await redisForDemo(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
  const bi = await startBuyerIntelSandbox({
    dataset: o.dataset,
    rateLimit: false,
    faults: { latencyMs: o.latencyMs },
  });
  const hs = await startHubSpotSandbox({ rateLimits: false, faults: { latencyMs: o.latencyMs } });
  const prefix = `bis-bench-${randomUUID().slice(0, 8)}`;
  const service = createService(
    sandboxSettings(
      { buyerIntel: bi, hubspot: hs },
      { redisUrl: redis.url, prefix },
      {
        buyerIntel: { ratePerSecond: 10_000, burst: 10_000 },
        worker: { concurrency: o.concurrency, writeBatchWaitMs: 250 },
      },
    ),
  );
  let peakRss = 0;
  const sampler = setInterval(() => {
    peakRss = Math.max(peakRss, process.memoryUsage().rss);
  }, 100);
  try {
    await service.connector('hubspot', String(hs.portalId)).ensureFields(fieldDefinitions(DEFAULT_MAPPING));
    const http = await service.startHttp(0, '127.0.0.1');
    service.startWorker();
    hs.webhooks.configure({ targetUrl: `${http.url}/webhooks/hubspot`, propertyChanges: [] });
    bi.stats.reset();
    hs.stats.reset();

    const started = performance.now();
    for (const c of companies(o.dataset, o.accounts)) hs.store.createCompany(c, { source: 'CRM_UI' });
    let counts = await service.queue.getJobCounts('completed', 'failed');
    while ((counts.completed ?? 0) + (counts.failed ?? 0) < o.accounts) {
      await new Promise((r) => setTimeout(r, 100));
      counts = await service.queue.getJobCounts('completed', 'failed');
    }
    const seconds = (performance.now() - started) / 1000;
    const jobs = await service.queue.getJobs(['completed']);
    const statuses: Record<string, number> = {};
    for (const j of jobs) {
      const s = (j.returnvalue as { status?: string } | undefined)?.status ?? 'unknown';
      statuses[s] = (statuses[s] ?? 0) + 1;
    }
    const per = (n: number) => +(n / o.accounts).toFixed(3);
    return {
      accounts: o.accounts,
      latencyMs: o.latencyMs,
      concurrency: o.concurrency,
      seconds: +seconds.toFixed(2),
      accountsPerSecond: +(o.accounts / seconds).toFixed(1),
      failed: counts.failed ?? 0,
      statuses,
      buyerIntelCallsPerAccount: per(bi.stats.count()),
      hubspotCallsPerAccount: per(hs.stats.count()),
      hubspotFieldWritesPerAccount: per(
        hs.stats.count('crm.companies.batchApi.update') + hs.stats.count('crm.companies.basicApi.update'),
      ),
      buyerIntelCalls: bi.stats.toJSON(),
      hubspotCalls: hs.stats.toJSON(),
      peakRssMb: Math.round(peakRss / 2 ** 20),
    };
  } finally {
    clearInterval(sampler);
    await service.close();
    const r = new Redis(redis.url);
    const keys = await r.keys(`${prefix}:*`);
    for (let i = 0; i < keys.length; i += 500) await r.del(...keys.slice(i, i + 500));
    r.disconnect();
    await Promise.all([bi.close(), hs.close()]);
    await redis.stop();
  }
}
