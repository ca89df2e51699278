// POST /webhooks/salesforce fed by the Salesforce emulator's own Outbound Message sender, enqueuing
// into a real BullMQ queue on real Redis, each message recorded as a run in the embedded database.
import { randomUUID } from 'node:crypto';
import type { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { id15, salesforceOutboundHandler } from '../../connectors/salesforce/outbound-messages.ts';
import { type RunningSalesforceSandbox, startSalesforceSandbox } from '../../emulators/salesforce/server.ts';
import { createEnrichQueue, type EnrichQueueData } from '../../queues/enrich-queue.ts';
import { createHttpApp } from '../../src/service/http-app.ts';
import { type Listening, listen } from '../../src/service/listen.ts';
import { type Repositories, Store } from '../../src/store/store.ts';
import { webhookReceiver } from '../../src/webhooks/receiver.ts';
import { eventually } from '../helpers/poll.ts';
import { serviceDatabase } from '../helpers/test-database.ts';

let redis: Redis;
let queue: Queue<EnrichQueueData>;
let server: Listening;
let sf: RunningSalesforceSandbox;
let enqueueFails = false;
let storeFails = false;
let store: Store;
let repos: Repositories;
const prefix = `test-sf-outbound-${randomUUID()}`;
const TOKEN = randomUUID().replaceAll('-', '');

beforeAll(async () => {
  redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', { maxRetriesPerRequest: null });
  queue = createEnrichQueue(redis, { prefix });
  store = new Store(await serviceDatabase());
  repos = await store.open();
  sf = await startSalesforceSandbox({});
  const handler = salesforceOutboundHandler({
    isKnownOrg: (org) => org === id15(sf.orgId),
    tokensOf: (org) => (org === id15(sf.orgId) ? [TOKEN] : []),
  });
  const router = webhookReceiver(handler, {
    attempts: 3,
    maxBodyBytes: 64 * 1024,
    enqueue: async (jobs) => {
      if (enqueueFails) throw new Error('Redis is down');
      return queue.addBulk(jobs);
    },
    store: {
      open: () => (storeFails ? Promise.reject(new Error('the database is down')) : store.open()),
    },
    crmLabel: 'Salesforce',
  });
  server = await listen(createHttpApp({ webhooks: { salesforce: router } }));
  sf.outbound.configure({
    endpointUrl: `${server.url}/webhooks/salesforce?token=${TOKEN}`,
    batchWindowMs: 10,
    retryDelaysMs: [20, 40, 80],
  });
});
afterEach(async () => {
  enqueueFails = false;
  storeFails = false;
  await queue.obliterate({ force: true });
});
afterAll(async () => {
  await Promise.all([server.close(), sf.close()]);
  await queue.obliterate({ force: true });
  await queue.close();
  redis.disconnect();
  await store.close();
});

const jobs = async () => (await queue.getJobs(['waiting', 'prioritized', 'delayed'])).map((j) => j.data);
const webhookRuns = async () => (await repos.runs.list({ kind: 'webhook', limit: 500 })).runs;

/** The envelope of the last message the emulator sent, to replay by hand. */
const lastEnvelope = () => {
  const body = sf.outbound.deliveries.at(-1)?.requestBody;
  if (!body) throw new Error('no delivery recorded');
  return body;
};

const post = (body: string) =>
  fetch(`${server.url}/webhooks/salesforce?token=${TOKEN}`, {
    method: 'POST',
    headers: { 'Content-Type': 'text/xml; charset=utf-8', SOAPAction: '""' },
    body,
  }).then(async (r) => ({ status: r.status, text: await r.text() }));

/**
 * Waits for the emulator's `count`-th delivery to have been answered by the receiver: a delivery is
 * listed when it is sent, and a job it queues must not land after the test cleared the queue.
 */
const answered = (count: number, what: string) =>
  eventually(async () => {
    const delivery = sf.outbound.deliveries[count - 1];
    return delivery !== undefined && (delivery.status !== undefined || delivery.error !== undefined);
  }, what);

describe('POST /webhooks/salesforce', () => {
  it('a new Account arrives as an Outbound Message, is queued once, and is acknowledged', async () => {
    const account = sf.store.create('Account', { Name: 'City of Austin', BillingState: 'TX' });
    await eventually(async () => sf.outbound.deliveries.some((d) => d.acked), 'an acknowledged delivery');
    expect(await jobs()).toEqual([
      expect.objectContaining({
        crm: 'salesforce',
        tenant: id15(sf.orgId),
        accountId: account.id,
        trigger: 'webhook',
      }),
    ]);
    const [run, ...others] = await webhookRuns();
    expect(others).toEqual([]);
    expect(run).toMatchObject({ label: 'Salesforce webhook: 1 event', counts: { received: 1, queued: 1 } });
    expect((await jobs())[0]?.runId).toBe(run?.id);
    // Salesforce may deliver the same message twice: still one job, and the same run.
    const again = await post(lastEnvelope());
    expect(again.status).toBe(200);
    expect(again.text).toContain('<Ack>true</Ack>');
    expect(await jobs()).toHaveLength(1);
    expect(await webhookRuns()).toEqual([run]);
  });

  it('faults a malformed envelope, a DOCTYPE and an unknown org, enqueuing nothing', async () => {
    const notXml = await post('hello');
    expect(notXml.status).toBe(400);
    expect(notXml.text).toContain('<faultcode>soapenv:Client</faultcode>');
    const lol = `<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;">]><x>&lol2;</x>`;
    expect((await post(lol)).text).toContain('DOCTYPE and ENTITY declarations are not accepted');
    // The org's own token (checked before parsing) lets the parse find what is missing.
    const noNotification = await post(
      `<soapenv:Envelope xmlns:soapenv="http://schemas.xmlsoap.org/soap/envelope/"><soapenv:Body><notifications xmlns="http://soap.sforce.com/2005/09/outbound"><OrganizationId>${sf.orgId}</OrganizationId></notifications></soapenv:Body></soapenv:Envelope>`,
    );
    expect(noNotification.text).toContain('Envelope.Body.notifications.Notification');
    sf.store.create('Account', { Name: 'Travis County', BillingState: 'TX' });
    await answered(2, 'a second delivery');
    const foreign = lastEnvelope().replace(
      /<OrganizationId>[^<]+<\/OrganizationId>/,
      '<OrganizationId>00D000000000999EAA</OrganizationId>',
    );
    const unknown = await post(foreign);
    expect(unknown.status).toBe(403);
    expect(unknown.text).toContain('not valid for OrganizationId 00D000000000999EAA');
    await queue.obliterate({ force: true });
    expect(await jobs()).toEqual([]);
  });

  it('answers a Server fault when the jobs cannot be stored, so that Salesforce retries', async () => {
    sf.store.create('Account', { Name: 'Austin ISD', BillingState: 'TX' });
    await answered(3, 'a third delivery');
    await queue.obliterate({ force: true });
    enqueueFails = true;
    const res = await post(lastEnvelope());
    expect(res.status).toBe(503);
    expect(res.text).toContain('<faultcode>soapenv:Server</faultcode>');
  });

  it('answers a Server fault when the run cannot be recorded, queueing nothing', async () => {
    sf.store.create('Account', { Name: 'Hays County', BillingState: 'TX' });
    await answered(4, 'a fourth delivery');
    await queue.obliterate({ force: true });
    storeFails = true;
    const res = await post(lastEnvelope());
    expect(res.status).toBe(503);
    expect(res.text).toContain('<faultcode>soapenv:Server</faultcode>');
    expect(await jobs()).toEqual([]);
  });
});
