// Idle latency: one account at a time created in the HubSpot emulator, delivered by its webhooks to our
// receiver (this process), queued, and enriched by one worker process on an otherwise idle service.
// From the company's creation to its job's completion (BullMQ's finishedOn), over `accounts` accounts.
// The goal is 1 s plus the upstream latency an account waits for: the emulators add `latencyMs` to each
// call, and an account's calls are made one after another, so that is latency × calls per account.
import { randomUUID } from 'node:crypto';
import type { HubSpotConfig } from '../connectors/hubspot/config.ts';
import type { SandboxDataset } from '../emulators/buyer-intel/data/dataset.ts';
import { startBuyerIntelSandbox } from '../emulators/buyer-intel/server.ts';
import { startHubSpotSandbox } from '../emulators/hubspot/server.ts';
import { sandboxSettings } from '../emulators/settings.ts';
import { DEFAULT_MAPPING } from '../src/map/default-mapping.ts';
import { fieldDefinitions } from '../src/map/field-definitions.ts';
import { createService } from '../src/service/runtime.ts';
import { benchAccounts } from './accounts.ts';
import { benchDatabase } from './bench-db.ts';
import { HUBSPOT_CAPACITY } from './bound.ts';
import { totalCalls } from './calls.ts';
import { deletePrefix } from './redis-cleanup.ts';
import { SERVICE_PROVIDER_DEFAULTS, SERVICE_WORKER_DEFAULTS } from './service-defaults.ts';
import { startWorkerProcess, type WorkerHandle } from './workers.ts';

export interface LatencyBenchOptions {
  redisUrl: string;
  postgresUrl: string | undefined;
  dataset: SandboxDataset;
  accounts: number;
  latencyMs: number;
  cacheTtlMs: number;
  /** One account gives up after this long (counted as timed out). */
  perAccountTimeoutS: number;
}

const quantile = (sorted: number[], q: number) =>
  sorted.length ? (sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)] ?? 0) : 0;

export async function runLatencyBench(o: LatencyBenchOptions) {
  // The provider at the sandbox's enforced limit (10/s, burst 1: none is documented) and the service's
  // own pace settings against it (10/s, burst 1), as a customer runs: idle p50 ~0.6 s. With the
  // sandbox settings' 50/s the pace met 429s and their one-second pauses (p50 ~1.6 s).
  const bi = await startBuyerIntelSandbox({ dataset: o.dataset, faults: { latencyMs: o.latencyMs } });
  const hs = await startHubSpotSandbox({
    rateLimits: { tenSecondly: HUBSPOT_CAPACITY.requestsPer10s, daily: HUBSPOT_CAPACITY.daily },
    faults: { latencyMs: o.latencyMs },
  });
  const db = await benchDatabase(o.postgresUrl);
  const prefix = `bis-bench-${randomUUID().slice(0, 8)}`;
  const settings = sandboxSettings(
    { buyerIntel: bi, hubspot: hs },
    { redisUrl: o.redisUrl, prefix },
    { worker: SERVICE_WORKER_DEFAULTS, buyerIntel: { ...SERVICE_PROVIDER_DEFAULTS } },
  );
  settings.database = db.settings;
  settings.buyerIntel.cacheTtlMs = o.cacheTtlMs;
  const hubspotConfig = settings.crms.hubspot as HubSpotConfig | undefined;
  if (hubspotConfig) hubspotConfig.app.callsPer10s = HUBSPOT_CAPACITY.requestsPer10s;
  const service = createService(settings);
  let worker: WorkerHandle | undefined;
  try {
    await service.connector('hubspot', String(hs.portalId)).ensureFields(fieldDefinitions(DEFAULT_MAPPING));
    const http = await service.startHttp(0, '127.0.0.1');
    worker = await startWorkerProcess(settings);
    hs.webhooks.configure({ targetUrl: `${http.url}/webhooks/hubspot`, propertyChanges: [] });
    hs.stats.reset();
    bi.stats.reset();
    // Distinct buyers, realistic names: each account is a first sight (no cache hit from an earlier one).
    const accounts = benchAccounts(o.dataset, o.accounts, o.accounts, 77);
    const ms: number[] = [];
    const statuses: Record<string, number> = {};
    let timedOut = 0;
    for (const a of accounts) {
      const before = await service.queue.getJobCounts('completed', 'failed');
      const done = (before.completed ?? 0) + (before.failed ?? 0);
      const created = Date.now();
      hs.store.createCompany(
        { name: a.name, ...(a.state ? { state: a.state } : {}), ...(a.domain ? { domain: a.domain } : {}) },
        { source: 'CRM_UI' },
      );
      let finished = false;
      while (Date.now() - created < o.perAccountTimeoutS * 1000) {
        await new Promise((r) => setTimeout(r, 20));
        const c = await service.queue.getJobCounts('completed', 'failed');
        if ((c.completed ?? 0) + (c.failed ?? 0) > done) {
          finished = true;
          break;
        }
      }
      if (!finished) {
        timedOut++;
        continue;
      }
      const [job] = await service.queue.getJobs(['completed'], 0, 0);
      const status = (job?.returnvalue as { status?: string } | undefined)?.status ?? 'failed';
      statuses[status] = (statuses[status] ?? 0) + 1;
      if (job?.finishedOn) ms.push(job.finishedOn - created);
    }
    ms.sort((a, b) => a - b);
    const n = Math.max(1, ms.length);
    const upstreamCalls = (totalCalls(hs.stats.toJSON()) + totalCalls(bi.stats.toJSON())) / n;
    const upstreamMs = Math.round(upstreamCalls * o.latencyMs);
    return {
      accounts: accounts.length,
      measured: ms.length,
      timedOut,
      latencyMs: o.latencyMs,
      p50Ms: quantile(ms, 0.5),
      p95Ms: quantile(ms, 0.95),
      maxMs: ms.at(-1) ?? 0,
      upstreamCallsPerAccount: +upstreamCalls.toFixed(2),
      goalMs: 1000 + upstreamMs,
      goal: `1 s + ${upstreamCalls.toFixed(1)} calls × ${o.latencyMs} ms`,
      statuses,
      database: db.engine,
    };
  } finally {
    await worker?.stop().catch(() => undefined);
    await service.close().catch(() => undefined);
    await Promise.all([bi.close(), hs.close()]);
    await deletePrefix(o.redisUrl, prefix);
    await db.drop().catch(() => undefined);
  }
}
