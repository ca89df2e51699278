// Nothing expensive before authentication on /webhooks/salesforce: a wrong endpoint token is refused
// before the body is even read (a request whose body never ends still gets its 403), and a token
// checked against the org the envelope states is refused before any XML is parsed (a malformed body
// behind another org's token is a 403, not a parse error).
import { randomUUID } from 'node:crypto';
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { salesforceId18 } from '../../connectors/salesforce/ids.ts';
import { id15, salesforceOutboundHandler } from '../../connectors/salesforce/outbound-messages.ts';
import { createHttpApp } from '../../src/service/http-app.ts';
import { type Listening, listen } from '../../src/service/listen.ts';
import { Store } from '../../src/store/store.ts';
import { webhookReceiver } from '../../src/webhooks/receiver.ts';
import { serviceDatabase } from '../helpers/test-database.ts';

const ORG_A = salesforceId18('00D000000000001') ?? '';
const ORG_B = salesforceId18('00D000000000002') ?? '';
const TOKENS: Record<string, string[]> = {
  [id15(ORG_A)]: [randomUUID().replaceAll('-', '')],
  [id15(ORG_B)]: [randomUUID().replaceAll('-', '')],
};
const tokenOf = (org: string) => TOKENS[id15(org)]?.[0] ?? '';

let server: Listening;
let store: Store;
const queued: unknown[] = [];

beforeAll(async () => {
  store = new Store(await serviceDatabase());
  const handler = salesforceOutboundHandler({
    isKnownOrg: (org) => org in TOKENS,
    tokensOf: (org) => TOKENS[org] ?? [],
    orgs: () => [ORG_A, ORG_B],
  });
  const router = webhookReceiver(handler, {
    attempts: 1,
    enqueue: async (jobs) => {
      queued.push(...jobs);
    },
    store,
    crmLabel: 'Salesforce',
  });
  server = await listen(createHttpApp({ webhooks: { salesforce: router } }));
});
afterAll(async () => {
  await server?.close();
  await store?.close();
});

/** Sends the head and `firstChunk` of a 1 MB body, never the rest; resolves with the answer. */
function postUnfinished(path: string, firstChunk: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(`${server.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'text/xml; charset=utf-8', 'content-length': String(1024 * 1024) },
    });
    req.on('response', (res) => {
      let body = '';
      res.on('data', (c: Buffer) => {
        body += c.toString();
      });
      res.on('end', () => {
        resolve({ status: res.statusCode ?? 0, body });
        req.destroy();
      });
    });
    req.on('error', reject);
    req.write(firstChunk);
  });
}

const post = async (path: string, body: string) => {
  const res = await fetch(`${server.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'text/xml; charset=utf-8' },
    body,
  });
  return { status: res.status, text: await res.text() };
};

/** ~1 MB of XML with ~90,000 attributes: what cost 1.15–1.45 s of parsing per request before. */
const heavy = (org: string) =>
  `<?xml version="1.0"?><soapenv:Envelope xmlns:soapenv="http://schemas.xmlsoap.org/soap/envelope/"><soapenv:Body><notifications><OrganizationId>${org}</OrganizationId><x ${Array.from({ length: 90_000 }, (_, i) => `a${i}="1"`).join(' ')}/></notifications></soapenv:Body></soapenv:Envelope>`;

describe('/webhooks/salesforce authenticates before the expensive work', () => {
  it('refuses a token no org has before reading the body: an unfinished 1 MB upload gets its 403', async () => {
    const res = await postUnfinished(`/webhooks/salesforce?token=${'f'.repeat(32)}`, '<?xml version="1.0"?>');
    expect(res.status).toBe(403);
    expect(res.body).toContain('<faultcode>soapenv:Client</faultcode>');
    const none = await postUnfinished('/webhooks/salesforce', '<?xml');
    expect(none.status).toBe(401);
  });

  it("refuses org B's envelope behind org A's token before parsing it (403, not a parse error)", async () => {
    const malformed = `<soapenv:Envelope><soapenv:Body><notifications><OrganizationId>${ORG_B}</OrganizationId><<<not xml`;
    const res = await post(`/webhooks/salesforce?token=${tokenOf(ORG_A)}`, malformed);
    expect(res.status).toBe(403);
    expect(res.text).toContain(`OrganizationId ${ORG_B}`);
    const big = await post(`/webhooks/salesforce?token=${tokenOf(ORG_A)}`, heavy(ORG_B));
    expect(big.status).toBe(403);
    // The same body behind B's own token is parsed, and refused as what it is: no Outbound Message.
    const own = await post(`/webhooks/salesforce?token=${tokenOf(ORG_B)}`, malformed);
    expect(own.status).toBe(400);
    // Even B's own token does not buy a parse of 90,000 attributes.
    const ownHeavy = await post(`/webhooks/salesforce?token=${tokenOf(ORG_B)}`, heavy(ORG_B));
    expect(ownHeavy.status).toBe(400);
    expect(ownHeavy.text).toContain('more than 2000 XML attributes');
    // Nor one of 200,000 empty elements (~1 MB): 1.4 s of the event loop before this bound.
    const elements = `<?xml version="1.0"?><soapenv:Envelope xmlns:soapenv="http://schemas.xmlsoap.org/soap/envelope/"><soapenv:Body><notifications><OrganizationId>${ORG_B}</OrganizationId>${'<e/>'.repeat(200_000)}</notifications></soapenv:Body></soapenv:Envelope>`;
    const many = await post(`/webhooks/salesforce?token=${tokenOf(ORG_B)}`, elements);
    expect([many.status, many.text]).toEqual([400, expect.stringContaining('more than 10000 XML elements')]);
    expect(queued).toHaveLength(0);
  });

  it('refuses an envelope whose parsed org is not the one the token was checked for', async () => {
    // A second OrganizationId (one in a comment first): the scan sees A, the parser B.
    const body = `<?xml version="1.0"?><soapenv:Envelope xmlns:soapenv="http://schemas.xmlsoap.org/soap/envelope/"><soapenv:Body><!-- <OrganizationId>${ORG_A}</OrganizationId> --><notifications xmlns="http://soap.sforce.com/2005/09/outbound"><OrganizationId>${ORG_B}</OrganizationId><Notification><Id>${salesforceId18('04l000000000001')}</Id><sObject xsi:type="sf:Account" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns:sf="urn:sobject.enterprise.soap.sforce.com"><sf:Id>${salesforceId18('001000000000001')}</sf:Id></sObject></Notification></notifications></soapenv:Body></soapenv:Envelope>`;
    const res = await post(`/webhooks/salesforce?token=${tokenOf(ORG_A)}`, body);
    expect(res.status).toBe(403);
    expect(queued).toHaveLength(0);
    const fair = await post(`/webhooks/salesforce?token=${tokenOf(ORG_B)}`, body.replace(/<!--.*?-->/, ''));
    expect(fair.text).toContain('<Ack>true</Ack>');
    expect(queued).toHaveLength(1);
  });
});
