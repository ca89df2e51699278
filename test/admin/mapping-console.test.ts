// The mapping page in a real Chromium, as a sales-ops lead uses it: every attribute of the mapping in
// force under each connected CRM's own field name; the goal task "change the policy of one field after
// previewing its effect" in at most 5 interactions (open the page, pick the policy, preview, save),
// the preview showing an enriched account's value now → what the change would write; the new version
// in force for the next job without a restart and listed with who changed what; a bad value named
// beside its input (a 400); a revert to the file's version; when each field was last written and how
// many accounts hold our value. Screenshots at both widths and no serious
// accessibility violation.
import { randomBytes } from 'node:crypto';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { enrichJobOptions } from '../../queues/enrich-queue.ts';
import { DEFAULT_MAPPING } from '../../src/map/default-mapping.ts';
import { launchChromium } from '../helpers/browser.ts';
import { checkConsolePage } from '../helpers/console-check.ts';
import { completedJob } from '../helpers/service.ts';
import { startTestService, type TestService } from '../helpers/start-service.ts';

const ADMIN = { username: 'ops', password: randomBytes(12).toString('hex') };
const PHONE = 'buyer_intel_main_phone';
const PERSONS_PHONE = '(512) 555-0100';
let running: TestService;
let browser: Browser;
let austin: string;
let travis: string;
let jobs = 0;

const tenant = () => String(running.hs.portalId);
const auth = () => `Basic ${Buffer.from(`${ADMIN.username}:${ADMIN.password}`).toString('base64')}`;

async function enrichNow(accountId: string): Promise<void> {
  const jobId = `mapping-console-${accountId}-${++jobs}`;
  await running.service.queue.add(
    'enrich',
    { crm: 'hubspot', tenant: tenant(), accountId, trigger: 'cli' },
    enrichJobOptions('cli', 1, jobId),
  );
  await completedJob(running.service, jobId);
}

const phoneInCrm = () => running.hs.store.getCompany(austin)?.values.get(PHONE);

async function activeMapping() {
  const res = await fetch(`${running.base}/admin/api/mapping`, { headers: { authorization: auth() } });
  return (await res.json()) as {
    version: number;
    fromFile: boolean;
    mapping: typeof DEFAULT_MAPPING;
    thresholds: { acceptThreshold: number; ambiguityMargin: number };
    versions: { version: number; actor: string; reverts: number | null }[];
  };
}

beforeAll(async () => {
  running = await startTestService({
    name: 'mapping-console',
    fields: true,
    startWorker: true,
    settings: (s) => ({ ...s, admin: ADMIN }),
  });
  // A person typed the switchboard number before we came: `fill-empty` keeps it.
  austin = running.hs.store.createCompany(
    { name: 'City of Austin', state: 'TX', domain: 'austintexas.gov', [PHONE]: PERSONS_PHONE },
    { source: 'CRM_UI' },
  ).id;
  await enrichNow(austin);
  travis = running.hs.store.createCompany({ name: 'Travis County', state: 'TX' }, { source: 'CRM_UI' }).id;
  await enrichNow(travis);
  browser = await launchChromium();
}, 90_000);
afterAll(async () => {
  await browser?.close();
  await running?.close();
});

const rowOf = (page: Page, property: string) =>
  page.locator('#mapping-form tbody tr', { has: page.locator(`input[name=property][value="${property}"]`) });

describe('the mapping page', () => {
  it('shows each attribute under both CRMs’ field names with its policy', async () => {
    const context = await browser.newContext({
      httpCredentials: ADMIN,
      viewport: { width: 1440, height: 900 },
    });
    const page = await context.newPage();
    await page.goto(`${running.base}/admin/dashboard`);
    await page.getByRole('link', { name: 'Mapping' }).click();
    await expect.poll(() => page.title()).toContain('Mapping');
    expect(await page.locator('#mapping-form tbody tr').count()).toBe(DEFAULT_MAPPING.fields.length);
    const population = rowOf(page, 'buyer_intel_population');
    expect(await population.locator('code').allTextContents()).toEqual([
      'buyer_intel_population',
      'BuyerIntel_Population__c',
    ]);
    expect(await population.locator('select[name=transform]').inputValue()).toBe('integer');
    expect(await population.locator('select[name=policy]').inputValue()).toBe('ours');
    expect(await page.locator('thead').first().textContent()).toMatch(/HubSpot name.*Salesforce name/);
    expect(await rowOf(page, PHONE).textContent()).toContain('only into an empty field');
    expect(await page.locator('.summary').first().textContent()).toContain('version 1: the built-in mapping');
    // Last written: both accounts' population is ours, at the enrichment just made.
    expect(await page.locator('thead').first().textContent()).toContain('Last written');
    const when = population.locator('td.written time');
    expect(await when.textContent()).toMatch(/^\d{1,2} [A-Z][a-z]{2} \d{4}, \d\d:\d\d UTC$/);
    const at = Date.parse((await when.getAttribute('datetime')) ?? '');
    expect(Date.now() - at).toBeLessThan(10 * 60_000);
    expect(await population.locator('td.written small').textContent()).toBe('2 accounts hold ours');
    // Nothing of ours in the phone yet: Austin's kept by fill-empty, and Travis County's buyer has none.
    expect(running.hs.store.getCompany(travis)?.values.get(PHONE)).toBeUndefined();
    expect(await rowOf(page, PHONE).locator('td.written').textContent()).toBe('never');
    await context.close();
  }, 60_000);

  it('changes a field’s policy after previewing its effect, in 4 interactions; the next job uses it', async () => {
    expect(phoneInCrm()).toBe(PERSONS_PHONE);
    const context = await browser.newContext({
      httpCredentials: ADMIN,
      viewport: { width: 1440, height: 900 },
    });
    const page = await context.newPage();
    await page.goto(`${running.base}/admin/mapping`); // 1
    await page.getByLabel(`Write policy of MainPhoneNumber (${PHONE})`).selectOption('overwrite'); // 2
    const save = page.getByRole('button', { name: 'Save as version 2' });
    expect(await save.isDisabled()).toBe(true);
    await page.getByRole('button', { name: 'Preview the change' }).click(); // 3
    const preview = page.locator('#preview');
    await preview.locator('table').waitFor();
    expect(await preview.textContent()).toContain(`${PHONE}: policy fill-empty → overwrite`);
    expect(await page.locator('#preview-summary').textContent()).toMatch(
      /^1 of 2 recently enriched accounts would end up with a different value/,
    );
    const cells = await preview
      .locator('tbody tr', { hasText: 'City of Austin' })
      .locator('td')
      .allTextContents();
    expect(cells[0]).toBe(PHONE);
    expect(cells[1]).toBe(PERSONS_PHONE);
    expect(cells[2]).toMatch(/^keeps the value there/);
    const written = /^writes (.+?)Overwrite policy/.exec(cells[3] ?? '')?.[1];
    expect(written).toBeTruthy();
    expect(written).not.toBe(PERSONS_PHONE);
    expect(await checkConsolePage(page, 'mapping')).toEqual([]);

    await save.click(); // 4
    await page.getByText('Version 2 saved').waitFor();
    const versions = page.locator('table[aria-labelledby=versions-heading] tbody tr');
    expect(await versions.count()).toBe(2);
    expect(await versions.nth(0).textContent()).toMatch(
      new RegExp(`^2.*UTC${ADMIN.username}.*${PHONE}: policy fill-empty → overwrite.*in force`),
    );
    expect(await versions.nth(1).textContent()).toContain('The starting point: the mapping file.');
    // Version 1 is the file as it is: no "the file changed" notice (its enum labels kept in order).
    expect(await page.locator('.notice').count()).toBe(0);
    expect(await rowOf(page, PHONE).locator('select[name=policy]').inputValue()).toBe('overwrite');
    expect(await checkConsolePage(page, 'mapping-versions')).toEqual([]);

    const active = await activeMapping();
    expect(active.version).toBe(2);
    expect(active.fromFile).toBe(false);
    expect(active.mapping.fields.find((f) => f.property === PHONE)?.policy).toBe('overwrite');
    // The running worker takes the new version at its next job, without a restart.
    await enrichNow(austin);
    expect(phoneInCrm()).toBe(written);
    // Its Last written says so now.
    await page.reload();
    expect(await rowOf(page, PHONE).locator('td.written small').textContent()).toBe('1 account holds ours');
    expect(await rowOf(page, PHONE).locator('td.written time').count()).toBe(1);
    await context.close();
  }, 90_000);

  it('names a bad value beside its input (400) and saves nothing', async () => {
    const context = await browser.newContext({
      httpCredentials: ADMIN,
      viewport: { width: 1024, height: 900 },
    });
    const page = await context.newPage();
    await page.goto(`${running.base}/admin/mapping`);
    const field = page.getByLabel('CRM field of Population (buyer_intel_population)');
    await field.fill('Population Field');
    const answer = page.waitForResponse((r) => r.url().endsWith('/admin/api/mapping/preview'));
    await page.getByRole('button', { name: 'Preview the change' }).click();
    expect((await answer).status()).toBe(400);
    const beside = rowOf(page, 'buyer_intel_population').locator('.problem[data-key=property]');
    await expect
      .poll(() => beside.textContent())
      .toContain('"Population Field" is not a valid CRM field name');
    expect(await field.getAttribute('aria-invalid')).toBe('true');
    expect(await page.getByRole('alert').textContent()).toMatch(/Row \d+ \(Population\), property:/);
    expect(await page.getByRole('button', { name: 'Save as version 3' }).isDisabled()).toBe(true);
    expect((await activeMapping()).version).toBe(2);
    await context.close();
  }, 60_000);

  it('reverts to the file’s version as a new version naming it', async () => {
    const context = await browser.newContext({
      httpCredentials: ADMIN,
      viewport: { width: 1440, height: 900 },
    });
    const page = await context.newPage();
    await page.goto(`${running.base}/admin/mapping`);
    await page.getByRole('button', { name: 'Revert to version 1' }).click();
    await page.getByText('Version 3 saved').waitFor();
    expect(
      await page.locator('table[aria-labelledby=versions-heading] tbody tr').first().textContent(),
    ).toContain('Reverts to version 1.');
    const active = await activeMapping();
    expect(active.version).toBe(3);
    expect(active.mapping).toEqual(DEFAULT_MAPPING);
    expect(active.versions.map((v) => [v.version, v.actor, v.reverts])).toEqual([
      [3, ADMIN.username, 1],
      [2, ADMIN.username, null],
      [1, 'the mapping file', null],
    ]);
    await context.close();
  }, 60_000);

  it('raises the auto-match floor after previewing it; a bad floor is named beside its input; the next new account is decided by it', async () => {
    const outcome = async (id: string) =>
      (await running.service.store.open()).outcomes.get({ crm: 'hubspot', tenant: tenant(), accountId: id });
    const before = await outcome(travis);
    expect(before?.status).toBe('enriched');
    expect(before?.confidence ?? 1).toBeLessThan(1);
    const context = await browser.newContext({
      httpCredentials: ADMIN,
      viewport: { width: 1440, height: 900 },
    });
    const page = await context.newPage();
    await page.goto(`${running.base}/admin/mapping`);
    const floor = page.getByLabel('Auto-match floor');
    expect(await floor.inputValue()).toBe('0.75');
    await floor.fill('0');
    await page.getByRole('button', { name: 'Preview the change' }).click();
    const beside = page.locator('fieldset .problem[data-key=acceptThreshold]');
    await expect.poll(() => beside.textContent()).toBe('must be above 0 (a score of 0 would match anything)');
    expect(await floor.getAttribute('aria-invalid')).toBe('true');

    await floor.fill('1');
    await page.getByRole('button', { name: 'Preview the change' }).click();
    await page.locator('#preview li', { hasText: 'auto-match floor 0.75 → 1' }).waitFor();
    expect(await page.locator('#preview').textContent()).toMatch(
      /[12] accounts matched by name scored below 1: they keep their buyer \(its id is on the record\), but a new account that scores as they did goes to review instead/,
    );
    expect(await checkConsolePage(page, 'mapping-thresholds')).toEqual([]);
    await page.getByRole('button', { name: 'Save as version 4' }).click();
    await page.getByText('Version 4 saved').waitFor();
    expect(
      await page.locator('table[aria-labelledby=versions-heading] tbody tr').first().textContent(),
    ).toContain('auto-match floor 0.75 → 1');
    expect((await activeMapping()).thresholds).toEqual({ acceptThreshold: 1, ambiguityMargin: 0.1 });

    // The running worker resolves the next job with the new floor: an account scoring as Travis County
    // did waits for review (Travis County itself keeps its buyer: its id is on the record).
    const again = running.hs.store.createCompany(
      { name: 'Travis County', state: 'TX' },
      { source: 'CRM_UI' },
    ).id;
    await enrichNow(again);
    const after = await outcome(again);
    expect(after?.status).toBe('needs_review');
    expect(after?.reason).toContain('below the 1.00 needed');
    await context.close();
  }, 90_000);
});
