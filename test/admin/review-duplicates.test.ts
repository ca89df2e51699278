// The review page's duplicates tab in a real headless Chromium (Debian's, driven by playwright-core):
// HubSpot emulator companies enriched one by one, several of them to one buyer, show as one group per
// buyer with the account that has the strongest evidence recommended and the others "duplicate of" it
// (as the CRM's buyer_intel_duplicate_of says), groups page with "More groups", a hostile account name
// stays text, and rejecting the wrong member from its group takes it out of the group and the CRM mark
// off it. A screenshot is written.
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningBuyerIntelSandbox } from '../../emulators/buyer-intel/server.ts';
import { type RunningHubSpotSandbox, startHubSpotSandbox } from '../../emulators/hubspot/server.ts';
import { sandboxSettings } from '../../emulators/settings.ts';
import { DEFAULT_MAPPING } from '../../src/map/default-mapping.ts';
import { fieldDefinitions } from '../../src/map/field-definitions.ts';
import { PROVENANCE_FIELDS as P } from '../../src/map/provenance.ts';
import type { Service } from '../../src/service/runtime.ts';
import { launchChromium } from '../helpers/browser.ts';
import { sharedDataset, startSandbox } from '../helpers/buyer-intel-sandbox.ts';
import { closeService, completedJob, createTestService } from '../helpers/service.ts';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const prefix = `test-review-dups-${randomUUID().slice(0, 8)}`;
const ADMIN = { username: 'ops', password: randomBytes(12).toString('hex') };
const HOSTILE = `<script>window.__pwned = 1</script><img src=x onerror="window.__pwned = 2">Travis County`;

let bi: RunningBuyerIntelSandbox;
let hs: RunningHubSpotSandbox;
let service: Service;
let base: string;
let browser: Browser;
let context: BrowserContext;
let tenant: string;

const buyerId = (name: string, state: string): string => {
  const found = sharedDataset().buyers.find((b) => b.name === name && b.stateCode === state);
  if (!found) throw new Error(`the sandbox has no buyer ${name} (${state})`);
  return found.id;
};
const crmMark = (id: string) => hs.store.getCompany(id)?.values.get(P.duplicateOf) ?? null;

/** Enriches one company through the admin page's own Retry endpoint (basic auth), and waits for it. */
async function enriched(accountId: string): Promise<void> {
  const res = await context.request.post(`${base}/admin/api/retry`, {
    data: { crm: 'hubspot', tenant, accountId },
  });
  expect(res.status()).toBe(202);
  await completedJob(service, String(((await res.json()) as { jobId: string }).jobId));
}

const group = (page: Page, buyer: string) => page.locator(`section.group[data-buyer-id="${buyer}"]`);
const member = (page: Page, buyer: string, accountId: string) =>
  group(page, buyer).locator(`tr.member[data-account-id="${accountId}"]`);

beforeAll(async () => {
  [bi, hs] = await Promise.all([startSandbox(), startHubSpotSandbox()]);
  tenant = String(hs.portalId);
  service = await createTestService({
    ...sandboxSettings(
      { buyerIntel: bi, hubspot: hs },
      { redisUrl: REDIS_URL, prefix },
      { worker: { writeBatchWaitMs: 20 } },
    ),
    admin: ADMIN,
  });
  await service.connector('hubspot', tenant).ensureFields(fieldDefinitions(DEFAULT_MAPPING));
  base = (await service.startHttp(0, '127.0.0.1')).url;
  service.startWorker();
  browser = await launchChromium();
  context = await browser.newContext({ httpCredentials: ADMIN, viewport: { width: 1400, height: 900 } });
}, 60_000);
afterAll(async () => {
  await context?.close();
  await browser?.close();
  await closeService(service, REDIS_URL, prefix);
  await Promise.all([bi?.close(), hs?.close()]);
});

describe('review page: duplicates groups', () => {
  it('shows each group with the recommended account marked, the others duplicate of it, as the CRM says', async () => {
    const travis = buyerId('Travis County', 'TX');
    const harris = buyerId('Harris County', 'TX');
    const company = (properties: Record<string, string>) =>
      hs.store.createCompany(properties, { source: 'CRM_UI' }).id;
    // Recorded in this order: the one a person pinned by buyer id comes last, so its evidence (not its
    // age) is what makes it the recommended account.
    const byName = company({ name: 'Travis County', state: 'TX' });
    const hostile = company({ name: HOSTILE, state: 'TX' });
    const wrong = company({ name: 'County of Travis', state: 'Texas' });
    const byId = company({ name: 'Travis Co. Purchasing', state: 'TX', [P.buyerId]: travis });
    const harrisFirst = company({ name: 'Harris County', state: 'TX' });
    const harrisSecond = company({ name: 'Harris County, Texas' });
    const alone = company({ name: 'City of Austin', state: 'TX' });
    for (const id of [byName, hostile, wrong, byId, harrisFirst, harrisSecond, alone]) await enriched(id);

    const { outcomes } = await service.store.open();
    const outcome = async (accountId: string) => outcomes.get({ crm: 'hubspot', tenant, accountId });
    const page = await context.newPage();
    const queuedJob = async () => {
      await expect.poll(() => page.locator('#flash').textContent()).toMatch(/^Queued job /);
      const jobId = ((await page.locator('#flash').textContent()) ?? '').replace('Queued job ', '');
      await completedJob(service, jobId);
    };

    // The hostile name needs a person (its best candidate scores low); they confirm Travis County.
    expect((await outcome(hostile))?.status).toBe('needs_review');
    expect((await page.goto(`${base}/admin/review?cohort=needs_review`))?.status()).toBe(200);
    const hostileRow = page.locator(`tr.row[data-account-id="${hostile}"]`);
    expect(await hostileRow.locator('.name').textContent()).toBe(HOSTILE);
    // Its candidates fold under the row; a person opens them and chooses.
    await hostileRow.locator('button.expand').click();
    await page
      .locator(`tr.more[data-account-id="${hostile}"] button.confirm[data-buyer="${travis}"]`)
      .click();
    await queuedJob();

    for (const id of [byName, hostile, wrong, byId])
      expect((await outcome(id))?.buyerId, `account ${id}`).toBe(travis);
    for (const id of [harrisFirst, harrisSecond])
      expect((await outcome(id))?.buyerId, `account ${id}`).toBe(harris);
    const byIdOutcome = await outcome(byId);
    expect(byIdOutcome?.matchedBy).toBe('id');

    // The CRM: every Travis account but the pinned one is marked duplicate of it; Harris's younger one
    // of the older (same evidence); the lone account carries no mark.
    expect(crmMark(byId)).toBeNull();
    for (const id of [byName, hostile, wrong]) expect(crmMark(id), `account ${id}`).toBe(byId);
    expect(crmMark(harrisFirst)).toBeNull();
    expect(crmMark(harrisSecond)).toBe(harrisFirst);
    expect(crmMark(alone)).toBeNull();

    expect((await page.goto(`${base}/admin/review`))?.status()).toBe(200);
    expect(await page.locator('a.tab[data-cohort="duplicates"] .count').textContent()).toBe('6');
    await page.click('a.tab[data-cohort="duplicates"]');
    await page.waitForURL(/cohort=duplicates/);
    expect(await page.locator('section.group').count()).toBe(2);
    // Groups, not rows: no flat table, no bulk approve.
    expect(await page.locator('tr.row').count()).toBe(0);
    expect(await page.locator('#approve-selected').count()).toBe(0);

    const t = group(page, travis);
    expect(await t.locator('.buyer').textContent()).toBe('Travis County');
    expect(await t.locator('h2').textContent()).toContain(travis);
    expect(await t.locator('.size').textContent()).toBe('4');
    expect(await t.locator('tr.member').count()).toBe(4);
    const keep = member(page, travis, byId);
    expect(await t.locator('tr.member').first().getAttribute('data-account-id')).toBe(byId);
    expect(await keep.getAttribute('class')).toContain('recommended');
    expect(await t.locator('tr.recommended').count()).toBe(1);
    expect(await keep.locator('.how').textContent()).toBe('matched by id');
    expect(await keep.locator('.why').textContent()).toBe(
      `strongest evidence: matched by id, confidence ${byIdOutcome?.confidence?.toFixed(2)}`,
    );
    for (const id of [byName, hostile, wrong]) {
      const row = member(page, travis, id);
      expect(await row.locator('.dup').textContent()).toBe(`duplicate of Travis Co. Purchasing (${byId})`);
      expect(await row.locator('.how').textContent()).toBe(
        id === hostile ? 'confirmed by a person' : 'matched by name',
      );
      expect(await row.locator('.stale').count()).toBe(0);
    }

    // The hostile name is text: shown as typed, nothing of it ran or became an element.
    expect(await member(page, travis, hostile).locator('.name').textContent()).toBe(HOSTILE);
    expect(await page.locator('section.group script, section.group img').count()).toBe(0);
    expect(await page.evaluate(() => (globalThis as { __pwned?: number }).__pwned)).toBeUndefined();

    const h = group(page, harris);
    expect(await h.locator('.size').textContent()).toBe('2');
    expect(await h.locator('tr.recommended').getAttribute('data-account-id')).toBe(harrisFirst);
    expect(await h.locator('.why').textContent()).toMatch(
      /^equal evidence \(matched by name, confidence \d\.\d\d\); recorded first$/,
    );
    expect(await member(page, harris, harrisSecond).locator('.dup').textContent()).toBe(
      `duplicate of Harris County (${harrisFirst})`,
    );
    expect(await page.locator(`tr.member[data-account-id="${alone}"]`).count()).toBe(0);

    // Keyset paging of groups, one a page: Harris's buyer id sorts first, then Travis's, then the end.
    const sorted = [harris, travis].sort();
    await page.goto(`${base}/admin/review?cohort=duplicates&limit=1`);
    expect(await page.locator('section.group').getAttribute('data-buyer-id')).toBe(sorted[0]);
    await Promise.all([page.waitForURL(/after=/), page.click('a#more-groups')]);
    expect(await page.locator('section.group').getAttribute('data-buyer-id')).toBe(sorted[1]);
    expect(await page.locator('a#more-groups').count()).toBe(0);
    expect(await page.locator('#end').textContent()).toBe('End of groups');
    expect((await page.goto(`${base}/admin/review?cohort=duplicates&after=bm9wZQ`))?.status()).toBe(400);

    await page.goto(`${base}/admin/review?cohort=duplicates`);
    const dir = process.env.REVIEW_SCREENSHOT
      ? dirname(process.env.REVIEW_SCREENSHOT)
      : mkdtempSync(join(tmpdir(), 'review-page-'));
    const screenshot = join(dir, 'review-duplicates.png');
    await page.screenshot({ path: screenshot, fullPage: true });
    expect(statSync(screenshot).size).toBeGreaterThan(10_000);
    console.log(`duplicates tab screenshot: ${screenshot}`);

    // "County of Travis" is the wrong one: rejected from its group, it leaves the group and loses its mark;
    // the CRM record stays (nothing merged or deleted).
    await member(page, travis, wrong).locator('button.reject').click();
    await queuedJob();
    const rejected = await outcome(wrong);
    expect(rejected?.status).toBe('no_match');
    expect(rejected?.pinned).toBe(true);
    expect(rejected?.reason).toContain('wrong buyer: not Travis County');
    expect(hs.store.getCompany(wrong)?.values.get('name')).toBe('County of Travis');
    expect(hs.store.getCompany(wrong)?.values.get(P.status)).toBe('no_match');
    expect(crmMark(wrong)).toBeNull();
    for (const id of [byName, hostile]) expect(crmMark(id)).toBe(byId);

    await page.reload();
    expect(await group(page, travis).locator('.size').textContent()).toBe('3');
    expect(await member(page, travis, wrong).count()).toBe(0);
    expect(await page.locator('a.tab[data-cohort="duplicates"] .count').textContent()).toBe('5');
    await page.close();
  }, 120_000);
});
