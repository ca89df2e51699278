// Ingest: how fast the webhook receiver takes HubSpot deliveries. autocannon (in its own process) posts
// valid v3-signed `company.creation` batches of 1 and of 100 events to POST /webhooks/hubspot of a
// running service (HTTP role only: each request is verified, parsed and its jobs are added to BullMQ on
// real Redis before the 200). The same autocannon settings against a bare express endpoint
// (express.json() + 200) on the same machine give the ceiling; the ratio is ours / bare.
import { type ChildProcess, fork } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import type autocannon from 'autocannon';
import express from 'express';
import { hubspotSignatureV3 } from '../connectors/hubspot/webhook-signature.ts';
import type { SandboxDataset } from '../emulators/buyer-intel/data/dataset.ts';
import { startBuyerIntelSandbox } from '../emulators/buyer-intel/server.ts';
import { startHubSpotSandbox } from '../emulators/hubspot/server.ts';
import { sandboxSettings } from '../emulators/settings.ts';
import { listen } from '../src/service/listen.ts';
import { createService } from '../src/service/runtime.ts';
import { deletePrefix } from './redis-cleanup.ts';

export interface IngestBenchOptions {
  redisUrl: string;
  dataset: SandboxDataset;
  /** Seconds per autocannon run. */
  durationS: number;
  connections: number;
  batchSizes: number[];
  /** Distinct signed requests per batch size (autocannon cycles through them). */
  distinctRequests: number;
}

export interface IngestRow {
  endpoint: 'ours' | 'bare';
  eventsPerRequest: number;
  requests: number;
  requestsPerSecond: number;
  eventsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  non2xx: number;
  errors: number;
}

interface LoadGenerator {
  run(options: autocannon.Options): Promise<autocannon.Result>;
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
        child.once('message', (m: { result: autocannon.Result }) => resolve(m.result));
        child.send({ type: 'run', options });
      }),
    close: () => {
      child.send({ type: 'exit' });
    },
  };
}

/** HubSpot's delivery: a JSON array of events of one portal, as its webhooks send them. */
function batchBody(portalId: number, appId: number, size: number, seq: number): string {
  const now = Date.now();
  return JSON.stringify(
    Array.from({ length: size }, (_, i) => {
      const n = seq * size + i;
      return {
        eventId: 1_000_000_000 + n,
        subscriptionId: 2_400_001,
        portalId,
        appId,
        occurredAt: now - (n % 1000),
        subscriptionType: 'company.creation',
        attemptNumber: 0,
        objectId: 30_000_000_000 + n,
        changeFlag: 'CREATED',
        changeSource: 'CRM_UI',
        sourceId: 'userId:10293847',
      };
    }),
  );
}

export async function runIngestBench(o: IngestBenchOptions) {
  const bi = await startBuyerIntelSandbox({ dataset: o.dataset, rateLimit: false });
  const hs = await startHubSpotSandbox({ rateLimits: false });
  const prefix = `bis-bench-ingest-${randomUUID().slice(0, 8)}`;
  const service = createService(
    sandboxSettings({ buyerIntel: bi, hubspot: hs }, { redisUrl: o.redisUrl, prefix }),
  );
  const bareApp = express();
  bareApp.disable('x-powered-by');
  bareApp.post('/webhooks/hubspot', express.json({ limit: '1mb' }), (_req, res) => {
    res.sendStatus(200);
  });
  const ours = await service.startHttp(0, '127.0.0.1');
  const bare = await listen(bareApp, 0, '127.0.0.1');
  const load = await loadGenerator();
  const rows: IngestRow[] = [];
  try {
    for (const size of o.batchSizes) {
      for (const [endpoint, base] of [
        ['ours', ours.url],
        ['bare', bare.url],
      ] as const) {
        const uri = `${base}/webhooks/hubspot`;
        // Signed now: the receiver refuses timestamps older than 5 minutes.
        const requests = Array.from({ length: o.distinctRequests }, (_, seq) => {
          const body = batchBody(hs.portalId, hs.appId, size, seq);
          const timestamp = String(Date.now());
          return {
            method: 'POST' as const,
            path: '/webhooks/hubspot',
            headers: {
              'content-type': 'application/json',
              'x-hubspot-request-timestamp': timestamp,
              'x-hubspot-signature-v3': hubspotSignatureV3(hs.clientSecret, 'POST', uri, body, timestamp),
            },
            body,
          };
        });
        const common = { url: base, connections: o.connections, pipelining: 1, requests };
        // A short warm-up (JIT, connection pools, Redis scripts), then the measured run.
        await load.run({ ...common, duration: 1 });
        const r = await load.run({ ...common, duration: o.durationS });
        const seconds = r.duration;
        rows.push({
          endpoint,
          eventsPerRequest: size,
          requests: r.requests.total,
          requestsPerSecond: Math.round(r.requests.total / seconds),
          eventsPerSecond: Math.round((r['2xx'] * size) / seconds),
          p50Ms: r.latency.p50,
          p99Ms: r.latency.p99,
          non2xx: r.non2xx,
          errors: r.errors + r.timeouts,
        });
      }
    }
  } finally {
    load.close();
    await service.close();
    await bare.close();
    await Promise.all([bi.close(), hs.close()]);
    await deletePrefix(o.redisUrl, prefix);
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
    };
  });
  return {
    settings: { durationS: o.durationS, connections: o.connections, distinctRequests: o.distinctRequests },
    summary,
    rows,
  };
}
