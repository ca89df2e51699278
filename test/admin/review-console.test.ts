// The review page as a sales-ops lead uses it, in a real Chromium against the whole service (HubSpot
// and provider emulators, worker running): 120 HubSpot companies waiting for review, one compact row
// each; Previous/Next with "51–100 of 120"; candidates expand from the keyboard; the goal task "clear 10
// reviews in ≤ 5 interactions" (show 10, Filter, select all, Approve selected, Approve in the page's
// dialog) shrinks the queue by 10 and writes the 10 companies; a dismissed approve-all approves
// nothing; a re-search shows its new candidates without leaving the page; the console checks pass.
// Then with a second portal's accounts waiting: one tenant's queue pages and filters within that tenant.
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROVENANCE_FIELDS as P } from '../../src/map/provenance.ts';
import { launchChromium } from '../helpers/browser.ts';
import { sharedDataset } from '../helpers/buyer-intel-sandbox.ts';
import { checkConsolePage } from '../helpers/console-check.ts';
import { eventually } from '../helpers/poll.ts';
import { startTestService, type TestService } from '../helpers/start-service.ts';

const ADMIN = { username: 'ops', password: randomBytes(12).toString('hex') };
const QUEUE = 120;

let t: TestService;
let browser: Browser;
let tenant: string;
const ids: string[] = [];

const needsReview = async () =>
  (await t.service.store.open()).outcomes.count({ crm: 'hubspot', tenant, cohort: 'needs_review' });
const rowIds = (page: Page) =>
  page
    .locator('tbody tr.row')
    .evaluateAll((rows) =>
      rows.map((r) => (r as unknown as { dataset: { accountId: string } }).dataset.accountId),
    );

beforeAll(async () => {
  t = await startTestService({
    name: 'review-console',
    without: ['salesforce'],
    fields: true,
    startWorker: true,
    worker: { writeBatchWaitMs: 20 },
    settings: (s) => ({ ...s, admin: ADMIN }),
  });
  tenant = String(t.hs.portalId);
  // Three real buyers of one state as each account's candidates, as a name search leaves them.
  const buyers = sharedDataset()
    .buyers.filter((b) => b.stateCode === 'TX')
    .slice(0, 3 * QUEUE);
  const { outcomes } = await t.service.store.open();
  for (let i = 0; i < QUEUE; i++) {
    const name = `Review Account ${String(i).padStart(3, '0')}`;
    const company = t.hs.store.createCompany({ name, state: 'TX' }, { source: 'CRM_UI' });
    ids.push(company.id);
    const candidates = [0, 1, 2].map((k) => {
      const b = buyers[3 * i + k];
      if (!b) throw new Error('the sandbox has too few Texas buyers');
      return {
        buyerId: b.id,
        name: b.name,
        stateCode: b.stateCode,
        type: b.type,
        score: 0.9 - k * 0.1 - i / 1000,
      };
    });
    await outcomes.record({
      crm: 'hubspot',
      tenant,
      accountId: company.id,
      accountName: name,
      state: 'TX',
      status: 'needs_review',
      matchedBy: null,
      buyerId: null,
      buyerName: null,
      buyerType: null,
      confidence: candidates[0]?.score ?? null,
      reason: `Needs review: several Texas buyers are called like "${name}"`,
      candidates,
      detail: {
        source: null,
        fields: [],
        written: {},
        notes: { created: [], alreadyPresent: 0, overCap: 0 },
      },
      at: new Date(Date.UTC(2026, 0, 1, 0, 0, i)),
    });
  }
  browser = await launchChromium();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await t?.close();
});

describe('review console', () => {
  it('pages, expands from the keyboard, clears 10 reviews in 5 interactions, re-searches in place', async () => {
    const context = await browser.newContext({
      httpCredentials: ADMIN,
      viewport: { width: 1440, height: 900 },
    });
    const page = await context.newPage();
    expect((await page.goto(`${t.base}/admin/review`))?.status()).toBe(200);
    expect(await page.locator('#range').textContent()).toBe(`1–50 of ${QUEUE}`);
    expect(await page.locator('a.tab[data-cohort="needs_review"] .count').textContent()).toBe(String(QUEUE));
    expect(await page.locator('header.nav a[aria-current="page"]').textContent()).toBe('Review');

    // Compact: one short row per account, its best candidate and score shown, the others folded away.
    const first = page.locator('tbody tr.row').first();
    expect((await first.boundingBox())?.height).toBeLessThan(90);
    // The record in its CRM, one click away.
    const firstId = await first.getAttribute('data-account-id');
    expect(
      await first.getByRole('link', { name: /^Open in HubSpot: Review Account \d+ / }).getAttribute('href'),
    ).toBe(`https://app.hubspot.com/contacts/${tenant}/company/${firstId}`);
    expect(await first.locator('td.best .score').textContent()).toMatch(/^0\.\d\d$/);
    expect(await page.locator('tr.more:visible').count()).toBe(0);
    expect(await page.locator('tbody button.confirm:visible').count()).toBe(50);

    // Next and Previous with where the page stands.
    await page.getByRole('link', { name: 'Next' }).click();
    await page.getByText(`51–100 of ${QUEUE}`).waitFor();
    const second = await rowIds(page);
    await page.getByRole('link', { name: 'Next' }).click();
    await page.getByText(`101–120 of ${QUEUE}`).waitFor();
    expect(await page.locator('#end').textContent()).toBe('End of list');
    await page.getByRole('link', { name: 'Previous' }).click();
    await page.getByText(`51–100 of ${QUEUE}`).waitFor();
    expect(await rowIds(page)).toEqual(second);
    await page.getByRole('link', { name: 'Previous' }).click();
    await page.getByText(`1–50 of ${QUEUE}`).waitFor();

    // From the keyboard: Tab reaches the first row's controls in reading order, Enter expands its
    // candidates, Space folds them again.
    await page.locator('#pick-all').focus();
    const order: string[] = [];
    for (let i = 0; i < 5; i++) {
      await page.keyboard.press('Tab');
      order.push(await page.evaluate(() => (document.activeElement as HTMLElement).className));
    }
    expect(order).toEqual(['pick', 'crm-link', 'confirm top', 'reject', 'expand']);
    await page.keyboard.press('Enter');
    const more = page.locator('tr.more').first();
    await more.waitFor({ state: 'visible' });
    expect(await page.locator('button.expand').first().getAttribute('aria-expanded')).toBe('true');
    expect(await more.locator('ol.candidates li').count()).toBe(3);
    await page.keyboard.press('Space');
    await more.waitFor({ state: 'hidden' });

    expect(await checkConsolePage(page, 'review')).toEqual([]);

    // A dismissed approve-all names the count and the floor, and approves nothing.
    await page.locator('#floor').fill('0.85');
    await page.getByRole('button', { name: 'Approve all ≥ floor' }).click();
    const dialog = page.locator('dialog#approve-dialog');
    await dialog.waitFor({ state: 'visible' });
    const above = (await t.service.store.open()).outcomes.countApprovable(
      { crm: 'hubspot', tenant, cohort: 'needs_review', minConfidence: 0.85 },
      0.85,
    );
    expect(await dialog.locator('#approve-what').textContent()).toBe(
      `Approve the top candidate of ${await above} accounts whose best score is at least 0.85 (the confidence floor)? Each is written to its CRM.`,
    );
    expect(await checkConsolePage(page, 'review-dialog')).toEqual([]);
    await page.keyboard.press('Escape');
    await expect
      .poll(() => page.locator('#flash').textContent(), { timeout: 15_000 })
      .toBe('Nothing approved');
    expect(await needsReview()).toBe(QUEUE);

    // The goal task, counted: 1 show 10, 2 Filter, 3 select all, 4 Approve selected, 5 Approve.
    await page.getByRole('combobox', { name: /^Show/ }).selectOption('10');
    await page.getByRole('button', { name: 'Filter' }).click();
    await page.getByText(`1–10 of ${QUEUE}`).waitFor();
    const chosen = await rowIds(page);
    expect(chosen).toHaveLength(10);
    await page.getByLabel('select all on this page').check();
    await page.getByRole('button', { name: 'Approve selected' }).click();
    await dialog.waitFor({ state: 'visible' });
    const asked = (await dialog.locator('#approve-what').textContent()) ?? '';
    expect(asked).toMatch(/^Approve the top candidate of 10 selected accounts\? Confidence floor 0\.\d\d: /);
    expect(await dialog.locator('#approve-sample li').count()).toBe(10);
    await dialog.getByRole('button', { name: 'Approve 10 accounts' }).click();
    await expect
      .poll(() => page.locator('#flash').textContent(), { timeout: 15_000 })
      .toMatch(/^Approved 10 accounts \(run \d+\)$/);

    await eventually(async () => (await needsReview()) === QUEUE - 10, 'the queue shrank by 10', {
      timeoutMs: 60_000,
    });
    for (const id of chosen) {
      const values = t.hs.store.getCompany(id)?.values;
      await eventually(() => values?.get(P.status) === 'enriched', `company ${id} written`, {
        timeoutMs: 30_000,
      });
      expect(values?.get(P.matchReason)).toMatch(/^Confirmed by ops: /);
      expect(values?.get(P.buyerId)).toBeTruthy();
    }
    await page.reload();
    expect(await page.locator('a.tab[data-cohort="needs_review"] .count').textContent()).toBe(
      String(QUEUE - 10),
    );
    expect(await page.locator('#range').textContent()).toBe(`1–10 of ${QUEUE - 10}`);
    for (const id of await rowIds(page)) expect(chosen).not.toContain(id);

    // Export the review queue: one click on the page's link downloads every page of it.
    const [download] = await Promise.all([page.waitForEvent('download'), page.click('#export-review')]);
    expect(download.suggestedFilename()).toBe('review.csv');
    const exported = readFileSync((await download.path()) ?? '', 'utf8')
      .trim()
      .split('\r\n');
    expect(exported).toHaveLength(1 + QUEUE - 10);
    for (const id of chosen) expect(exported.join('\n')).not.toContain(`"${id}"`);
    expect(exported.join('\n')).toContain(`https://app.hubspot.com/contacts/${tenant}/company/`);

    // Re-search in place: a better name in the row's own box; the answer appears in the same page.
    const buyer = sharedDataset().buyers.find(
      (b) =>
        b.stateCode === 'OR' &&
        / County$/.test(b.name) &&
        sharedDataset().buyers.filter((x) => x.name === b.name).length === 1,
    );
    expect(buyer).toBeDefined();
    const url = page.url();
    const row = page.locator('tbody tr.row').nth(2);
    const target = await row.getAttribute('data-account-id');
    await row.locator('button.expand').click();
    const panel = page.locator(`tr.more[data-account-id="${target}"]`);
    await panel.getByLabel('Name').fill(buyer?.name ?? '');
    await panel.getByLabel('State').fill('OR');
    await panel.getByRole('button', { name: 'Search again' }).click();
    await expect
      .poll(() => panel.locator('.r-status').textContent(), { timeout: 60_000 })
      .toMatch(/^(Matched .+ and written to the CRM|\d+ candidates found: choose one)$/);
    expect(page.url()).toBe(url);
    const shown = `${await row.locator('td.best').textContent()} ${await panel.locator('ol.candidates').textContent()}`;
    expect(shown).toContain(buyer?.name);
    await context.close();
  }, 240_000);

  it("pages one tenant's queue with Next and Previous without falling back to every tenant's", async () => {
    // Another portal's accounts waiting too: a page of one tenant must not page into them.
    const { outcomes } = await t.service.store.open();
    for (let i = 0; i < 30; i++)
      await outcomes.record({
        crm: 'hubspot',
        tenant: 'other-portal',
        accountId: String(900_000 + i),
        accountName: `Other Portal Account ${i}`,
        state: 'TX',
        status: 'needs_review',
        matchedBy: null,
        buyerId: null,
        buyerName: null,
        buyerType: null,
        confidence: 0.99,
        reason: 'Needs review: another portal',
        candidates: [],
        detail: {
          source: null,
          fields: [],
          written: {},
          notes: { created: [], alreadyPresent: 0, overCap: 0 },
        },
      });
    const mine = await needsReview();
    const context = await browser.newContext({
      httpCredentials: ADMIN,
      viewport: { width: 1440, height: 900 },
    });
    const page = await context.newPage();
    await page.goto(`${t.base}/admin/review?crm=hubspot&tenant=${tenant}&limit=25`);
    expect(await page.locator('#range').textContent()).toBe(`1–25 of ${mine}`);
    await page.getByRole('link', { name: 'Next' }).click();
    await page.getByText(`26–50 of ${mine}`).waitFor();
    await page.getByRole('link', { name: 'Next' }).click();
    await page.getByText(`51–75 of ${mine}`).waitFor();
    expect(await page.locator('tbody tr.row', { hasText: 'Other Portal' }).count()).toBe(0);
    await page.getByRole('link', { name: 'Previous' }).click();
    await page.getByText(`26–50 of ${mine}`).waitFor();
    // Filtering by name from there keeps the tenant too.
    await page.getByLabel('Account name').fill('Account');
    await page.getByRole('button', { name: 'Filter' }).click();
    await page.getByText(`1–25 of ${mine}`).waitFor();
    expect(new URL(page.url()).searchParams.get('tenant')).toBe(tenant);
    await context.close();
  }, 120_000);
});
