// A worker on its own (no HTTP tier) serves /metrics and /healthz on METRICS_LISTEN: /healthz is 200
// while its workers consume and 503 naming why when they stopped, or when jobs wait and its work has
// not moved for the stall time; /metrics carries the jobs this process ran.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { enrichJobOptions, jobIdOf } from '../../queues/enrich-queue.ts';
import { STALL_MS, workerHealth } from '../../src/service/worker-health.ts';
import { freePort } from '../helpers/ports.ts';
import { completedJob } from '../helpers/service.ts';
import { startTestService, type TestService } from '../helpers/start-service.ts';

let running: TestService;
let workerUrl: string;

beforeAll(async () => {
  const port = await freePort();
  running = await startTestService({
    name: 'worker-health',
    without: ['salesforce'],
    worker: { writeBatchWaitMs: 20 },
    settings: (s) => ({
      ...s,
      security: {
        ...(s.security ?? { apiDocsPublic: false, inboundAccountWindowMs: 0 }),
        metrics: { listen: { host: '127.0.0.1', port } },
      },
    }),
    fields: true,
    // A worker alone, as the `worker` role runs: no HTTP tier holding METRICS_LISTEN.
    http: false,
    startWorker: true,
  });
  workerUrl = (await running.service.startWorkerHttp())?.url ?? '';
}, 60_000);
afterAll(async () => {
  await running?.close();
});

describe('a worker’s own endpoints', () => {
  it('answers /healthz 200 while consuming and shows its jobs in /metrics', async () => {
    expect(workerUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const health = await fetch(`${workerUrl}/healthz`);
    expect(health.status).toBe(200);
    expect(await health.json()).toMatchObject({ status: 'ok' });
    const ready = await fetch(`${workerUrl}/readyz`);
    expect({ status: ready.status, body: await ready.json() }).toEqual({
      status: 200,
      body: { status: 'ready' },
    });

    const { hs, service } = running;
    const id = hs.store.createCompany({ name: 'City of Austin', state: 'TX' }, { source: 'CRM_UI' }).id;
    const tenant = String(hs.portalId);
    const jobId = jobIdOf('hubspot', tenant, id, 'refresh', randomUUID());
    await service.queue.add(
      'enrich',
      { crm: 'hubspot', tenant, accountId: id, trigger: 'refresh' },
      enrichJobOptions('refresh', 3, jobId),
    );
    await completedJob(service, jobId);
    const metrics = await (await fetch(`${workerUrl}/metrics`)).text();
    // The refresh ran on this process's worker: its job and its outcome are counted here.
    expect(metrics).toMatch(/^bis_job_duration_seconds_count\{[^}]*\} [1-9]/m);
    expect(metrics).toMatch(/^bis_match_outcomes_total\{[^}]*\} [1-9]/m);
  });
});

describe('worker health', () => {
  const fakeWorker = (running = true) =>
    ({ name: 'enrich', isRunning: () => running, on: () => undefined }) as never;
  const queue = (waiting: number) => ({ name: 'enrich', getWaitingCount: async () => waiting });

  it('is unhealthy when a worker stopped', async () => {
    const h = workerHealth([fakeWorker(false)], [queue(0)]);
    expect(await h.check()).toMatchObject({ ok: false, detail: 'enrich not running' });
  });

  it('is unhealthy when jobs wait and its work has not moved for the stall time, healthy once it moves', async () => {
    const h = workerHealth([fakeWorker()], [queue(3)]);
    const later = Date.now() + STALL_MS + 1_000;
    expect(await h.check(later)).toMatchObject({ ok: false });
    expect((await h.check(later)).detail).toMatch(/^3 jobs wait and this worker moved none on in \d+ s$/);
    h.touch();
    expect(await h.check()).toMatchObject({ ok: true });
    // Idle with nothing waiting is healthy however long.
    expect(await workerHealth([fakeWorker()], [queue(0)]).check(later)).toMatchObject({ ok: true });
  });
});
