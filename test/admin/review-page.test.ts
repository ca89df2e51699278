// The review queue page in a real headless Chromium (Debian's, driven by playwright-core) after a
// backfill of ~2,000 HubSpot emulator companies: every needs_review account is reachable by paging with
// "Next", a name search finds one, approving 50 selected rows leaves 50 companies enriched in the
// emulator with a "Confirmed by" reason, and a screenshot is written.
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningBuyerIntelSandbox } from '../../emulators/buyer-intel/server.ts';
import { type RunningHubSpotSandbox, startHubSpotSandbox } from '../../emulators/hubspot/server.ts';
import { sandboxSettings } from '../../emulators/settings.ts';
import { runBackfill } from '../../src/backfill/backfill.ts';
import { DEFAULT_MAPPING } from '../../src/map/default-mapping.ts';
import { fieldDefinitions } from '../../src/map/field-definitions.ts';
import { PROVENANCE_FIELDS as P } from '../../src/map/provenance.ts';
import type { Service } from '../../src/service/runtime.ts';
import { launchChromium } from '../helpers/browser.ts';
import { sharedDataset, startSandbox } from '../helpers/buyer-intel-sandbox.ts';
import { eventually } from '../helpers/poll.ts';
import { closeService, completedJob, createTestService } from '../helpers/service.ts';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const prefix = `test-review-page-${randomUUID().slice(0, 8)}`;
const ADMIN = { username: 'ops', password: randomBytes(12).toString('hex') };

let bi: RunningBuyerIntelSandbox;
let hs: RunningHubSpotSandbox;
let service: Service;
let base: string;
let browser: Browser;
let tenant: string;
let redis: Redis;

/**
 * What a CRM holds after years of sales work: a bare city name with its state for every place where
 * the sandbox has several buyers (city, schools, county, police… — a person must choose), the full
 * name of a buyer elsewhere, and a few companies that are no public buyer at all.
 */
function companies(): { name: string; state: string }[] {
  const places = new Map<string, { city: string; state: string; names: string[] }>();
  for (const b of sharedDataset().buyers) {
    if (!b.city) continue;
    const key = `${b.city}|${b.stateCode}`;
    const place = places.get(key) ?? { city: b.city, state: b.stateCode, names: [] };
    place.names.push(b.name);
    places.set(key, place);
  }
  const ambiguous = [...places.values()].filter((p) => p.names.length > 1);
  const single = [...places.values()].filter((p) => p.names.length === 1);
  return [
    ...ambiguous.map((p) => ({ name: p.city, state: p.state })),
    ...single.slice(0, 1000).map((p) => ({ name: p.names[0] ?? p.city, state: p.state })),
    ...Array.from({ length: 20 }, (_, i) => ({ name: `Zenith Quantum Holdings ${i + 1} LLC`, state: 'DE' })),
  ];
}

async function drained(timeoutMs: number): Promise<void> {
  await eventually(
    async () => {
      for (const queue of [service.queue, service.backfillQueue]) {
        const c = await queue.getJobCounts('waiting', 'active', 'delayed', 'prioritized', 'waiting-children');
        if (!Object.values(c).every((n) => n === 0)) return false;
      }
      return true;
    },
    'every job finished',
    { timeoutMs, intervalMs: 100 },
  );
}

async function needsReviewIds(): Promise<Set<string>> {
  const { outcomes } = await service.store.open();
  const ids = new Set<string>();
  let after: string | undefined;
  do {
    const page = await outcomes.list(
      { cohort: 'needs_review', crm: 'hubspot', tenant },
      { sort: 'date', direction: 'desc', limit: 500, after },
    );
    for (const o of page.rows) ids.add(o.accountId);
    after = page.next ?? undefined;
  } while (after);
  return ids;
}

const rowIds = (page: Page) =>
  page
    .locator('tbody tr.row')
    .evaluateAll((rows) =>
      rows.map((r) => (r as unknown as { dataset: Record<string, string> }).dataset.accountId ?? ''),
    );

beforeAll(async () => {
  // HubSpot's own 10-second limits would pace a 2,000-account backfill to minutes; the page is under test.
  [bi, hs] = await Promise.all([startSandbox(), startHubSpotSandbox({ rateLimits: false })]);
  tenant = String(hs.portalId);
  redis = new Redis(REDIS_URL);
  const settings = sandboxSettings(
    { buyerIntel: bi, hubspot: hs },
    { redisUrl: REDIS_URL, prefix },
    { worker: { concurrency: 20, writeBatchWaitMs: 20 } },
  );
  service = await createTestService({
    ...settings,
    // The client's own pacing (the provider's 6,000 a minute) would make the backfill the slow part.
    buyerIntel: { ...settings.buyerIntel, ratePerSecond: 10_000, burst: 10_000 },
    admin: ADMIN,
  });
  await service.connector('hubspot', tenant).ensureFields(fieldDefinitions(DEFAULT_MAPPING));
  base = (await service.startHttp(0, '127.0.0.1')).url;
  browser = await launchChromium();
}, 60_000);
afterAll(async () => {
  await browser?.close();
  redis?.disconnect();
  await closeService(service, REDIS_URL, prefix);
  await Promise.all([bi?.close(), hs?.close()]);
});

describe('review queue page', () => {
  it('after a backfill of 2,000 accounts: every needs_review reachable, search, approve 50 selected, reject, re-search', async () => {
    const made = companies();
    expect(made.length).toBeGreaterThanOrEqual(2_000);
    for (const c of made) hs.store.createCompany(c, { source: 'CRM_UI' });
    service.startWorker();
    const started = Date.now();
    const run = await runBackfill({
      connector: service.connector('hubspot', tenant),
      queue: service.backfillQueue,
      redis,
      prefix,
      filters: [],
      attempts: 3,
      store: service.store,
    });
    expect(run.enqueued).toBe(made.length);
    // A few minutes at most: ~1 minute on a quiet 2-core machine, up to ~2½ at a load average of 20
    // (helpers and a CI run side by side). The page, not the backfill's speed, is under test.
    await drained(300_000);
    const expected = await needsReviewIds();
    console.log(
      `backfill of ${made.length} accounts: ${Date.now() - started} ms, ${expected.size} need review`,
    );
    // A good share of a real CRM needs a person: here, every ambiguous bare place name.
    expect(expected.size).toBeGreaterThan(500);

    const context = await browser.newContext({
      httpCredentials: ADMIN,
      viewport: { width: 1400, height: 900 },
    });
    const page = await context.newPage();
    expect((await page.goto(`${base}/admin/review`))?.status()).toBe(200);
    expect(await page.locator('a.tab[data-cohort="needs_review"] .count').textContent()).toBe(
      String(expected.size),
    );

    const seen = new Set<string>();
    let pages = 0;
    for (;;) {
      const ids = await rowIds(page);
      expect(ids.length).toBeLessThanOrEqual(50);
      for (const id of ids) seen.add(id);
      pages++;
      const next = page.locator('a#next');
      if ((await next.count()) === 0) break;
      await next.click();
      await page.waitForLoadState('domcontentloaded');
    }
    expect(await page.locator('#end').count()).toBe(1);
    expect(pages).toBe(Math.ceil(expected.size / 50));
    expect([...seen].sort()).toEqual([...expected].sort());

    // Search by name: a needs_review account's own name, typed into the page's search box.
    const { outcomes } = await service.store.open();
    const target = (
      await outcomes.list({ cohort: 'needs_review', tenant }, { sort: 'date', direction: 'asc', limit: 1 })
    ).rows[0];
    expect(target?.accountName).toBeTruthy();
    await page.goto(`${base}/admin/review`);
    await page.fill('input[name="q"]', target?.accountName ?? '');
    await Promise.all([page.waitForURL(/q=/), page.click('form.filter button[type="submit"]')]);
    expect(await rowIds(page)).toContain(target?.accountId);
    for (const name of await page.locator('tbody tr.row .name').allTextContents())
      expect(name.toLowerCase()).toContain((target?.accountName ?? '').toLowerCase());

    // "Approve all ≥ floor" asks first in the page, with the count it would approve and the floor;
    // dismissed, nothing moves.
    await page.goto(`${base}/admin/review`);
    const approvable = await outcomes.countApprovable({ cohort: 'needs_review', minConfidence: 0.5 }, 0.5);
    expect(approvable).toBeGreaterThan(0);
    const dialog = page.locator('dialog#approve-dialog');
    await page.click('#approve-floor');
    await dialog.waitFor({ state: 'visible' });
    expect(await dialog.locator('#approve-what').textContent()).toContain(
      `of ${approvable} accounts whose best score is at least 0.50 (the confidence floor)`,
    );
    await dialog.locator('#approve-cancel').click();
    await expect
      .poll(() => page.locator('#flash').textContent(), { timeout: 15_000 })
      .toBe('Nothing approved');
    expect((await needsReviewIds()).size).toBe(expected.size);

    // Approve the 50 rows of the first page.
    const chosen = await rowIds(page);
    expect(chosen).toHaveLength(50);
    await page.check('#pick-all');
    await page.click('#approve-selected');
    await dialog.waitFor({ state: 'visible' });
    expect(await dialog.locator('#approve-what').textContent()).toMatch(
      /^Approve the top candidate of 50 selected accounts/,
    );
    await dialog.locator('#approve-ok').click();
    await expect
      .poll(() => page.locator('#flash').textContent(), { timeout: 15_000 })
      .toMatch(/^Approved 50 accounts/);
    await drained(60_000);

    for (const id of chosen) {
      const values = hs.store.getCompany(id)?.values;
      expect(values?.get(P.status)).toBe('enriched');
      expect(values?.get(P.matchReason)).toMatch(/^Confirmed by ops: /);
      expect(values?.get(P.matchReason)).not.toContain('Needs review');
    }
    const after = await needsReviewIds();
    expect(after.size).toBe(expected.size - 50);
    for (const id of chosen) expect(after.has(id)).toBe(false);

    // Reject one row (pinned no_match) and re-search another with an edited name (its top candidate's).
    await page.reload();
    const [rejected, researched] = await rowIds(page);
    const jobOf = async () => {
      await expect
        .poll(() => page.locator('#flash').textContent(), { timeout: 15_000 })
        .toMatch(/^Queued job /);
      const jobId = ((await page.locator('#flash').textContent()) ?? '').replace('Queued job ', '');
      await completedJob(service, jobId);
      // Cleared, so the next action's job id is not mistaken for this one's.
      await page.locator('#flash').evaluate((el) => {
        (el as unknown as { textContent: string }).textContent = '';
      });
    };
    await page.locator(`tr.row[data-account-id="${rejected}"] button.reject`).click();
    await jobOf();
    const researchRow = page.locator(`tr.more[data-account-id="${researched}"]`);
    await page.locator(`tr.row[data-account-id="${researched}"] button.expand`).click();
    const better = (
      await outcomes.get({ crm: 'hubspot', tenant, accountId: researched ?? '' })
    )?.candidates.sort((a, b) => b.score - a.score)[0];
    expect(better).toBeDefined();
    await researchRow.locator('input.r-name').fill(better?.name ?? '');
    await researchRow.locator('button.research').click();
    await jobOf();
    const rejectedNow = await outcomes.get({ crm: 'hubspot', tenant, accountId: rejected ?? '' });
    expect(rejectedNow?.status).toBe('no_match');
    expect(rejectedNow?.pinned).toBe(true);
    expect(hs.store.getCompany(rejected ?? '')?.values.get(P.status)).toBe('no_match');
    expect(hs.store.getCompany(researched ?? '')?.values.get(P.status)).toBe('enriched');
    expect(hs.store.getCompany(researched ?? '')?.values.get(P.buyerId)).toBe(better?.buyerId);

    await page.reload();
    expect(await page.locator('a.tab[data-cohort="needs_review"] .count').textContent()).toBe(
      String(after.size - 2),
    );
    const dir = mkdtempSync(join(tmpdir(), 'review-page-'));
    const screenshot = process.env.REVIEW_SCREENSHOT ?? join(dir, 'review-page.png');
    await page.screenshot({ path: screenshot, fullPage: true });
    expect(statSync(screenshot).size).toBeGreaterThan(10_000);
    await context.close();
  }, 480_000);
});
