// Several CRM connections at once, kept in the database with their tokens encrypted: HubSpot webhooks routed
// by portalId to the right portal, an expired OAuth token refreshed once (under the lock) and stored
// encrypted, no token readable in the database or Redis, and the cipher refusing tampered or misplaced values.
// One HubSpot base URL serves every portal, as api.hubapi.com does: a small proxy in front of two
// emulators forwards each call to the portal that issued its token.

import { randomBytes, randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HubSpotConfig } from '../../connectors/hubspot/config.ts';
import { hubspotSignatureV3 } from '../../connectors/hubspot/webhook-signature.ts';
import type { SalesforceConfig } from '../../connectors/salesforce/config.ts';
import type { RunningBuyerIntelSandbox } from '../../emulators/buyer-intel/server.ts';
import { type RunningHubSpotSandbox, startHubSpotSandbox } from '../../emulators/hubspot/server.ts';
import { type RunningSalesforceSandbox, startSalesforceSandbox } from '../../emulators/salesforce/server.ts';
import { sandboxSettings } from '../../emulators/settings.ts';
import type { EnrichResult } from '../../src/enrich/types.ts';
import { DEFAULT_MAPPING } from '../../src/map/default-mapping.ts';
import { fieldDefinitions, PROVENANCE_FIELDS as P } from '../../src/map/field-definitions.ts';
import type { Service } from '../../src/service/runtime.ts';
import { TokenCipher } from '../../src/tenants/cipher.ts';
import { TenantStore } from '../../src/tenants/store.ts';
import { startSandbox } from '../helpers/buyer-intel-sandbox.ts';
import { eventually } from '../helpers/poll.ts';
import { closeService, createTestService } from '../helpers/service.ts';

/** The stored org's Outbound Message token: its messages carry it in the endpoint URL. */
const OUTBOUND_TOKEN = 'tenant-outbound-token-1111111111111111';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const prefix = `test-tenants-${randomUUID().slice(0, 8)}`;
const APP = { clientId: 'app-client-id', clientSecret: randomBytes(16).toString('hex'), appId: 4242 };
const cipher = new TokenCipher(randomBytes(32));

let bi: RunningBuyerIntelSandbox;
let hsA: RunningHubSpotSandbox;
let hsB: RunningHubSpotSandbox;
let sf: RunningSalesforceSandbox;
let proxy: Server;
let proxyUrl: string;
let redis: Redis;
let service: Service;
let base: string;
const owner = new Map<string, RunningHubSpotSandbox>();
const issued: Record<string, { access_token: string; refresh_token: string }> = {};

const body = async (req: IncomingMessage) => {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
};

beforeAll(async () => {
  bi = await startSandbox();
  [hsA, hsB, sf] = await Promise.all([
    // As HubSpot will from February 2027: the v1 token endpoint answers as retired.
    startHubSpotSandbox({ portalId: 1001, auth: { ...APP, oauthV1Retired: true } }),
    startHubSpotSandbox({ portalId: 1002, auth: { ...APP, oauthV1Retired: true } }),
    startSalesforceSandbox({}),
  ]);
  for (const [name, hs] of [
    ['A', hsA],
    ['B', hsB],
  ] as const) {
    const tokens = hs.auth.issueTokens();
    issued[name] = tokens;
    owner.set(tokens.access_token, hs).set(tokens.refresh_token, hs);
  }
  proxy = createServer(async (req, res) => {
    const raw = await body(req);
    const token = /Bearer (\S+)/.exec(req.headers.authorization ?? '')?.[1];
    const refresh = new URLSearchParams(raw.toString()).get('refresh_token');
    const target = owner.get(token ?? '') ?? owner.get(refresh ?? '') ?? hsA;
    const headers = Object.fromEntries(
      Object.entries(req.headers).filter(([k]) => k !== 'host' && k !== 'content-length'),
    ) as Record<string, string>;
    const answer = await fetch(`${target.url}${req.url}`, {
      method: req.method,
      headers,
      ...(raw.length ? { body: raw } : {}),
    });
    const text = await answer.text();
    if (req.url?.startsWith('/oauth/') && answer.ok) {
      const t = JSON.parse(text) as { access_token: string; refresh_token: string };
      owner.set(t.access_token, target).set(t.refresh_token, target);
    }
    res.writeHead(answer.status, Object.fromEntries(answer.headers));
    res.end(text);
  });
  await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', r));
  proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;

  redis = new Redis(REDIS_URL);
  const settings = sandboxSettings(
    { buyerIntel: bi },
    { redisUrl: REDIS_URL, prefix },
    { worker: { writeBatchWaitMs: 20 } },
  );
  const hubspot: HubSpotConfig = { app: { ...APP, appId: String(APP.appId), basePath: proxyUrl } };
  const salesforce: SalesforceConfig = {
    app: { clientId: sf.clientId, clientSecret: sf.clientSecret, loginUrl: sf.url, apiVersion: '62.0' },
  };
  service = await createTestService({ ...settings, crms: { hubspot, salesforce }, tenants: { cipher } });
  const store = new TenantStore(async () => (await service.store.open()).tenants, redis, prefix, cipher);
  await store.put({
    crm: 'hubspot',
    portalId: '1001',
    accessToken: issued.A?.access_token ?? '',
    refreshToken: issued.A?.refresh_token ?? '',
  });
  await store.put({
    crm: 'salesforce',
    orgId: sf.orgId,
    instanceUrl: sf.url,
    refreshToken: sf.refreshToken,
    outboundTokens: [OUTBOUND_TOKEN],
  });
  await store.put({
    crm: 'hubspot',
    portalId: '1002',
    accessToken: issued.B?.access_token ?? '',
    refreshToken: issued.B?.refresh_token ?? '',
  });

  const org = sf.orgId.slice(0, 15);
  expect((await service.loadTenants()).loaded.sort()).toEqual([
    'hubspot:1001',
    'hubspot:1002',
    `salesforce:${org}`,
  ]);
  for (const portal of ['1001', '1002'])
    await service.connector('hubspot', portal).ensureFields(fieldDefinitions(DEFAULT_MAPPING));
  await service.connector('salesforce', org).ensureFields(fieldDefinitions(DEFAULT_MAPPING));
  base = (await service.startHttp(0, '127.0.0.1')).url;
  sf.outbound.configure({
    endpointUrl: `${base}/webhooks/salesforce?token=${OUTBOUND_TOKEN}`,
    batchWindowMs: 10,
    retryDelaysMs: [50, 100],
  });
  service.startWorker();
});
afterAll(async () => {
  await closeService(service, REDIS_URL, prefix);
  await redis?.quit();
  await new Promise((r) => proxy?.close(r));
  await Promise.all([bi?.close(), hsA?.close(), hsB?.close(), sf?.close()]);
});

/** Both emulators number their companies alike: find the job by portal and company. */
async function finished(tenant: string, accountId: string): Promise<EnrichResult> {
  const job = await eventually(
    async () => {
      const jobs = await service.queue.getJobs(['completed', 'failed']);
      const job = jobs.find((j) => j.data.tenant === tenant && j.data.accountId === accountId);
      return job?.returnvalue || job?.failedReason ? job : undefined;
    },
    `${tenant}/${accountId} enriched`,
    { timeoutMs: 10_000 },
  );
  if (job.failedReason) throw new Error(job.failedReason);
  return job.returnvalue as EnrichResult;
}

async function deliver(events: { portalId: number; objectId: string }[]): Promise<Response> {
  const payload = JSON.stringify(
    events.map((e, i) => ({
      eventId: Date.now() + i,
      subscriptionType: 'company.creation',
      portalId: e.portalId,
      objectId: Number(e.objectId),
      occurredAt: Date.now(),
      attemptNumber: 0,
    })),
  );
  const timestamp = String(Date.now());
  const url = `${base}/webhooks/hubspot`;
  return fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'x-hubspot-request-timestamp': timestamp,
      'x-hubspot-signature-v3': hubspotSignatureV3(APP.clientSecret, 'POST', url, payload, timestamp),
    },
    body: payload,
  });
}

describe('tenants', () => {
  it('routes each portal’s events to its own portal', async () => {
    const a = hsA.store.createCompany({ name: 'City of Austin', state: 'TX' }, { source: 'CRM_UI' }).id;
    const b = hsB.store.createCompany({ name: 'Travis County', state: 'TX' }, { source: 'CRM_UI' }).id;
    const res = await deliver([
      { portalId: 1001, objectId: a },
      { portalId: 1002, objectId: b },
      { portalId: 1003, objectId: '5' },
    ]);
    expect(await res.json()).toEqual({ received: 3, enqueued: 2, ignored: 1 });
    expect((await finished('1001', a)).status).toBe('enriched');
    expect((await finished('1002', b)).status).toBe('enriched');
    expect(hsA.store.get('companies', a)?.values.get(P.status)).toBe('enriched');
    expect(hsB.store.get('companies', b)?.values.get(P.status)).toBe('enriched');
    // Each portal got its own company's buyer (the emulators number companies alike, so a mix-up shows).
    expect(hsA.store.get('companies', a)?.values.get(P.buyerName)).toContain('Austin');
    expect(hsB.store.get('companies', b)?.values.get(P.buyerName)).toContain('Travis');
  });

  it('routes a Salesforce org’s Outbound Messages to that org, its session kept encrypted', async () => {
    const id = sf.store.create('Account', { Name: 'Travis County', BillingState: 'TX' }).id;
    expect((await finished(sf.orgId.slice(0, 15), id)).status).toBe('enriched');
    const session = (await redis.get(`${prefix}:tenants:session:salesforce:${sf.orgId.slice(0, 15)}`)) ?? '';
    expect(session).toMatch(/^v1\./);
    expect(session).not.toContain(sf.refreshToken);
  });

  it('refreshes an expired OAuth token once, under the lock, through /oauth/v3/token, and keeps it encrypted', async () => {
    hsA.auth.expire();
    const before = hsA.stats.count('oauth.v3.token', 200);
    const a = hsA.store.createCompany(
      { name: 'Austin Independent School District', state: 'TX' },
      { source: 'CRM_UI' },
    ).id;
    await deliver([{ portalId: 1001, objectId: a }]);
    expect((await finished('1001', a)).status).toBe('enriched');
    expect(hsA.stats.count('oauth.v3.token', 200)).toBe(before + 1);
    // Never the endpoint HubSpot retires (crm-facts.md: February 2027), on either portal.
    for (const hs of [hsA, hsB]) expect(hs.stats.count('oauth.tokensApi.create')).toBe(0);

    const stored = await (await service.store.open()).tenants.list();
    expect(stored).toHaveLength(3);
    expect(await redis.exists(`${prefix}:tenants`)).toBe(0);
    const session = (await redis.get(`${prefix}:tenants:session:hubspot:1001`)) ?? '';
    expect(session).toMatch(/^v1\./);
    const everything = JSON.stringify(stored) + session;
    for (const t of [issued.A, issued.B]) {
      expect(everything).not.toContain(t?.access_token);
      expect(everything).not.toContain(t?.refresh_token);
    }
    const fresh = [...owner.keys()].filter(
      (k) => owner.get(k) === hsA && k !== issued.A?.access_token && k !== issued.A?.refresh_token,
    );
    for (const t of fresh) expect(everything).not.toContain(t);
  });

  it('refuses a tampered value, another key or a value moved to another tenant', () => {
    const blob = cipher.encrypt('{"secret":1}', 'hubspot:1001');
    expect(cipher.decrypt(blob, 'hubspot:1001')).toBe('{"secret":1}');
    expect(() => cipher.decrypt(blob, 'hubspot:1002')).toThrow(/cannot decrypt/);
    expect(() => new TokenCipher(randomBytes(32)).decrypt(blob, 'hubspot:1001')).toThrow(/cannot decrypt/);
    const parts = blob.split('.');
    parts[3] = Buffer.from('{"secret":2}').toString('base64');
    expect(() => cipher.decrypt(parts.join('.'), 'hubspot:1001')).toThrow(/cannot decrypt/);
  });
});
