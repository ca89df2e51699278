// Enrichment throughput: N companies created in the HubSpot emulator flow through its webhooks, our
// receiver (this process), BullMQ on real Redis and W worker processes (bench/worker-process.ts, each
// the service's worker role with the same settings), against both sandboxes with an injected latency
// on every upstream call and their rate limits on. Reports accounts/s, its ratio to the bound the
// tightest rate limit sets, upstream calls per account, and each worker's peak RSS.

import { type ChildProcess, fork } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import type { HubSpotConfig } from '../connectors/hubspot/config.ts';
import type { SandboxDataset } from '../emulators/buyer-intel/data/dataset.ts';
import { startBuyerIntelSandbox } from '../emulators/buyer-intel/server.ts';
import { startHubSpotSandbox } from '../emulators/hubspot/server.ts';
import { sandboxSettings } from '../emulators/settings.ts';
import { seededRandom } from '../emulators/shared/faults.ts';
import { DEFAULT_MAPPING } from '../src/map/default-mapping.ts';
import { fieldDefinitions } from '../src/map/field-definitions.ts';
import { createService } from '../src/service/runtime.ts';
import { deletePrefix } from './redis-cleanup.ts';

export interface EnrichmentBenchOptions {
  redisUrl: string;
  dataset: SandboxDataset;
  accounts: number;
  /** Distinct buyers the accounts are spread over (several accounts per buyer). */
  buyers: number;
  latencyMs: number;
  workers: number;
  /** Jobs each worker process runs at once. */
  concurrency: number;
  /** HubSpot's rolling 10-second limit for the private app. */
  hubspotPer10s: number;
  /** Buyer Intelligence requests per minute per token (the sandbox answers 429 past it). */
  buyerIntelPerMinute: number;
  /** 0 = no Buyer Intelligence cache (every call upstream). */
  cacheTtlMs: number;
  /** Give up waiting after this long (the run is reported as incomplete). */
  timeoutS: number;
}

/**
 * Companies as a CRM holds them: `accounts` records over `buyers` distinct buyers, every buyer at least
 * once and the rest skewed (a few buyers have many accounts: departments, duplicates), in random order;
 * the buyer's name, its state, and on about half of them its website.
 */
export function benchCompanies(dataset: SandboxDataset, accounts: number, buyers: number) {
  const random = seededRandom(2024);
  const pool = dataset.buyers.filter((b) => b.name && b.stateCode);
  const chosen = Array.from({ length: Math.min(buyers, pool.length) }, (_, i) => {
    const b = pool[Math.floor((i * pool.length) / buyers)];
    if (!b) throw new Error('data set too small');
    return b;
  });
  const picks = Array.from({ length: accounts }, (_, i) =>
    i < chosen.length ? i : Math.floor(chosen.length * random() ** 2),
  );
  for (let i = picks.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [picks[i], picks[j]] = [picks[j] ?? 0, picks[i] ?? 0];
  }
  return picks.map((p, i) => {
    const b = chosen[p] ?? chosen[0];
    const host = b?.url ? new URL(b.url).hostname.replace(/^www\./, '') : undefined;
    return {
      name: b?.name ?? `Account ${i}`,
      state: b?.stateCode ?? '',
      ...(host && random() < 0.5 ? { domain: host } : {}),
    };
  });
}

interface WorkerHandle {
  child: ChildProcess;
  /** RSS once built and started, before any job. */
  readyRssMb: number;
  stop(): Promise<{ peakRssMb: number; cache: Record<string, number> | null }>;
}

async function startWorkerProcess(settings: unknown): Promise<WorkerHandle> {
  const child = fork(new URL('./worker-process.ts', import.meta.url), [], {
    env: { ...process.env, BENCH_SETTINGS: JSON.stringify(settings) },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const readyRssMb = await new Promise<number>((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`worker process exited with ${code}`)));
    child.on('message', (m: { type?: string; rssMb?: number }) => {
      if (m.type === 'ready') resolve(m.rssMb ?? 0);
    });
  });
  child.removeAllListeners('exit');
  return {
    child,
    readyRssMb,
    stop: () =>
      new Promise((resolve) => {
        child.on(
          'message',
          (m: { type?: string; peakRssMb?: number; cache?: Record<string, number> | null }) => {
            if (m.type === 'stopped') resolve({ peakRssMb: m.peakRssMb ?? 0, cache: m.cache ?? null });
          },
        );
        child.send({ type: 'stop' });
      }),
  };
}

export async function runEnrichmentBench(o: EnrichmentBenchOptions) {
  const bi = await startBuyerIntelSandbox({
    dataset: o.dataset,
    rateLimit: { requests: o.buyerIntelPerMinute, windowMs: 60_000 },
    faults: { latencyMs: o.latencyMs },
  });
  const hs = await startHubSpotSandbox({
    rateLimits: { tenSecondly: o.hubspotPer10s },
    faults: { latencyMs: o.latencyMs },
  });
  const prefix = `bis-bench-${randomUUID().slice(0, 8)}`;
  // Each worker takes its share of the Buyer Intelligence limit in its client's token bucket (as a
  // deployment of W workers would be configured); a 429 still parks the queue for all of them.
  const biPerSecond = o.buyerIntelPerMinute / 60;
  const settings = sandboxSettings(
    { buyerIntel: bi, hubspot: hs },
    { redisUrl: o.redisUrl, prefix },
    {
      buyerIntel: {
        ratePerSecond: +(biPerSecond / o.workers).toFixed(3),
        burst: Math.max(1, Math.floor(biPerSecond / o.workers)),
      },
      worker: { concurrency: o.concurrency, writeBatchWaitMs: 250 },
    },
  );
  // As a deployment would be configured: the Buyer Intelligence cache, and HubSpot's limit as the
  // shared call budget of every worker.
  settings.buyerIntel.cacheTtlMs = o.cacheTtlMs;
  const hubspotConfig = settings.crms.hubspot as HubSpotConfig | undefined;
  if (hubspotConfig) hubspotConfig.app.callsPer10s = o.hubspotPer10s;
  // This process: the HTTP role (webhook receiver) and the queue counts.
  const service = createService(settings);
  const workers: WorkerHandle[] = [];
  try {
    await service.connector('hubspot', String(hs.portalId)).ensureFields(fieldDefinitions(DEFAULT_MAPPING));
    const http = await service.startHttp(0, '127.0.0.1');
    for (let i = 0; i < o.workers; i++) workers.push(await startWorkerProcess(settings));
    hs.webhooks.configure({ targetUrl: `${http.url}/webhooks/hubspot`, propertyChanges: [] });
    // Let the limit windows of the set-up calls pass before counting.
    await new Promise((r) => setTimeout(r, 200));
    bi.stats.reset();
    hs.stats.reset();

    const companies = benchCompanies(o.dataset, o.accounts, o.buyers);
    const distinctBuyers = new Set(companies.map((c) => `${c.name}|${c.state}`)).size;
    const started = performance.now();
    for (const c of companies) hs.store.createCompany(c, { source: 'CRM_UI' });
    let counts = await service.queue.getJobCounts('completed', 'failed');
    let timedOut = false;
    while ((counts.completed ?? 0) + (counts.failed ?? 0) < o.accounts) {
      if (performance.now() - started > o.timeoutS * 1000) {
        timedOut = true;
        break;
      }
      await new Promise((r) => setTimeout(r, 100));
      counts = await service.queue.getJobCounts('completed', 'failed');
    }
    const seconds = (performance.now() - started) / 1000;
    const done = (counts.completed ?? 0) + (counts.failed ?? 0);
    const readyRssMb = workers.map((w) => w.readyRssMb);
    const stopped = await Promise.all(workers.splice(0).map((w) => w.stop()));

    const jobs = await service.queue.getJobs(['completed']);
    const statuses: Record<string, number> = {};
    for (const j of jobs) {
      const s = (j.returnvalue as { status?: string } | undefined)?.status ?? 'unknown';
      statuses[s] = (statuses[s] ?? 0) + 1;
    }
    const per = (n: number) => +(n / Math.max(1, done)).toFixed(3);
    const bi429 = bi.stats.count(undefined, 429);
    const hs429 = hs.stats.count(undefined, 429);
    const biAdmitted = bi.stats.count() - bi429;
    const hsAdmitted = hs.stats.count() - hs429;
    const accountsPerSecond = done / seconds;
    // The bound: each limit's requests per second over the requests an account needs from it.
    const bounds = {
      hubspot: hsAdmitted ? o.hubspotPer10s / 10 / (hsAdmitted / done) : Number.POSITIVE_INFINITY,
      buyerIntel: biAdmitted ? biPerSecond / (biAdmitted / done) : Number.POSITIVE_INFINITY,
    };
    const tightest = bounds.hubspot <= bounds.buyerIntel ? 'hubspot' : 'buyerIntel';
    const bound = bounds[tightest];
    const cacheTotals: Record<string, number> = {};
    for (const s of stopped)
      for (const [k, v] of Object.entries(s.cache ?? {})) cacheTotals[k] = (cacheTotals[k] ?? 0) + v;
    return {
      workers: o.workers,
      concurrencyPerWorker: o.concurrency,
      cacheTtlMs: o.cacheTtlMs,
      accounts: o.accounts,
      done,
      timedOut,
      buyers: o.buyers,
      latencyMs: o.latencyMs,
      limits: { hubspotPer10s: o.hubspotPer10s, buyerIntelPerMinute: o.buyerIntelPerMinute },
      seconds: +seconds.toFixed(2),
      accountsPerSecond: +accountsPerSecond.toFixed(1),
      boundAccountsPerSecond: +bound.toFixed(1),
      boundBy: tightest,
      ratioToBound: +(accountsPerSecond / bound).toFixed(2),
      failed: counts.failed ?? 0,
      statuses,
      buyerIntelCallsPerAccount: per(biAdmitted),
      distinctBuyers,
      buyerIntelCallsPerBuyer: +(biAdmitted / Math.max(1, distinctBuyers)).toFixed(2),
      hubspotCallsPerAccount: per(hsAdmitted),
      hubspotFieldWritesPerAccount: per(
        hs.stats.count('crm.companies.batchApi.update') + hs.stats.count('crm.companies.basicApi.update'),
      ),
      rateLimited: { buyerIntel429: bi429, hubspot429: hs429 },
      peakRssMbPerWorker: stopped.map((s) => s.peakRssMb),
      startRssMbPerWorker: readyRssMb,
      cache: o.cacheTtlMs > 0 ? cacheTotals : null,
      buyerIntelCalls: bi.stats.toJSON(),
      hubspotCalls: hs.stats.toJSON(),
    };
  } finally {
    await Promise.all(workers.map((w) => w.stop().catch(() => undefined)));
    await service.close();
    await Promise.all([bi.close(), hs.close()]);
    await deletePrefix(o.redisUrl, prefix);
  }
}
