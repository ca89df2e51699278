// POST /webhooks/hubspot over real HTTP, enqueuing into a real BullMQ queue on real Redis, each delivery
// recorded as a run in the embedded database.
import { createHmac, randomUUID } from 'node:crypto';
import type { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { hubspotEventHandler } from '../../connectors/hubspot/events.ts';
import { createEnrichQueue, type EnrichQueueData } from '../../queues/enrich-queue.ts';
import { createHttpApp } from '../../src/service/http-app.ts';
import { type Listening, listen } from '../../src/service/listen.ts';
import type { Repositories } from '../../src/store/store.ts';
import { Store } from '../../src/store/store.ts';
import { addCountingNew } from '../../src/webhooks/new-jobs.ts';
import { webhookReceiver } from '../../src/webhooks/receiver.ts';
import { serviceDatabase } from '../helpers/test-database.ts';

const SECRET = 'test-client-secret';
const PORTAL = '4242';
const APP_ID = '777';
const PUBLIC = 'https://sync.example.com';

let redis: Redis;
let queue: Queue<EnrichQueueData>;
let server: Listening;
let enqueueFails = false;
/** What the receiver said about deliveries signed for another address than PUBLIC_BASE_URL. */
const misaddressed: { publicBaseUrl: string; arrivedAt: string }[] = [];
let storeFails = false;
let store: Store;
let repos: Repositories;
const prefix = `test-webhooks-${randomUUID()}`;

beforeAll(async () => {
  redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', { maxRetriesPerRequest: null });
  queue = createEnrichQueue(redis, { prefix });
  store = new Store(await serviceDatabase());
  repos = await store.open();
  const handler = hubspotEventHandler({
    clientSecret: SECRET,
    isKnownPortal: (p) => p === PORTAL,
    appId: APP_ID,
  });
  const router = webhookReceiver(handler, {
    publicBaseUrl: PUBLIC,
    attempts: 3,
    maxBodyBytes: 64 * 1024,
    enqueue: async (jobs) => {
      if (enqueueFails) throw new Error('Redis is down');
      return addCountingNew(queue, jobs);
    },
    store: {
      open: () => (storeFails ? Promise.reject(new Error('the database is down')) : store.open()),
    },
    crmLabel: 'HubSpot',
    onMisaddressed: (detail) => misaddressed.push(detail),
  });
  server = await listen(createHttpApp({ webhooks: { hubspot: router } }));
});
afterEach(async () => {
  enqueueFails = false;
  storeFails = false;
  await queue.obliterate({ force: true });
});
afterAll(async () => {
  await server.close();
  await queue.obliterate({ force: true });
  await queue.close();
  redis.disconnect();
  await store.close();
});

/** Signs as HubSpot does (v3), computed here independently of the code under test. */
function sign(body: string, timestamp = Date.now(), secret = SECRET, base = PUBLIC) {
  const uri = `${base}/webhooks/hubspot`;
  return {
    'X-HubSpot-Signature-v3': createHmac('sha256', secret)
      .update(`POST${uri}${body}${timestamp}`)
      .digest('base64'),
    'X-HubSpot-Request-Timestamp': String(timestamp),
  };
}

async function post(body: string, headers: Record<string, string> = sign(body)) {
  const res = await fetch(`${server.url}/webhooks/hubspot`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', ...headers },
    body,
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

const event = (over: Record<string, unknown> = {}) => ({
  eventId: Math.floor(Math.random() * 1e9),
  subscriptionId: 1,
  portalId: Number(PORTAL),
  appId: Number(APP_ID),
  occurredAt: Date.now(),
  subscriptionType: 'company.creation',
  attemptNumber: 0,
  objectId: 1001,
  changeFlag: 'CREATED',
  changeSource: 'CRM_UI',
  ...over,
});

const waiting = async () => (await queue.getJobs(['waiting', 'prioritized', 'delayed'])).map((j) => j.data);
const webhookRuns = async () => (await repos.runs.list({ kind: 'webhook', limit: 500 })).runs;

describe('POST /webhooks/hubspot', () => {
  it('enqueues one job per company; duplicates, our own changes and other portals are ignored', async () => {
    const body = JSON.stringify([
      event({ objectId: 1001 }),
      event({ objectId: 1001, eventId: 5 }),
      event({ objectId: 1002 }),
      event({
        subscriptionType: 'company.propertyChange',
        propertyName: 'buyer_intel_status',
        objectId: 1003,
      }),
      event({
        subscriptionType: 'company.propertyChange',
        propertyName: 'name',
        sourceId: APP_ID,
        changeSource: 'INTEGRATION',
        objectId: 1004,
      }),
      event({ portalId: 999, objectId: 1005 }),
      event({ subscriptionType: 'contact.creation', objectId: 1006 }),
    ]);
    const runsBefore = (await webhookRuns()).length;
    const res = await post(body);
    expect(res).toEqual({ status: 200, body: { received: 7, enqueued: 2, ignored: 5 } });
    const jobs = await waiting();
    expect(jobs.map((j) => j.accountId).sort()).toEqual(['1001', '1002']);
    expect(jobs[0]).toMatchObject({ crm: 'hubspot', tenant: PORTAL, trigger: 'webhook' });
    // The delivery is one run, and both its jobs name it.
    const runs = await webhookRuns();
    expect(runs).toHaveLength(runsBefore + 1);
    expect(runs[0]).toMatchObject({
      kind: 'webhook',
      label: 'HubSpot webhook: 7 events',
      counts: { received: 7, queued: 2 },
    });
    expect(jobs.map((j) => j.runId)).toEqual([runs[0]?.id, runs[0]?.id]);
  });

  it('a delivery of events we ignore queues nothing and records no run', async () => {
    const runsBefore = (await webhookRuns()).length;
    const body = JSON.stringify([event({ subscriptionType: 'contact.creation', objectId: 1101 })]);
    expect(await post(body)).toEqual({ status: 200, body: { received: 1, enqueued: 0, ignored: 1 } });
    expect(await waiting()).toHaveLength(0);
    expect(await webhookRuns()).toHaveLength(runsBefore);
  });

  it('a re-delivered batch (HubSpot retries) creates no second job and is the same run', async () => {
    const first = event({ objectId: 2001 });
    const body = JSON.stringify([first]);
    expect((await post(body)).status).toBe(200);
    const runs = await webhookRuns();
    // HubSpot's retry raises attemptNumber: another body, the same events.
    const again = JSON.stringify([{ ...first, attemptNumber: 1 }]);
    // The answer says nothing was queued again.
    const duplicate = { received: 1, enqueued: 0, ignored: 0, duplicates: 1 };
    expect(await post(again)).toEqual({ status: 200, body: duplicate });
    expect(await post(body)).toEqual({ status: 200, body: duplicate });
    const jobs = await waiting();
    expect(jobs).toHaveLength(1);
    expect(await webhookRuns()).toEqual(runs);
    expect(jobs[0]?.runId).toBe(runs[0]?.id);
    // Another delivery with the same company is a run of its own.
    expect((await post(JSON.stringify([event({ objectId: 2001 })]))).status).toBe(200);
    expect(await webhookRuns()).toHaveLength(runs.length + 1);
  });

  it('a person renaming a company re-enriches it', async () => {
    const body = JSON.stringify([
      event({ subscriptionType: 'company.propertyChange', propertyName: 'name', objectId: 3001 }),
    ]);
    expect((await post(body)).body).toMatchObject({ enqueued: 1 });
  });

  it('401 for a bad signature, a wrong secret or a stale timestamp; nothing enqueued', async () => {
    const body = JSON.stringify([event()]);
    const bad = await post(body, { ...sign(body), 'X-HubSpot-Signature-v3': 'AAAA' });
    expect(bad).toMatchObject({
      status: 401,
      body: { error: 'invalid_signature', message: 'signature does not match' },
    });
    expect((await post(body, sign(body, Date.now(), 'other-secret'))).status).toBe(401);
    const stale = await post(body, sign(body, Date.now() - 6 * 60_000));
    expect(stale.body.message).toBe('timestamp older than 5 minutes');
    const tampered = await post(body.replace('1001', '1009'), sign(body));
    expect(tampered.status).toBe(401);
    expect(await waiting()).toHaveLength(0);
  });

  it('401 for a delivery signed for the address it arrived at, not PUBLIC_BASE_URL, saying which', async () => {
    misaddressed.length = 0;
    const body = JSON.stringify([event({ objectId: 1201 })]);
    // As the compose sandbox posts to http://app:3000 while PUBLIC_BASE_URL names a proxy's address.
    const res = await post(body, sign(body, Date.now(), SECRET, server.url));
    expect(res.status).toBe(401);
    expect(await waiting()).toEqual([]);
    expect(misaddressed).toEqual([{ publicBaseUrl: PUBLIC, arrivedAt: `${server.url}/webhooks/hubspot` }]);
    // A delivery signed for PUBLIC_BASE_URL, or with another secret, says nothing of the kind.
    expect((await post(body)).status).toBe(200);
    expect((await post(body, sign(body, Date.now(), 'another-secret', server.url))).status).toBe(401);
    expect(misaddressed).toHaveLength(1);
  });

  it('400 names the problem for malformed JSON and an invalid batch', async () => {
    const malformed = '[{"eventId": 1,';
    expect(await post(malformed)).toMatchObject({ status: 400, body: { error: 'malformed_json' } });
    const missing = JSON.stringify([event(), { ...event(), objectId: undefined }]);
    expect(await post(missing)).toMatchObject({
      status: 400,
      body: { error: 'invalid_batch', message: expect.stringMatching(/^\[1\]\.objectId/) },
    });
    const tooMany = JSON.stringify(Array.from({ length: 101 }, (_, i) => event({ objectId: i + 1 })));
    expect((await post(tooMany)).body.message).toContain('more than 100 events');
    expect(await waiting()).toHaveLength(0);
  });

  it('413 for an oversized body', async () => {
    const body = JSON.stringify([event({ junk: 'x'.repeat(70 * 1024) })]);
    expect(await post(body)).toMatchObject({ status: 413, body: { error: 'payload_too_large' } });
  });

  it('503 when the jobs cannot be stored, so that HubSpot retries', async () => {
    enqueueFails = true;
    const body = JSON.stringify([event({ objectId: 4001 })]);
    expect(await post(body)).toMatchObject({ status: 503, body: { error: 'queue_unavailable' } });
  });

  it('503 when the run cannot be recorded, queueing nothing; HubSpot’s retry then goes through', async () => {
    const runsBefore = (await webhookRuns()).length;
    storeFails = true;
    const body = JSON.stringify([event({ objectId: 5001 })]);
    expect(await post(body)).toMatchObject({ status: 503, body: { error: 'queue_unavailable' } });
    expect(await waiting()).toHaveLength(0);
    storeFails = false;
    expect(await post(body)).toMatchObject({ status: 200, body: { enqueued: 1 } });
    const runs = await webhookRuns();
    expect(runs).toHaveLength(runsBefore + 1);
    expect((await waiting()).map((j) => [j.accountId, j.runId])).toEqual([['5001', runs[0]?.id]]);
  });
});
