// The Accounts page in a browser, as a sales-ops lead uses it: search an account by name and read its
// buyer and date, filter by status, page Next and Previous, follow History; and the console checks.
// The HubSpot tenant is a portal hosted in the EU: its rows open on app-eu1.hubspot.com, the domain its
// account details name (the emulator answering as HubSpot documents them).
import type { AddressInfo } from 'node:net';
import express from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHubSpotConnector } from '../../connectors/hubspot/connector.ts';
import { createSalesforceConnector } from '../../connectors/salesforce/connector.ts';
import { ALL_PRODUCT_SCOPES } from '../../emulators/hubspot/scopes.ts';
import { type RunningHubSpotSandbox, startHubSpotSandbox } from '../../emulators/hubspot/server.ts';
import { addAdminAccountsRoutes } from '../../src/admin/accounts-routes.ts';
import { recordUrlOf } from '../../src/admin/record-link.ts';
import { Store } from '../../src/store/store.ts';
import { launchChromium } from '../helpers/browser.ts';
import { checkConsolePage } from '../helpers/console-check.ts';
import { releaseTestFile } from '../helpers/release.ts';
import { seedConsoleOutcomes } from '../helpers/seed-outcomes.ts';
import { serviceDatabase } from '../helpers/test-database.ts';

const tenant = `acc-${Math.random().toString(36).slice(2, 8)}`;
let store: Store;
let base: string;
let server: import('node:http').Server;
let browser: import('playwright-core').Browser;
let eu: RunningHubSpotSandbox;

beforeAll(async () => {
  const settings = await serviceDatabase();
  store = new Store(settings);
  await seedConsoleOutcomes(store, tenant);
  const router = express.Router();
  // Real connectors: each says where its records open (HubSpot's asks its portal's details once).
  eu = await startHubSpotSandbox({
    dataHostingLocation: 'eu1',
    rateLimits: false,
    auth: { privateAppScopes: [...ALL_PRODUCT_SCOPES, 'oauth'] },
  });
  const hubspot = createHubSpotConnector({ portalId: tenant, accessToken: eu.accessToken, basePath: eu.url });
  const salesforce = createSalesforceConnector({
    instanceUrl: 'https://acme.my.salesforce.com',
    orgId: tenant,
    apiVersion: '62.0',
    accessToken: 'not-used',
    clientId: 'not-used',
    clientSecret: 'not-used',
  });
  const recordUrl = recordUrlOf((crm) => (crm === 'hubspot' ? hubspot : salesforce));
  addAdminAccountsRoutes(router, { store, recordUrl });
  const app = express().use('/admin', router);
  server = app.listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  browser = await launchChromium();
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}, 60_000);

afterAll(async () => {
  await browser?.close();
  server?.close();
  await eu?.close();
  await store?.close();
  await releaseTestFile();
});

describe('accounts console', () => {
  it('searches, filters, pages and opens the history', async () => {
    const page = await browser.newPage();
    await page.goto(`${base}/admin/accounts?tenant=${tenant}`);
    await page.getByText('1–50 of 60').waitFor();
    await page.getByLabel('Name', { exact: true }).fill('County 42');
    await page.getByRole('button', { name: 'Search' }).click();
    await page.getByText('1–1 of 1').waitFor();
    expect(await page.locator('td.buyer').first().innerText()).toContain('Buyer 42');
    expect(await page.locator('time').first().innerText()).toMatch(/1 Jan 2026, 00:42 UTC/);
    // An even account is a Salesforce one: its link opens the Lightning record page.
    expect(
      await page.getByRole('link', { name: 'Open in Salesforce: County 42 (new tab)' }).getAttribute('href'),
    ).toBe('https://acme.my.salesforce.com/lightning/r/Account/a42/view');
    await page.getByLabel('Name', { exact: true }).fill('County 43');
    await page.getByRole('button', { name: 'Search' }).click();
    await page.getByText('1–1 of 1').waitFor();
    expect(
      await page.getByRole('link', { name: 'Open in HubSpot: County 43 (new tab)' }).getAttribute('href'),
    ).toBe(`https://app-eu1.hubspot.com/contacts/${tenant}/company/a43`);
    // Asked once for every page drawn since.
    expect(eu.stats.count('accountInfo.details.get')).toBe(1);
    await page.getByLabel('Name', { exact: true }).fill('');
    await page
      .getByLabel('Status', { exact: false })
      .and(page.locator('select'))
      .selectOption('needs_review');
    await page.getByRole('button', { name: 'Search' }).click();
    await page.getByText('1–20 of 20').waitFor();
    await page.getByLabel('Status', { exact: false }).and(page.locator('select')).selectOption('');
    await page.getByRole('button', { name: 'Search' }).click();
    await page.getByText('1–50 of 60').waitFor();
    await page.getByRole('link', { name: 'Next' }).click();
    await page.getByText('51–60 of 60').waitFor();
    await page.getByRole('link', { name: 'Previous' }).click();
    await page.getByText('1–50 of 60').waitFor();
    expect(await checkConsolePage(page, 'accounts')).toEqual([]);
    const href = await page.getByRole('link', { name: 'History' }).first().getAttribute('href');
    expect(href).toMatch(/^\/admin\/history\/(hubspot|salesforce)\/a\d+\?tenant=/);
    await page.close();
  }, 60_000);
});
