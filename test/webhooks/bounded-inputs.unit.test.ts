// Bounded inputs before any work on /webhooks/hubspot and /webhooks/salesforce (issue 45, item 3): what
// the headers can refuse (a stale timestamp, a malformed signature, a declared length over HubSpot's
// cap) is answered before the body is read — a request whose body never ends still gets its answer —
// and a signed body too deep or too wide for a delivery, or an Outbound Message nested deeper than one
// is, is refused by one pass over its text, naming the bound, before a parser builds it.
import { randomUUID } from 'node:crypto';
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HUBSPOT_MAX_BODY_BYTES, hubspotEventHandler } from '../../connectors/hubspot/events.ts';
import { hubspotSignatureV3 } from '../../connectors/hubspot/webhook-signature.ts';
import { salesforceId18 } from '../../connectors/salesforce/ids.ts';
import { id15, salesforceOutboundHandler } from '../../connectors/salesforce/outbound-messages.ts';
import { createHttpApp } from '../../src/service/http-app.ts';
import { type Listening, listen } from '../../src/service/listen.ts';
import { Store } from '../../src/store/store.ts';
import { webhookReceiver } from '../../src/webhooks/receiver.ts';
import { serviceDatabase } from '../helpers/test-database.ts';

const SECRET = randomUUID();
const ORG = salesforceId18('00D000000000001') ?? '';
const TOKEN = randomUUID().replaceAll('-', '');

let server: Listening;
let store: Store;
const queued: unknown[] = [];

beforeAll(async () => {
  store = new Store(await serviceDatabase());
  const receiver = (handler: Parameters<typeof webhookReceiver>[0], crmLabel: string) =>
    webhookReceiver(handler, {
      attempts: 1,
      enqueue: async (jobs) => {
        queued.push(...jobs);
      },
      store,
      crmLabel,
    });
  const hubspot = hubspotEventHandler({ clientSecret: SECRET, isKnownPortal: () => true });
  const salesforce = salesforceOutboundHandler({
    isKnownOrg: (org) => org === id15(ORG),
    tokensOf: (org) => (org === id15(ORG) ? [TOKEN] : []),
    orgs: () => [ORG],
  });
  server = await listen(
    createHttpApp({
      webhooks: { hubspot: receiver(hubspot, 'HubSpot'), salesforce: receiver(salesforce, 'Salesforce') },
    }),
  );
});
afterAll(async () => {
  await server?.close();
  await store?.close();
});

/** Sends the head and a first chunk of a body of `length` bytes, never the rest; resolves with the answer. */
function postUnfinished(
  path: string,
  headers: Record<string, string>,
  length: number,
): Promise<{ status: number; body: string; connection: string | undefined }> {
  return new Promise((resolve, reject) => {
    const req = request(`${server.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers, 'content-length': String(length) },
    });
    req.on('response', (res) => {
      let body = '';
      res.on('data', (c: Buffer) => {
        body += c.toString();
      });
      res.on('end', () => {
        resolve({ status: res.statusCode ?? 0, body, connection: res.headers.connection });
        req.destroy();
      });
    });
    req.on('error', reject);
    req.write('[{"eventId":1,');
  });
}

const hubspotUrl = () => `${server.url}/webhooks/hubspot`;
const signed = (body: string, timestamp = String(Date.now())) => ({
  'x-hubspot-request-timestamp': timestamp,
  'x-hubspot-signature-v3': hubspotSignatureV3(SECRET, 'POST', hubspotUrl(), body, timestamp),
});
const postHubSpot = async (body: string) => {
  const res = await fetch(hubspotUrl(), {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...signed(body) },
    body,
  });
  return { status: res.status, body: (await res.json()) as { error?: string; message?: string } };
};

describe('HubSpot deliveries', () => {
  it('refuses a stale or malformed signature from the headers, before the body (which never ends) is read', async () => {
    const stale = await postUnfinished(
      '/webhooks/hubspot',
      signed('[]', String(Date.now() - 10 * 60_000)),
      100_000,
    );
    expect([stale.status, JSON.parse(stale.body).message]).toEqual([401, 'timestamp older than 5 minutes']);
    expect(stale.connection).toBe('close');
    const malformed = await postUnfinished(
      '/webhooks/hubspot',
      { 'x-hubspot-request-timestamp': String(Date.now()), 'x-hubspot-signature-v3': 'not-base64' },
      100_000,
    );
    expect([malformed.status, JSON.parse(malformed.body).error]).toEqual([401, 'invalid_signature']);
  });

  it('refuses a declared length over what HubSpot sends before reading it', async () => {
    const big = await postUnfinished('/webhooks/hubspot', signed('[]'), HUBSPOT_MAX_BODY_BYTES + 1);
    expect([big.status, JSON.parse(big.body).error]).toEqual([413, 'payload_too_large']);
  });

  it('refuses a signed body nested deeper or holding more values than a delivery, naming the bound', async () => {
    const deep = await postHubSpot(`${'['.repeat(5_000)}${']'.repeat(5_000)}`);
    expect([deep.status, deep.body.message]).toEqual([400, 'the JSON nests deeper than 8 levels']);
    const wide = await postHubSpot(`[${'{},'.repeat(20_000)}{}]`);
    expect([wide.status, wide.body.message]).toEqual([400, 'the JSON holds more than 5000 values']);
    expect(queued).toEqual([]);
  });
});

describe('Salesforce Outbound Messages', () => {
  it('refuses an envelope nested deeper than an Outbound Message is, under the element cap', async () => {
    const levels = 5_000;
    const xml =
      '<?xml version="1.0" encoding="UTF-8"?><soapenv:Envelope xmlns:soapenv="http://schemas.xmlsoap.org/soap/envelope/"><soapenv:Body>' +
      `<notifications xmlns="http://soap.sforce.com/2005/09/outbound"><OrganizationId>${ORG}</OrganizationId>` +
      `${'<a>'.repeat(levels)}${'</a>'.repeat(levels)}</notifications></soapenv:Body></soapenv:Envelope>`;
    const res = await fetch(`${server.url}/webhooks/salesforce?token=${TOKEN}`, {
      method: 'POST',
      headers: { 'content-type': 'text/xml; charset=utf-8' },
      body: xml,
    });
    expect(res.status).toBe(400);
    expect(await res.text()).toContain('XML nested deeper than 16 levels');
  });
});
