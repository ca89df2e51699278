// Webhooks from the HubSpot sandbox to a real local receiver: batched events, the v3 signature checked
// with the receiver's own HMAC computation, and HubSpot's retry (attemptNumber 1) after a 500 or no answer.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { Client } from '@hubspot/api-client';
import express from 'express';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type RunningHubSpotSandbox, startHubSpotSandbox } from '../../emulators/hubspot/server.ts';
import { type Listening, listen } from '../../src/service/listen.ts';
import { eventually } from '../helpers/poll.ts';

interface Received {
  headers: Record<string, string | string[] | undefined>;
  raw: string;
  events: Record<string, unknown>[];
  answered: number;
}

/** A webhook endpoint that answers with the scripted statuses (then 200), optionally after a pause. */
class Receiver {
  readonly received: Received[] = [];
  script: { status: number; delayMs?: number }[] = [];
  listening?: Listening;

  async start(): Promise<string> {
    const app = express();
    app.post('/hubspot/webhooks', express.raw({ type: '*/*' }), async (req, res) => {
      const next = this.script.shift() ?? { status: 200 };
      const raw = (req.body as Buffer).toString('utf8');
      this.received.push({
        headers: req.headers,
        raw,
        events: JSON.parse(raw) as Record<string, unknown>[],
        answered: next.status,
      });
      if (next.delayMs) await new Promise((r) => setTimeout(r, next.delayMs));
      if (!res.writableEnded) res.status(next.status).end();
    });
    this.listening = await listen(app);
    return `${this.listening.url}/hubspot/webhooks`;
  }
}

/** The receiver's own check of X-HubSpot-Signature-v3 (not the sandbox's code). */
function verifyV3(secret: string, url: string, r: Received): boolean {
  const timestamp = String(r.headers['x-hubspot-request-timestamp'] ?? '');
  const signature = String(r.headers['x-hubspot-signature-v3'] ?? '');
  if (!timestamp || Math.abs(Date.now() - Number(timestamp)) > 5 * 60_000) return false;
  const expected = createHmac('sha256', secret).update(`POST${url}${r.raw}${timestamp}`).digest();
  const given = Buffer.from(signature, 'base64');
  return given.length === expected.length && timingSafeEqual(given, expected);
}

let sandbox: RunningHubSpotSandbox;
let receiver: Receiver;
let url: string;
beforeAll(async () => {
  receiver = new Receiver();
  url = await receiver.start();
  sandbox = await startHubSpotSandbox({
    // A timeout a loaded machine never reaches by accident; the test of timeouts sets a short one.
    webhooks: { targetUrl: url, retryDelaysMs: () => 20, timeoutMs: 10_000 },
    rateLimits: false,
  });
});
afterAll(async () => {
  await sandbox.close();
  await receiver.listening?.close();
});
afterEach(async () => {
  await sandbox.webhooks.idle();
  receiver.received.length = 0;
  receiver.script = [];
});

describe('HubSpot sandbox webhooks', () => {
  it('batches events, signs them (v3), and retries with attemptNumber 1 after a 500', async () => {
    receiver.script = [{ status: 500 }];
    const companies = ['Austin ISD', 'Leander ISD', 'Hutto ISD'].map((name, i) =>
      sandbox.store.createCompany({ name, domain: `district${i}.org`, city: 'Austin' }, { source: 'CRM_UI' }),
    );
    await eventually(() => receiver.received.length >= 2, 'the retry');
    await sandbox.webhooks.idle();

    const [first, retry] = receiver.received;
    if (!first || !retry) throw new Error('expected two requests');
    expect(first.answered).toBe(500);
    expect(retry.answered).toBe(200);
    for (const r of [first, retry]) {
      expect(r.headers['content-type']).toBe('application/json');
      expect(verifyV3(sandbox.clientSecret, url, r)).toBe(true);
      expect(verifyV3('some-other-secret', url, r)).toBe(false);
    }

    // One batch: a creation plus name and domain changes per company (city has no subscription).
    expect(first.events).toHaveLength(9);
    expect(first.events.every((e) => e.attemptNumber === 0)).toBe(true);
    expect(retry.events.every((e) => e.attemptNumber === 1)).toBe(true);
    expect(retry.events.map((e) => e.eventId)).toEqual(first.events.map((e) => e.eventId));

    const creations = first.events.filter((e) => e.subscriptionType === 'company.creation');
    expect(creations.map((e) => e.objectId)).toEqual(companies.map((c) => Number(c.id)));
    for (const e of creations) {
      expect(e).toMatchObject({
        portalId: sandbox.portalId,
        appId: sandbox.appId,
        changeFlag: 'CREATED',
        changeSource: 'CRM_UI',
        sourceId: `userId:${sandbox.store.userId}`,
      });
      expect(typeof e.eventId).toBe('number');
      expect(typeof e.subscriptionId).toBe('number');
      expect(typeof e.occurredAt).toBe('number');
    }
    const changes = first.events.filter((e) => e.subscriptionType === 'company.propertyChange');
    expect(changes.map((e) => e.propertyName).sort()).toEqual([
      'domain',
      'domain',
      'domain',
      'name',
      'name',
      'name',
    ]);

    const delivery = sandbox.webhooks.deliveries.at(-1);
    expect(delivery).toMatchObject({ url, state: 'delivered', lastStatus: 200 });
    expect(delivery?.attempts.map((a) => [a.attemptNumber, a.status])).toEqual([
      [0, 500],
      [1, 200],
    ]);
  });

  it('sends API writes with their changeSource, only for subscribed properties that changed', async () => {
    const hubspot = new Client({
      accessToken: sandbox.accessToken,
      basePath: sandbox.url,
      numberOfApiCallRetries: 0,
    });
    const company = await hubspot.crm.companies.basicApi.create({
      properties: { name: 'Travis County', city: 'Austin' },
    });
    await hubspot.crm.companies.basicApi.update(company.id, {
      properties: { name: 'Travis County', city: 'Manor' },
    });
    await hubspot.crm.companies.basicApi.update(company.id, { properties: { name: 'Travis County TX' } });
    await hubspot.crm.companies.batchApi.update({
      inputs: [{ id: company.id, properties: { domain: 'traviscountytx.gov' } }],
    });
    sandbox.store.updateCompany(company.id, { name: 'Travis County, Texas' });
    await eventually(() => receiver.received.flatMap((r) => r.events).length >= 5, 'five events');
    await sandbox.webhooks.idle();

    // HubSpot does not guarantee order across requests; eventIds here increase with occurrence.
    const events = receiver.received
      .flatMap((r) => r.events)
      .sort((a, b) => Number(a.eventId) - Number(b.eventId));
    expect(
      events.map((e) => [
        e.subscriptionType,
        e.propertyName ?? null,
        e.propertyValue ?? null,
        e.changeSource,
      ]),
    ).toEqual([
      ['company.creation', null, null, 'INTEGRATION'],
      ['company.propertyChange', 'name', 'Travis County', 'INTEGRATION'],
      ['company.propertyChange', 'name', 'Travis County TX', 'INTEGRATION'],
      ['company.propertyChange', 'domain', 'traviscountytx.gov', 'INTEGRATION'],
      ['company.propertyChange', 'name', 'Travis County, Texas', 'CRM_UI'],
    ]);
    expect(events.slice(0, 4).every((e) => e.sourceId === String(sandbox.auth.privateAppId))).toBe(true);
    expect(new Set(events.map((e) => e.eventId)).size).toBe(5);
    // One subscription per property.
    const nameSubscription = events.find((e) => e.propertyName === 'name')?.subscriptionId;
    expect(
      events.filter((e) => e.propertyName === 'name').every((e) => e.subscriptionId === nameSubscription),
    ).toBe(true);
    expect(events.find((e) => e.propertyName === 'domain')?.subscriptionId).not.toBe(nameSubscription);
  });

  it('retries a request that gets no answer in time, and splits batches at the batch size', async () => {
    sandbox.webhooks.configure({ maxBatchSize: 2, propertyChanges: [], timeoutMs: 300 });
    const before = sandbox.webhooks.deliveries.length;
    try {
      receiver.script = [{ status: 200, delayMs: 1000 }];
      for (const name of ['A', 'B', 'C']) sandbox.store.createCompany({ name });
      await eventually(() => receiver.received.length >= 3, 'two batches and a retry');
      await sandbox.webhooks.idle();

      const sizes = receiver.received.map((r) => r.events.length);
      expect(sizes.sort()).toEqual([1, 2, 2]);
      const retried = receiver.received.filter((r) => r.events[0]?.attemptNumber === 1);
      expect(retried).toHaveLength(1);
      const timedOut = sandbox.webhooks.deliveries.slice(before).find((d) => d.attempts.length === 2);
      expect(timedOut?.attempts[0]?.error).toMatch(/no answer within 300 ms/);
      expect(timedOut?.state).toBe('delivered');
    } finally {
      sandbox.webhooks.configure({
        maxBatchSize: 100,
        propertyChanges: ['name', 'domain'],
        timeoutMs: 10_000,
      });
    }
  });
});
