// The console's Connections page in a real Chromium: a portal installed through the HubSpot app's
// consent page with one scope left out, a portal added by hand with a private-app token, and the
// Salesforce org the configuration names. From the dashboard, one click answers "which tenant's
// token lacks a scope": the summary names it, its row lists the scope and what needs it, the refusal
// its first note met is its last error, and no token of any tenant is on the page.
import { randomBytes, randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HubSpotConfig } from '../../connectors/hubspot/config.ts';
import type { RunningBuyerIntelSandbox } from '../../emulators/buyer-intel/server.ts';
import { type RunningHubSpotSandbox, startHubSpotSandbox } from '../../emulators/hubspot/server.ts';
import { type RunningSalesforceSandbox, startSalesforceSandbox } from '../../emulators/salesforce/server.ts';
import { sandboxSettings } from '../../emulators/settings.ts';
import type { Service } from '../../src/service/runtime.ts';
import { TokenCipher } from '../../src/tenants/cipher.ts';
import { TenantStore } from '../../src/tenants/store.ts';
import { launchChromium } from '../helpers/browser.ts';
import { startSandbox } from '../helpers/buyer-intel-sandbox.ts';
import { checkConsolePage } from '../helpers/console-check.ts';
import { closeService, createTestService } from '../helpers/service.ts';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const prefix = `test-connections-${randomUUID().slice(0, 8)}`;
const APP = { clientId: 'connections-client', clientSecret: randomBytes(16).toString('hex'), appId: 778 };
const ADMIN = { username: 'ops', password: randomBytes(12).toString('hex') };
const cipher = new TokenCipher(randomBytes(32));

let bi: RunningBuyerIntelSandbox;
let hs: RunningHubSpotSandbox;
let sf: RunningSalesforceSandbox;
let service: Service;
let base: string;
let redis: Redis;
let browser: Browser;

beforeAll(async () => {
  [bi, hs, sf] = await Promise.all([
    startSandbox(),
    startHubSpotSandbox({ portalId: 3003, auth: APP }),
    startSalesforceSandbox({}),
  ]);
  redis = new Redis(REDIS_URL);
  const settings = sandboxSettings({ buyerIntel: bi, salesforce: sf }, { redisUrl: REDIS_URL, prefix });
  const hubspot: HubSpotConfig = {
    app: {
      ...APP,
      appId: String(APP.appId),
      basePath: hs.url,
      authorizeUrl: `${hs.url}/__sandbox/oauth/authorize`,
    },
  };
  service = await createTestService({
    ...settings,
    crms: { ...settings.crms, hubspot },
    tenants: { cipher },
    admin: ADMIN,
  });
  base = (await service.startHttp(0, '127.0.0.1')).url;
  browser = await launchChromium();
}, 60_000);
afterAll(async () => {
  await browser?.close();
  redis?.disconnect();
  await closeService(service, REDIS_URL, prefix);
  await Promise.all([bi?.close(), hs?.close(), sf?.close()]);
});

const go = (url: string) => fetch(url, { redirect: 'manual' });

/** The install as a portal admin who did not approve one scope: the emulator grants what is asked. */
async function installWithout(scope: string): Promise<void> {
  const consent = new URL((await go(`${base}/oauth/hubspot/install`)).headers.get('location') ?? '');
  const asked = (consent.searchParams.get('scope') ?? '').split(' ');
  expect(asked).toContain(scope);
  consent.searchParams.set('scope', asked.filter((s) => s !== scope).join(' '));
  const callback = (await go(consent.toString())).headers.get('location') ?? '';
  expect((await go(callback)).status).toBe(200);
}

describe('connections console', () => {
  it("shows which tenant's token lacks a scope, one click from the dashboard, and no token", async () => {
    await installWithout('crm.objects.contacts.write');
    // A second portal, added by hand with a private-app token (tenants add hubspot).
    const tenants = new TenantStore(async () => (await service.store.open()).tenants, redis, prefix, cipher);
    await tenants.put({ crm: 'hubspot', portalId: '4004', accessToken: hs.accessToken });
    await service.loadTenants();
    // The installed portal's first note is refused for the scope it lacks: recorded as its last error.
    const account = hs.store.createCompany({ name: 'City of Austin', state: 'TX' }, { source: 'CRM_UI' }).id;
    await expect(
      service.connector('hubspot', '3003').createNotes([
        {
          accountId: account,
          dedupeKey: 'c-1',
          title: 'RFP',
          body: 'An RFP',
          occurredAt: '2026-11-30T00:00:00Z',
        },
      ]),
    ).rejects.toMatchObject({ missingPermissions: ['crm.objects.contacts.write'] });

    const context = await browser.newContext({
      httpCredentials: ADMIN,
      viewport: { width: 1440, height: 900 },
    });
    const page = await context.newPage();
    await page.goto(`${base}/admin`);
    await page.getByRole('link', { name: 'Connections', exact: true }).click();
    await page.waitForURL(/\/admin\/connections$/);

    await expect
      .poll(() => page.locator('#lacking').textContent())
      .toMatch(/1 of 3 lack a permission: HubSpot portal 3003\./);
    const installed = page.locator('tr[data-tenant="3003"]');
    // Listed first, with the scope, what needs it and the refused call.
    expect(await page.locator('tr.connection').first().getAttribute('data-tenant')).toBe('3003');
    expect(await installed.textContent()).toContain('OAuth install');
    expect(await installed.locator('td').nth(2).textContent()).toMatch(
      /crm\.objects\.contacts\.write — notes on companies/,
    );
    expect(await installed.locator('[data-token]').getAttribute('data-token')).toBe('expiring');
    expect(await installed.locator('td').nth(1).textContent()).toMatch(
      /expires in (29|30) min.*renews itself on the next call/,
    );
    expect(await installed.locator('td').nth(3).textContent()).toMatch(
      /crm\.objects\.notes\.batchApi\.create refused for want of crm\.objects\.contacts\.write/,
    );

    const manual = page.locator('tr[data-tenant="4004"]');
    expect(await manual.textContent()).toContain('private-app token (does not expire)');
    expect(await manual.locator('td').nth(2).textContent()).toContain('not reported by HubSpot');
    const org = page.locator(`tr[data-crm="salesforce"]`);
    expect(await org.textContent()).toMatch(
      /from the configuration.*refresh token from SALESFORCE_REFRESH_TOKEN/s,
    );
    expect(await page.getByRole('link', { name: 'Install in a HubSpot portal' }).getAttribute('href')).toBe(
      '/oauth/hubspot/install',
    );

    // Never a token or secret: none of the stored records' credentials is on the page.
    const html = await page.content();
    const { tenants: records } = await tenants.list();
    const secrets = records.flatMap((r) =>
      ['accessToken', 'refreshToken'].map((k) => r[k]).filter((v): v is string => typeof v === 'string'),
    );
    expect(secrets.length).toBeGreaterThanOrEqual(3);
    for (const secret of [...secrets, APP.clientSecret]) expect(html).not.toContain(secret);
    expect(await checkConsolePage(page, 'connections')).toEqual([]);
    await context.close();
  }, 90_000);
});
