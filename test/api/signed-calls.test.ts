// CRM-signed calls, route by route, on both CRMs (issue 27 #1 and #3). Salesforce: each org signs with
// its own secret (the environment's org: SALESFORCE_REFRESH_SECRETS, two while rotating; a stored org:
// `requestSecrets` in its record), and a signature made with one org's secret acts on no other org,
// whatever the request claims — the attack that went through was org A's (shared) secret signing as
// org B. HubSpot: the card's signature is HubSpot's own (the app's client secret, which no portal
// holds) over a URL naming the portal, and one that changes something is taken once (a replay is
// refused). Real HTTP, real Redis, the emulators; no worker runs.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hubspotSignatureV3 } from '../../connectors/hubspot/webhook-signature.ts';
import { salesforceId18 } from '../../connectors/salesforce/ids.ts';
import { salesforceRequestSignatureV3 } from '../../connectors/salesforce/request-signature.ts';
import type { RunningHubSpotSandbox } from '../../emulators/hubspot/server.ts';
import type { RunningSalesforceSandbox } from '../../emulators/salesforce/server.ts';
import type { Service } from '../../src/service/runtime.ts';
import { startTestService, type TestService } from '../helpers/start-service.ts';

const secret = () => randomBytes(32).toString('hex');
/** Org A (the environment's) rotates: its old and new secret are both active. */
const A_OLD = secret();
const A_NEW = secret();
/** Org B, kept as a tenant in Redis, has its own. */
const B_SECRET = secret();
const ORG_B = salesforceId18('00D0000000000Zz') ?? '';
const USER = 'jane.doe@acme.example';
const BUYER = '00000000-0000-4000-8000-000000000001';

let running: TestService;
let hs: RunningHubSpotSandbox;
let sf: RunningSalesforceSandbox;
let service: Service;
let base: string;
let sfAccount: string;
let hsCompany: string;

beforeAll(async () => {
  running = await startTestService({
    name: 'signed',
    settings: (s) => ({
      ...s,
      crms: { ...s.crms, salesforce: { ...(s.crms.salesforce as object), requestSecrets: [A_OLD, A_NEW] } },
      api: { apiKeys: [`key-${secret()}`] },
    }),
    storedOrgs: [{ orgId: ORG_B, requestSecrets: [B_SECRET] }],
    fields: true,
  });
  ({ hs, service, base } = running);
  if (!running.sf) throw new Error('the Salesforce emulator runs');
  sf = running.sf;
  sfAccount = sf.store.create('Account', { Name: 'City of Austin', BillingState: 'TX' }).id;
  hsCompany = hs.store.createCompany({ name: 'City of Austin', state: 'TX' }, { source: 'CRM_UI' }).id;
}, 60_000);
afterAll(async () => {
  await running?.close();
});

interface Route {
  method: 'GET' | 'POST';
  path: string;
  body?: object;
}

/** Every route of our API a CRM-signed caller may call, acting on `tenant`'s account `id`. */
const routes = (crm: string, tenant: string, id: string): Route[] => [
  { method: 'POST', path: '/api/refresh', body: { crm, tenant, accountId: id } },
  { method: 'GET', path: `/api/jobs/${crm}.1.1.refresh.1` },
  { method: 'GET', path: `/api/accounts/${crm}/${id}?tenant=${tenant}` },
  { method: 'POST', path: `/api/accounts/${crm}/${id}/confirm`, body: { tenant, buyerId: BUYER } },
  { method: 'GET', path: `/api/review?crm=${crm}&tenant=${tenant}` },
  { method: 'GET', path: `/api/review/duplicates?crm=${crm}&tenant=${tenant}` },
  {
    method: 'POST',
    path: '/api/review/approve',
    body: { accounts: [{ crm, tenant, accountId: id }], preview: true },
  },
  { method: 'POST', path: `/api/accounts/${crm}/${id}/reject`, body: { tenant, reason: 'not a buyer' } },
  { method: 'POST', path: `/api/accounts/${crm}/${id}/clear`, body: { tenant } },
  { method: 'POST', path: `/api/accounts/${crm}/${id}/research`, body: { tenant, name: 'Austin' } },
  { method: 'GET', path: '/api/runs' },
  { method: 'GET', path: '/api/runs/1' },
  { method: 'GET', path: `/api/accounts/${crm}/${id}/history?tenant=${tenant}` },
  { method: 'POST', path: '/api/undo', body: { account: { crm, tenant, accountId: id }, dryRun: true } },
];

async function send(route: Route, headers: Record<string, string>) {
  const raw = route.body === undefined ? undefined : JSON.stringify(route.body);
  const res = await fetch(`${base}${route.path}`, {
    method: route.method,
    headers: { ...headers, ...(raw === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(raw === undefined ? {} : { body: raw }),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

/** The quick action's v3 headers: `org` in the header and the signed string, signed with `key`. */
function apex(route: Route, org: string, key: string, nonce = randomBytes(16).toString('hex')) {
  const raw = route.body === undefined ? '' : JSON.stringify(route.body);
  const timestamp = String(Math.floor(Date.now() / 1000));
  return {
    'x-buyerintel-timestamp': timestamp,
    'x-buyerintel-nonce': nonce,
    'x-buyerintel-org': org,
    'x-buyerintel-user': USER,
    'x-buyerintel-signature': salesforceRequestSignatureV3(key, timestamp, nonce, org, USER, raw),
  };
}

describe("Salesforce: one org's secret acts on that org only", () => {
  it("refuses org A's secret signing as org B on every signed route (401), acting on B's account", async () => {
    for (const route of routes('salesforce', ORG_B, sfAccount)) {
      for (const key of [A_OLD, A_NEW]) {
        const res = await send(route, apex(route, ORG_B, key));
        expect([res.status, res.body.error], `${route.method} ${route.path}`).toEqual([401, 'unauthorized']);
      }
    }
    expect(await service.queue.count()).toBe(0);
  });

  it("takes org B's own secret as org B on every route (authenticated: never 401)", async () => {
    for (const route of routes('salesforce', ORG_B, sfAccount)) {
      const res = await send(route, apex(route, ORG_B, B_SECRET));
      expect(res.status, `${route.method} ${route.path}: ${JSON.stringify(res.body)}`).not.toBe(401);
      expect(res.status).toBeLessThan(500 + 3); // a read of B's (unreachable) org may be a 502
    }
  });

  it("refuses org B's secret acting on org A's account, whatever the body claims (403)", async () => {
    for (const route of routes('salesforce', sf.orgId, sfAccount).filter((r) => r.path !== '/api/runs')) {
      const res = await send(route, apex(route, ORG_B, B_SECRET));
      expect(res.status, `${route.method} ${route.path}`).toBeGreaterThanOrEqual(403);
      expect(res.status).toBeLessThan(405); // 403, or 404 for a job or run it may not see
    }
  });

  it("takes both of org A's active secrets (rotation) on every route, and no nonce twice", async () => {
    for (const route of routes('salesforce', sf.orgId, sfAccount)) {
      for (const key of [A_OLD, A_NEW]) {
        const res = await send(route, apex(route, sf.orgId, key));
        expect(res.status, `${route.method} ${route.path}: ${JSON.stringify(res.body)}`).not.toBe(401);
        expect(res.status).toBeLessThan(500);
      }
      const nonce = randomBytes(16).toString('hex');
      const headers = apex(route, sf.orgId, A_NEW, nonce);
      expect((await send(route, headers)).status).not.toBe(401);
      const replay = await send(route, headers);
      expect([replay.status, replay.body.message], `${route.method} ${route.path}`).toEqual([
        401,
        'Salesforce signature: the nonce was already used',
      ]);
    }
  });
});

describe('HubSpot: the signed URL names the portal, and a signed change is taken once', () => {
  const hubspot = (route: Route, url: string) => {
    const raw = route.body === undefined ? '' : JSON.stringify(route.body);
    const timestamp = String(Date.now());
    return {
      'x-hubspot-signature-v3': hubspotSignatureV3(hs.clientSecret, route.method, url, raw, timestamp),
      'x-hubspot-request-timestamp': timestamp,
    };
  };
  const withPortal = (route: Route, portal: string | number): Route => ({
    ...route,
    path: `${route.path}${route.path.includes('?') ? '&' : '?'}portalId=${portal}&userId=7`,
  });

  it('refuses a replay of every signed change (401) and takes each signed read again', async () => {
    for (const plain of routes('hubspot', String(hs.portalId), hsCompany)) {
      const route = withPortal(plain, hs.portalId);
      const headers = hubspot(route, `${base}${route.path}`);
      const first = await send(route, headers);
      expect(first.status, `${route.method} ${route.path}: ${JSON.stringify(first.body)}`).not.toBe(401);
      expect(first.status).toBeLessThan(500);
      const again = await send(route, headers);
      if (route.method === 'GET') expect(again.status, route.path).toBe(first.status);
      else
        expect([again.status, again.body.message], route.path).toEqual([
          401,
          'HubSpot signature: already used (a replay)',
        ]);
    }
  });

  it('refuses a replay spelled another way: the signature is compared as the text HubSpot sends', async () => {
    const route = withPortal(
      routes('hubspot', String(hs.portalId), hsCompany).find((r) => r.method === 'POST') as Route,
      hs.portalId,
    );
    const headers = hubspot(route, `${base}${route.path}`);
    const signature = headers['x-hubspot-signature-v3'];
    expect(signature).toMatch(/=$/); // 32 bytes of HMAC: base64 with one '=' of padding
    const spellings = [
      signature.replace(/=+$/, ''),
      `${signature}=`,
      `${signature}AAAA`,
      signature.replaceAll('+', '-').replaceAll('/', '_'),
      `${signature.slice(0, 8)} ${signature.slice(8)}`,
    ].filter((v) => v !== signature);
    for (const variant of spellings) {
      const res = await send(route, { ...headers, 'x-hubspot-signature-v3': variant });
      expect([res.status, res.body.message], variant).toEqual([
        401,
        'HubSpot signature: signature does not match',
      ]);
    }
    expect((await send(route, headers)).status).not.toBe(401);
    expect((await send(route, headers)).status).toBe(401);
  });

  it("refuses a signature for another portal acting on this portal's account (403 or 404)", async () => {
    for (const plain of routes('hubspot', String(hs.portalId), hsCompany).filter(
      (r) => r.path !== '/api/runs',
    )) {
      const route = withPortal(plain, 424242);
      const res = await send(route, hubspot(route, `${base}${route.path}`));
      expect(res.status, `${route.method} ${route.path}`).toBeGreaterThanOrEqual(400);
      expect(res.status).toBeLessThan(405);
      expect(res.status).not.toBe(401);
    }
    // A URL that names a portal of its own beside the one HubSpot appends is refused as ambiguous.
    const twice = withPortal(
      withPortal(routes('hubspot', '424242', hsCompany)[0] as Route, 424242),
      hs.portalId,
    );
    const ambiguous = await send(twice, hubspot(twice, `${base}${twice.path}`));
    expect([ambiguous.status, ambiguous.body.message]).toEqual([
      401,
      'a HubSpot-signed request names one portalId',
    ]);
    expect(await service.queue.getJobs(['waiting', 'prioritized', 'delayed'])).toSatisfy(
      (jobs: { data: { tenant: string } }[]) => jobs.every((j) => j.data.tenant !== '424242'),
    );
  });
});
