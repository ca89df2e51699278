// Ingest: how fast the webhook receiver takes HubSpot deliveries. autocannon (in its own process) posts
// valid v3-signed `company.creation` deliveries of 1 and of 100 events to POST /webhooks/hubspot of a
// running service (HTTP role only: each request is verified, parsed and its jobs are added to BullMQ on
// real Redis before the 200). Every request is new (fresh event and object ids, signed as it is sent),
// so no job is skipped as a duplicate; the jobs BullMQ actually holds afterwards are counted. The same
// load against a bare express endpoint (express.json() + 200) on the same machine gives the ceiling.
import { type ChildProcess, fork } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import type autocannon from 'autocannon';
import express from 'express';
import type { SandboxDataset } from '../emulators/buyer-intel/data/dataset.ts';
import { startBuyerIntelSandbox } from '../emulators/buyer-intel/server.ts';
import { startHubSpotSandbox } from '../emulators/hubspot/server.ts';
import { sandboxSettings } from '../emulators/settings.ts';
import { listen } from '../src/service/listen.ts';
import { createService } from '../src/service/runtime.ts';
import { benchDatabase } from './bench-db.ts';
import type { LoadRun } from './load-process.ts';
import { deletePrefix } from './redis-cleanup.ts';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export interface IngestBenchOptions {
  redisUrl: string;
  dataset: SandboxDataset;
  /** A PostgreSQL server for the store (runs of deliveries are recorded there), as production has. */
  postgresUrl: string | undefined;
  /** Seconds per autocannon run. */
  durationS: number;
  connections: number;
  batchSizes: number[];
}

export interface IngestRow {
  endpoint: 'ours' | 'bare';
  eventsPerRequest: number;
  requests: number;
  /** Answered 2xx. */
  acceptedRequests: number;
  requestsPerSecond: number;
  eventsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  non2xx: number;
  errors: number;
  /** Jobs added to the queue in Redis by the measured run (ours only). */
  jobsCreated: number | null;
}

interface LoadGenerator {
  run(options: Omit<LoadRun, 'type'>): Promise<{ result: autocannon.Result; sent: number }>;
  close(): void;
}

async function loadGenerator(): Promise<LoadGenerator> {
  const child: ChildProcess = fork(new URL('./load-process.ts', import.meta.url), [], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  await new Promise<void>((resolve, reject) => {
    child.once('error', reject);
    child.once('message', () => resolve());
  });
  return {
    run: (options) =>
      new Promise((resolve) => {
        child.once('message', (m: { result: autocannon.Result; sent: number }) => resolve(m));
        child.send({ type: 'run', ...options });
      }),
    close: () => {
      child.send({ type: 'exit' });
    },
  };
}

export async function runIngestBench(o: IngestBenchOptions) {
  const bi = await startBuyerIntelSandbox({ dataset: o.dataset, rateLimit: false });
  const hs = await startHubSpotSandbox({ rateLimits: false });
  const prefix = `bis-bench-ingest-${randomUUID().slice(0, 8)}`;
  const db = await benchDatabase(o.postgresUrl);
  const service = createService({
    ...sandboxSettings({ buyerIntel: bi, hubspot: hs }, { redisUrl: o.redisUrl, prefix }),
    database: db.settings,
  });
  const bareApp = express();
  bareApp.disable('x-powered-by');
  bareApp.post('/webhooks/hubspot', express.json({ limit: '1mb' }), (_req, res) => {
    res.sendStatus(200);
  });
  const ours = await service.startHttp(0, '127.0.0.1');
  const bare = await listen(bareApp, 0, '127.0.0.1');
  const load = await loadGenerator();
  const rows: IngestRow[] = [];
  // No worker runs: every job the receiver adds stays in the queue.
  const jobCount = async () =>
    Object.values(await service.queue.getJobCounts()).reduce((sum, n) => sum + (n ?? 0), 0);
  try {
    for (const size of o.batchSizes) {
      for (const [endpoint, base] of [
        ['ours', ours.url],
        ['bare', bare.url],
      ] as const) {
        const run = {
          url: base,
          durationS: o.durationS,
          connections: o.connections,
          delivery: {
            uri: `${base}/webhooks/hubspot`,
            secret: hs.clientSecret,
            portalId: hs.portalId,
            appId: hs.appId,
            size,
          },
        };
        // A short warm-up (JIT, connection pools, Redis scripts), then the measured run.
        // Requests still in flight when a run ends are answered after it: let them land before counting.
        await load.run({ ...run, durationS: 2 });
        await sleep(1000);
        const jobsBefore = endpoint === 'ours' ? await jobCount() : 0;
        const { result: r } = await load.run(run);
        await sleep(1000);
        const jobsCreated = endpoint === 'ours' ? (await jobCount()) - jobsBefore : null;
        const seconds = r.duration;
        rows.push({
          endpoint,
          eventsPerRequest: size,
          requests: r.requests.total,
          acceptedRequests: r['2xx'],
          requestsPerSecond: Math.round(r.requests.total / seconds),
          eventsPerSecond: Math.round((r['2xx'] * size) / seconds),
          p50Ms: r.latency.p50,
          p99Ms: r.latency.p99,
          non2xx: r.non2xx,
          errors: r.errors + r.timeouts,
          jobsCreated,
        });
      }
    }
  } finally {
    load.close();
    await service.close();
    await bare.close();
    await Promise.all([bi.close(), hs.close()]);
    await deletePrefix(o.redisUrl, prefix);
    await db.drop().catch(() => undefined);
  }
  const summary = o.batchSizes.map((size) => {
    const our = rows.find((r) => r.endpoint === 'ours' && r.eventsPerRequest === size);
    const b = rows.find((r) => r.endpoint === 'bare' && r.eventsPerRequest === size);
    return {
      eventsPerRequest: size,
      requestsPerSecond: our?.requestsPerSecond ?? 0,
      eventsPerSecond: our?.eventsPerSecond ?? 0,
      p50Ms: our?.p50Ms ?? 0,
      p99Ms: our?.p99Ms ?? 0,
      bareRequestsPerSecond: b?.requestsPerSecond ?? 0,
      ratioToBare: b?.requestsPerSecond
        ? +((our?.requestsPerSecond ?? 0) / b.requestsPerSecond).toFixed(2)
        : 0,
      non2xx: our?.non2xx ?? 0,
      acceptedEvents: (our?.acceptedRequests ?? 0) * size,
      jobsCreated: our?.jobsCreated ?? 0,
    };
  });
  return {
    settings: { durationS: o.durationS, connections: o.connections, everyRequestNew: true },
    summary,
    rows,
  };
}
