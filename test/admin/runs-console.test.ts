// The console's Runs list, run page and Dashboard in a real Chromium against a running service on the
// emulators: refreshes make runs, the list shows them, clicking one opens its page with its progress
// read as finished once its account has an outcome, and the dashboard's counts are the store's.
import { randomBytes } from 'node:crypto';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningHubSpotSandbox } from '../../emulators/hubspot/server.ts';
import type { Service } from '../../src/service/runtime.ts';
import { launchChromium } from '../helpers/browser.ts';
import { checkConsolePage } from '../helpers/console-check.ts';
import { refreshAndWait } from '../helpers/service.ts';
import { startTestService, type TestService } from '../helpers/start-service.ts';

const ADMIN = { username: 'ops', password: randomBytes(12).toString('hex') };
const API_KEY = `key-${randomBytes(16).toString('hex')}`;

let running: TestService;
let hs: RunningHubSpotSandbox;
let service: Service;
let base: string;
let browser: Browser;

beforeAll(async () => {
  running = await startTestService({
    name: 'runs-console',
    without: ['salesforce'],
    worker: { writeBatchWaitMs: 20 },
    settings: (s) => ({ ...s, api: { apiKeys: [API_KEY] }, admin: ADMIN }),
    fields: true,
    startWorker: true,
  });
  ({ hs, service, base } = running);
  browser = await launchChromium();
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await running?.close();
});

describe('runs console', () => {
  it('lists runs, opens one with its progress, and the dashboard counts what the store holds', async () => {
    const austin = hs.store.createCompany({ name: 'City of Austin', state: 'TX' }, { source: 'CRM_UI' }).id;
    await refreshAndWait(service, base, API_KEY, austin);

    const context = await browser.newContext({
      httpCredentials: ADMIN,
      viewport: { width: 1400, height: 900 },
    });
    const page = await context.newPage();
    const response = await page.goto(`${base}/admin`);
    expect(page.url()).toMatch(/\/admin\/dashboard$/);
    expect(response?.status()).toBe(200);
    const api = await (await page.request.get(`${base}/admin/api/dashboard`)).json();
    const enriched = await page.locator('[data-status="enriched"]').textContent();
    expect(Number(enriched)).toBe(api.total.enriched);
    expect(
      api.total.enriched + api.total.needs_review + api.total.no_match + api.total.error,
    ).toBeGreaterThan(0);
    expect(await checkConsolePage(page, 'dashboard')).toEqual([]);

    await page.getByRole('link', { name: 'Runs', exact: true }).click();
    await page.waitForURL(/\/admin\/runs$/);
    const rows = page.locator('tbody tr.run');
    expect(await rows.count()).toBeGreaterThan(0);
    expect(await checkConsolePage(page, 'runs')).toEqual([]);

    await rows.first().locator('a').first().click();
    await page.waitForURL(/\/admin\/runs\/\d+$/);
    await expect
      .poll(() => page.locator('#run-state [data-state]').getAttribute('data-state'))
      .toBe('finished');
    expect(await page.locator('#run-done').textContent()).toMatch(/^1/);
    expect(await page.locator('#run-throttled').isHidden()).toBe(true);
    expect(await checkConsolePage(page, 'run')).toEqual([]);
    await context.close();
  }, 60_000);
});
