// Issue #16's findings, each reproduced from outside over real HTTP against a running service on the
// emulators and real Redis: no Salesforce message without its org's token and no org id taken on 15
// characters; a forged repeat with new notification ids is one job; every body endpoint checks its
// content type; ids are checked by format before they travel; the refresh API refuses unknown
// accounts, malformed tenants and a signed caller outside its org; /metrics, the API docs and the
// admin pages are closed as configured.
import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hubspotSignatureV3 } from '../../connectors/hubspot/webhook-signature.ts';
import { salesforceId18 } from '../../connectors/salesforce/ids.ts';
import {
  salesforceRequestSignatureV2,
  salesforceRequestSignatureV3,
} from '../../connectors/salesforce/request-signature.ts';
import type { RunningHubSpotSandbox } from '../../emulators/hubspot/server.ts';
import type { RunningSalesforceSandbox } from '../../emulators/salesforce/server.ts';
import { jobIdOf } from '../../queues/enrich-queue.ts';
import type { Service } from '../../src/service/runtime.ts';
import { signStandardWebhook } from '../../src/signals/standard-webhooks.ts';
import { startTestService, type TestService } from '../helpers/start-service.ts';

const API_KEY = `key-${randomBytes(16).toString('hex')}`;
const SF_SECRET = randomBytes(32).toString('hex');
const METRICS_TOKEN = randomBytes(16).toString('hex');
const ADMIN = { username: 'ops', password: randomBytes(12).toString('hex') };
const TOKEN_OLD = randomBytes(20).toString('hex');
const TOKEN_NEW = randomBytes(20).toString('hex');
const BI_SECRET = `whsec_${randomBytes(24).toString('base64')}`;
// A second org, kept as a tenant: it makes a signature that names no org ambiguous.
const OTHER_ORG = salesforceId18('00D0000000000Zz') ?? '';

let running: TestService;

let hs: RunningHubSpotSandbox;
let sf: RunningSalesforceSandbox;
let service: Service;
let base: string;

beforeAll(async () => {
  running = await startTestService({
    name: 'inbound',
    worker: { writeBatchWaitMs: 20 },
    settings: (s) => {
      const sfConfig = s.crms.salesforce as { org: object };
      return {
        ...s,
        buyerIntel: { ...s.buyerIntel, webhooks: { secrets: [BI_SECRET], publicKeys: [] } },
        crms: {
          ...s.crms,
          salesforce: {
            ...sfConfig,
            org: { ...sfConfig.org, outboundTokens: [TOKEN_OLD, TOKEN_NEW] },
            requestSecrets: [SF_SECRET],
          },
        },
        api: { apiKeys: [API_KEY] },
        admin: ADMIN,
        security: { metrics: { token: METRICS_TOKEN }, apiDocsPublic: false, inboundAccountWindowMs: 60_000 },
      };
    },
    // A second org, kept as a tenant: it makes a signature that names no org ambiguous.
    storedOrgs: [{ orgId: OTHER_ORG }],
    // No worker: the tests count the jobs each request queues.
  });
  ({ hs, service, base } = running);
  if (!running.sf) throw new Error('the Salesforce emulator runs');
  sf = running.sf;
});
afterAll(async () => {
  await running?.close();
});

/** A Uint8Array body goes without a Content-Type unless one is given (a string would be text/plain). */
const post = async (
  path: string,
  body: string | Uint8Array<ArrayBuffer>,
  headers: Record<string, string>,
) => {
  const res = await fetch(`${base}${path}`, { method: 'POST', headers, body });
  return { status: res.status, type: res.headers.get('content-type') ?? '', text: await res.text() };
};
const jobsOf = async (accountId: string) =>
  (await service.queue.getJobs(['waiting', 'prioritized', 'delayed', 'active', 'completed'])).filter(
    (j) => j.data.accountId === accountId,
  );

const SOAP = { 'content-type': 'text/xml; charset=utf-8', soapaction: '""' };
const envelope = (org: string, account: string, notificationId: string) =>
  `<?xml version="1.0" encoding="UTF-8"?><soapenv:Envelope xmlns:soapenv="http://schemas.xmlsoap.org/soap/envelope/"><soapenv:Body><notifications xmlns="http://soap.sforce.com/2005/09/outbound"><OrganizationId>${org}</OrganizationId><Notification><Id>${notificationId}</Id><sObject xsi:type="sf:Account" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns:sf="urn:sobject.enterprise.soap.sforce.com"><sf:Id>${account}</sf:Id></sObject></Notification></notifications></soapenv:Body></soapenv:Envelope>`;
let notificationSeq = 100;
const notificationId = () => salesforceId18(`04l000000000${notificationSeq++}`) ?? '';
const sfAccount = () => sf.store.create('Account', { Name: 'Travis County', BillingState: 'TX' }).id;

describe('1. Salesforce Outbound Messages need the org token; org ids are checked on 18 characters', () => {
  it('refuses a message without a token (401) or with a wrong one (403), with a SOAP fault, queuing nothing', async () => {
    const account = sfAccount();
    const body = envelope(sf.orgId, account, notificationId());
    const none = await post('/webhooks/salesforce', body, SOAP);
    expect(none.status).toBe(401);
    expect(none.text).toContain('<faultcode>soapenv:Client</faultcode>');
    const wrong = await post(`/webhooks/salesforce?token=${randomBytes(20).toString('hex')}`, body, SOAP);
    expect(wrong.status).toBe(403);
    expect(wrong.text).toContain('<faultcode>soapenv:Client</faultcode>');
    // The other org's token does not open this one (it has none).
    expect(await jobsOf(account)).toHaveLength(0);
  });

  it('takes either of the two active tokens (rotation)', async () => {
    for (const token of [TOKEN_OLD, TOKEN_NEW]) {
      const account = sfAccount();
      const res = await post(
        `/webhooks/salesforce?token=${token}`,
        envelope(sf.orgId, account, notificationId()),
        SOAP,
      );
      expect(res.text).toContain('<Ack>true</Ack>');
      expect(await jobsOf(account)).toHaveLength(1);
    }
  });

  it('refuses an org id whose last 3 characters are not its checksum (00D…ZZZ)', async () => {
    const forged = `${sf.orgId.slice(0, 15)}ZZZ`;
    const res = await post(
      `/webhooks/salesforce?token=${TOKEN_OLD}`,
      envelope(forged, sfAccount(), notificationId()),
      SOAP,
    );
    expect(res.status).toBe(400);
    expect(res.text).toContain('not a Salesforce id');
  });

  it('makes one job of a repeat with new notification ids (the per-account window)', async () => {
    const account = sfAccount();
    for (let i = 0; i < 4; i++) {
      const res = await post(
        `/webhooks/salesforce?token=${TOKEN_NEW}`,
        envelope(sf.orgId, account, notificationId()),
        SOAP,
      );
      expect(res.text).toContain('<Ack>true</Ack>');
    }
    expect(await jobsOf(account)).toHaveLength(1);
  });
});

describe('2. every endpoint checks its content type', () => {
  it('the SOAP endpoint answers 415 with a SOAP fault to JSON or no content type', async () => {
    const body = envelope(sf.orgId, sfAccount(), notificationId());
    const cases: [string | Uint8Array<ArrayBuffer>, Record<string, string>][] = [
      [body, { 'content-type': 'application/json' }],
      [new Uint8Array(Buffer.from(body)), {}],
    ];
    for (const [sent, headers] of cases) {
      const res = await post(`/webhooks/salesforce?token=${TOKEN_OLD}`, sent, headers);
      expect(res.status).toBe(415);
      expect(res.text).toContain('<faultcode>soapenv:Client</faultcode>');
      expect(res.text).toContain('text/xml');
    }
  });

  it('HubSpot webhooks, provider webhooks and the API answer 415 with JSON to text/plain', async () => {
    for (const path of ['/webhooks/hubspot', '/webhooks/buyer-intel', '/api/refresh']) {
      const res = await post(path, '[]', {
        'content-type': 'text/plain',
        authorization: `Bearer ${API_KEY}`,
      });
      expect(res.status, path).toBe(415);
      expect(JSON.parse(res.text)).toMatchObject({ error: 'unsupported_media_type' });
      expect(res.text).toContain('application/json');
    }
  });
});

describe('3 and 6. ids are checked by format before they travel; job ids are collision-free', () => {
  it('refuses a signed provider webhook whose bridgeId is ".." (no job, no call)', async () => {
    const id = `msg_${randomUUID()}`;
    const body = JSON.stringify({
      type: 'bridge.row.created',
      timestamp: new Date().toISOString(),
      data: { rowId: randomUUID(), bridgeId: '..', name: 'x', updatedAt: new Date().toISOString() },
    });
    const signed = signStandardWebhook({ secret: BI_SECRET }, id, Math.floor(Date.now() / 1000), body);
    const res = await post('/webhooks/buyer-intel', body, { 'content-type': 'application/json', ...signed });
    expect(res.status).toBe(400);
    expect(res.text).toContain('bridgeId');
  });

  it('refuses a HubSpot account id that is not a number and a Salesforce one without its checksum', async () => {
    const auth = { 'content-type': 'application/json', authorization: `Bearer ${API_KEY}` };
    const hubspot = await post('/api/refresh', JSON.stringify({ crm: 'hubspot', accountId: 'abc' }), auth);
    expect(hubspot.status).toBe(400);
    const forged = `${sfAccount().slice(0, 15)}ZZZ`;
    const salesforce = await post(
      '/api/refresh',
      JSON.stringify({ crm: 'salesforce', tenant: sf.orgId, accountId: forged }),
      auth,
    );
    expect(salesforce.status).toBe(400);
    expect(JSON.parse(salesforce.text)).toMatchObject({ error: 'invalid_account_id' });
  });

  it('gives two different source ids two different job ids', () => {
    expect(jobIdOf('bi-webhook', 'a:b*c?../x')).not.toBe(jobIdOf('bi-webhook', 'a_b_c_.._x'));
    expect(jobIdOf('a.b', 'c')).not.toBe(jobIdOf('a', 'b.c'));
    expect(jobIdOf('bi-webhook', 'a:b*c?../x')).not.toContain(':');
    expect(jobIdOf('hubspot', '123', 'refresh', 1700)).toBe('hubspot.123.refresh.1700');
  });
});

describe('4. the refresh API', () => {
  const auth = { 'content-type': 'application/json', authorization: `Bearer ${API_KEY}` };

  it('answers 404 for an account the CRM does not have, and queues nothing', async () => {
    const before = await service.queue.count();
    const res = await post('/api/refresh', JSON.stringify({ crm: 'hubspot', accountId: '999999999' }), auth);
    expect(res.status).toBe(404);
    expect(JSON.parse(res.text)).toMatchObject({ error: 'account_not_found' });
    expect(await service.queue.count()).toBe(before);
  });

  it('answers 400 for a malformed tenant', async () => {
    const res = await post(
      '/api/refresh',
      JSON.stringify({ crm: 'salesforce', tenant: '00Dnotanorgid', accountId: sfAccount() }),
      auth,
    );
    expect(res.status).toBe(400);
    expect(JSON.parse(res.text)).toMatchObject({ error: 'invalid_tenant' });
  });

  const signedV3 = (org: string, body: string) => {
    const timestamp = String(Math.floor(Date.now() / 1000));
    const nonce = randomBytes(16).toString('hex');
    const user = 'jane@acme.example';
    return {
      'content-type': 'application/json',
      'x-buyerintel-timestamp': timestamp,
      'x-buyerintel-nonce': nonce,
      'x-buyerintel-org': org,
      'x-buyerintel-user': user,
      'x-buyerintel-signature': salesforceRequestSignatureV3(SF_SECRET, timestamp, nonce, org, user, body),
    };
  };

  it('lets a Salesforce caller act on its own org only', async () => {
    const account = sfAccount();
    const own = JSON.stringify({ crm: 'salesforce', tenant: sf.orgId, accountId: account });
    expect((await post('/api/refresh', own, signedV3(sf.orgId, own))).status).toBe(202);
    const other = JSON.stringify({ crm: 'salesforce', tenant: OTHER_ORG, accountId: account });
    const refused = await post('/api/refresh', other, signedV3(sf.orgId, other));
    expect(refused.status).toBe(403);
    // This org's secret naming the other org is checked with the other org's secrets (it has none).
    const reverse = await post('/api/refresh', own, signedV3(OTHER_ORG, own));
    expect(reverse.status).toBe(401);
  });

  it('refuses a signature that names no org where two orgs are served', async () => {
    const body = JSON.stringify({ crm: 'salesforce', tenant: OTHER_ORG, accountId: sfAccount() });
    const timestamp = String(Math.floor(Date.now() / 1000));
    const nonce = randomBytes(16).toString('hex');
    const res = await post('/api/refresh', body, {
      'content-type': 'application/json',
      'x-buyerintel-timestamp': timestamp,
      'x-buyerintel-nonce': nonce,
      'x-buyerintel-user': 'jane@acme.example',
      'x-buyerintel-signature': salesforceRequestSignatureV2(
        SF_SECRET,
        timestamp,
        nonce,
        'jane@acme.example',
        body,
      ),
    });
    // Which org's secrets would check it is unknown: refused, saying to sign with v3.
    expect(res.status).toBe(401);
    expect(res.text).toContain('names no org');
  });

  it('binds a HubSpot-signed caller to the portal its signed URL names', async () => {
    const path = `/api/accounts/hubspot/1?portalId=1&tenant=${hs.portalId}`;
    const timestamp = String(Date.now());
    const signature = hubspotSignatureV3(hs.clientSecret, 'GET', `${base}${path}`, '', timestamp);
    const res = await fetch(`${base}${path}`, {
      headers: { 'x-hubspot-signature-v3': signature, 'x-hubspot-request-timestamp': timestamp },
    });
    expect(res.status).toBe(403);
  });
});

describe('5. metrics, API docs and the admin pages', () => {
  it('/metrics needs its token', async () => {
    expect((await fetch(`${base}/metrics`)).status).toBe(401);
    const res = await fetch(`${base}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
    expect(res.status).toBe(200);
    expect(await res.text()).toContain('bis_');
  });

  it('/api/openapi.json and /api/docs need the API key unless configured public', async () => {
    for (const path of ['/api/openapi.json', '/api/docs']) {
      expect((await fetch(`${base}${path}`)).status, path).toBe(401);
      const res = await fetch(`${base}${path}`, { headers: { authorization: `Bearer ${API_KEY}` } });
      expect(res.status, path).toBe(200);
    }
  });

  const basic = `Basic ${Buffer.from(`${ADMIN.username}:${ADMIN.password}`).toString('base64')}`;

  it('sends a CSP with a nonce, no framing, nosniff and no referrer on the admin page', async () => {
    const res = await fetch(`${base}/admin/recent`, { headers: { authorization: basic } });
    expect(res.status).toBe(200);
    const csp = res.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("frame-ancestors 'none'");
    const nonce = /'nonce-([^']+)'/.exec(csp)?.[1];
    expect(nonce).toBeTruthy();
    expect(await res.text()).toContain(`<script nonce="${nonce}">`);
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('x-frame-options')).toBe('DENY');
    expect(res.headers.get('referrer-policy')).toBe('no-referrer');
  });

  it('refuses a cross-site admin POST even with the credentials; a same-origin one goes through', async () => {
    const body = JSON.stringify({ crm: 'hubspot', tenant: String(hs.portalId), accountId: '1' });
    const headers = { authorization: basic, 'content-type': 'application/json' };
    const cross = await post('/admin/api/retry', body, { ...headers, 'sec-fetch-site': 'cross-site' });
    expect(cross.status).toBe(403);
    const foreign = await post('/admin/api/retry', body, { ...headers, origin: 'https://evil.example' });
    expect(foreign.status).toBe(403);
    const same = await post('/admin/api/retry', body, { ...headers, 'sec-fetch-site': 'same-origin' });
    expect(same.status).toBe(202);
  });
});
