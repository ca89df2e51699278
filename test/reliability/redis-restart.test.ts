// Fault: the Redis the service uses (a private redis-server started by this test, AOF on with
// appendfsync everysec) is shut down mid-load and started again on the same directory, so the AOF is
// reloaded, while signed HubSpot webhooks keep arriving. The shared Redis is never touched.
// Asserts: every webhook answered 200 (before, during or after the outage) ends up enriched, i.e. an
// acknowledged delivery is never lost; webhooks that arrive while Redis is down get a 5xx (so HubSpot
// retries them), never a 2xx nor a 4xx; re-sending those (HubSpot's retry) enriches them too; the
// worker keeps working after Redis comes back.
import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SandboxBuyer } from '../../emulators/buyer-intel/data/types.ts';
import type { RunningBuyerIntelSandbox } from '../../emulators/buyer-intel/server.ts';
import { type RunningHubSpotSandbox, startHubSpotSandbox } from '../../emulators/hubspot/server.ts';
import { sandboxSettings } from '../../emulators/settings.ts';
import { DEFAULT_MAPPING } from '../../src/map/default-mapping.ts';
import { fieldDefinitions, PROVENANCE_FIELDS as P } from '../../src/map/field-definitions.ts';
import type { Service } from '../../src/service/runtime.ts';
import { startSandbox } from '../helpers/buyer-intel-sandbox.ts';
import {
  companyFor,
  creationEvent,
  distinctBuyers,
  duplicates,
  freePort,
  noteKeysOf,
  postHubSpotWebhook,
  waitFor,
} from '../helpers/reliability-env.ts';
import { createTestService } from '../helpers/service.ts';

const prefix = `test-rel-redis-${randomUUID().slice(0, 8)}`;
const dir = mkdtempSync(join(tmpdir(), 'rel-redis-'));
let port: number;
let redisUrl: string;
let redisServer: ChildProcess | undefined;

let bi: RunningBuyerIntelSandbox;
let hs: RunningHubSpotSandbox;
let service: Service | undefined;
let receiver: string;

/** Starts the private redis-server on `dir` (reloading its AOF) and waits until it answers. */
async function startRedis(): Promise<void> {
  const proc = spawn(
    'redis-server',
    [
      '--port',
      String(port),
      '--bind',
      '127.0.0.1',
      '--appendonly',
      'yes',
      '--appendfsync',
      'everysec',
      '--dir',
      dir,
      '--save',
      '',
    ],
    { stdio: 'ignore' },
  );
  redisServer = proc;
  const probe = new Redis(redisUrl, {
    lazyConnect: true,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
  });
  probe.on('error', () => undefined);
  try {
    await waitFor(
      'the private redis-server to load and answer',
      async () => {
        try {
          if (probe.status !== 'ready') await probe.connect();
          return (await probe.ping()) === 'PONG';
        } catch {
          probe.disconnect();
          return false;
        }
      },
      20_000,
      50,
    );
  } finally {
    probe.disconnect();
  }
}

/** SHUTDOWN via SIGTERM (Redis fsyncs the AOF and exits); resolves once the process is gone. */
async function stopRedis(): Promise<void> {
  const proc = redisServer;
  if (!proc || proc.exitCode !== null || proc.signalCode !== null) return;
  const exited = new Promise<void>((r) => proc.once('exit', () => r()));
  proc.kill('SIGTERM');
  await exited;
}

beforeAll(async () => {
  port = await freePort();
  redisUrl = `redis://127.0.0.1:${port}`;
  await startRedis();
  [bi, hs] = await Promise.all([startSandbox(), startHubSpotSandbox({ rateLimits: false })]);
  service = await createTestService(
    sandboxSettings(
      { buyerIntel: bi, hubspot: hs },
      { redisUrl, prefix },
      {
        buyerIntel: { ratePerSecond: 500, burst: 500, maxRetryAfterMs: 100 },
        signals: { period: 'LastTwoYears', maxNotesPerRun: 20 },
        worker: { concurrency: 8, writeBatchWaitMs: 20 },
      },
    ),
  );
  await service.connector('hubspot', String(hs.portalId)).ensureFields(fieldDefinitions(DEFAULT_MAPPING));
  receiver = `${(await service.startHttp(0, '127.0.0.1')).url}/webhooks/hubspot`;
  service.startWorker();
});

afterAll(async () => {
  // Everything lives in the private Redis, which is deleted with its directory.
  await service?.close().catch(() => undefined);
  await stopRedis();
  await Promise.all([bi?.close(), hs?.close()]);
  rmSync(dir, { recursive: true, force: true });
});

describe('Redis restarts under webhook load', () => {
  it('loses no acknowledged webhook and answers 5xx while Redis is down', async () => {
    const buyers = distinctBuyers(bi, 45, 40);
    const accounts: { id: string; buyer: SandboxBuyer; status: number; phase: string }[] = buyers.map(
      (buyer) => ({
        id: hs.store.createCompany(companyFor(buyer), { source: 'CRM_UI' }).id,
        buyer,
        status: -1,
        phase: '',
      }),
    );
    let phase = 'before';
    let eventId = 1;
    const send = async (a: (typeof accounts)[number]) => {
      a.phase = phase;
      const body = JSON.stringify([creationEvent(hs, a.id, eventId++)]);
      a.status = await postHubSpotWebhook(receiver, hs.clientSecret, body);
    };

    // A steady stream: one webhook every few ms, the restart happens in the middle of it.
    let next = 0;
    let stopSending = false;
    const sender = (async () => {
      while (!stopSending && next < accounts.length) {
        const a = accounts[next++];
        if (a) await send(a);
        await new Promise((r) => setTimeout(r, 15));
      }
    })();

    // Answered, not just sent: a request still in flight when Redis stops may rightly get a 5xx.
    await waitFor(
      '15 webhooks answered',
      () => accounts.slice(0, 15).every((a) => a.status !== -1),
      20_000,
      5,
    );
    phase = 'outage';
    await stopRedis();
    // Keep sending while Redis is down (until a few have been answered).
    const sentAtDown = next;
    await waitFor('5 webhooks during the outage', () => next >= sentAtDown + 5, 20_000, 5);
    const outage = accounts.slice(sentAtDown, next - 1);
    await startRedis();
    phase = 'after';
    await sender;
    stopSending = true;

    const acked = accounts.filter((a) => a.status === 200);
    const refused = accounts.filter((a) => a.status !== 200);
    // Before the outage everything was acknowledged.
    expect(accounts.slice(0, 15).map((a) => a.status)).toEqual(Array(15).fill(200));
    // While Redis was down: "retry later" (5xx), never a 2xx (that would be a lost event) nor a 4xx
    // (HubSpot does not retry those).
    expect(outage.length).toBeGreaterThan(0);
    for (const a of outage)
      expect(a.status, `webhook for ${a.id} during the outage`).toBeGreaterThanOrEqual(500);
    for (const a of refused)
      expect(a.status, `refused webhook for ${a.id} (${a.phase})`).toBeGreaterThanOrEqual(500);

    // HubSpot's retry: re-send every refused delivery until it is acknowledged.
    for (const a of refused)
      await waitFor(`a 200 for the re-sent webhook of ${a.id}`, async () => {
        await send(a);
        return a.status === 200;
      });

    // Every account whose webhook was acknowledged (first time or on retry) is enriched.
    await waitFor(
      'every acknowledged account enriched',
      () => accounts.every((a) => hs.store.get('companies', a.id)?.values.get(P.status) === 'enriched'),
      90_000,
      250,
    );
    for (const a of [...acked, ...refused]) {
      const company = hs.store.get('companies', a.id);
      expect(company?.values.get(P.buyerId), a.buyer.name).toBe(a.buyer.id);
      expect(duplicates(noteKeysOf(hs, a.id)), `duplicate notes on ${a.id}`).toEqual([]);
    }
    const q = service?.queue;
    expect(q && (await q.getJobCounts('failed'))).toEqual({ failed: 0 });
  }, 150_000);
});
