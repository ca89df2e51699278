// The mapping page in a real Chromium, as a sales-ops lead opens it from the console's navigation:
// every attribute of the mapping in force, under each connected CRM's own field name (HubSpot's
// `buyer_intel_population`, Salesforce's `BuyerIntel_Population__c`), with its transform and its write
// policy in words; screenshots at both widths and no serious accessibility violation.
import { randomBytes } from 'node:crypto';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_MAPPING } from '../../src/map/default-mapping.ts';
import { launchChromium } from '../helpers/browser.ts';
import { checkConsolePage } from '../helpers/console-check.ts';
import { startTestService, type TestService } from '../helpers/start-service.ts';

const ADMIN = { username: 'ops', password: randomBytes(12).toString('hex') };
let running: TestService;
let browser: Browser;

beforeAll(async () => {
  running = await startTestService({
    name: 'mapping-console',
    settings: (s) => ({ ...s, admin: ADMIN }),
  });
  browser = await launchChromium();
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await running?.close();
});

describe('the mapping page', () => {
  it('shows each attribute under both CRMs’ field names with its policy, reached from the navigation', async () => {
    const context = await browser.newContext({
      httpCredentials: ADMIN,
      viewport: { width: 1440, height: 900 },
    });
    const page = await context.newPage();
    await page.goto(`${running.base}/admin/mapping`);
    await page.getByRole('link', { name: 'Mapping' }).click();
    await expect.poll(() => page.title()).toContain('Mapping');

    const rows = page.locator('tbody tr');
    expect(await rows.count()).toBe(DEFAULT_MAPPING.fields.length);
    const population = page.locator('tbody tr', {
      has: page.locator('th code', { hasText: /^Population$/ }),
    });
    const cells = await population.locator('td').allTextContents();
    expect(cells).toEqual([
      'buyer_intel_population',
      'BuyerIntel_Population__c',
      'integer',
      expect.stringContaining('ours'),
    ]);
    expect(await page.locator('thead').textContent()).toMatch(/HubSpot field.*Salesforce field/);
    const phone = DEFAULT_MAPPING.fields.find((f) => f.policy === 'fill-empty');
    const phoneRow = page.locator('tbody tr', {
      has: page.locator('th code', { hasText: phone?.attribute ?? '' }),
    });
    expect(await phoneRow.textContent()).toContain('only into an empty field');

    expect(await checkConsolePage(page, 'mapping')).toEqual([]);
    await context.close();
  }, 60_000);
});
