// The admin page in a real headless Chromium (Debian's, driven by playwright-core) against a running
// service on the emulators: "needs review" first, fields old → new and notes visible, Confirm pins the
// candidate and the account ends up enriched; a screenshot of the page is taken.
import { statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { consoleTestService } from '../helpers/console-service.ts';
import { completedJob, refreshAndWait } from '../helpers/service.ts';

const env = consoleTestService('admin');
const { ADMIN, API_KEY } = env;

describe('admin page', () => {
  it('lists needs-review first, shows the diff, and confirming a candidate enriches the account', async () => {
    const austin = env.hs.store.createCompany(
      { name: 'City of Austin', state: 'TX' },
      { source: 'CRM_UI' },
    ).id;
    const springfield = env.hs.store.createCompany({ name: 'Springfield' }, { source: 'CRM_UI' }).id;
    await refreshAndWait(env.service, env.base, API_KEY, austin);
    await refreshAndWait(env.service, env.base, API_KEY, springfield);

    const context = await env.browser.newContext({
      httpCredentials: ADMIN,
      viewport: { width: 1400, height: 900 },
    });
    const page = await context.newPage();
    const response = await page.goto(`${env.base}/admin/recent`);
    expect(response?.status()).toBe(200);
    const rows = page.locator('tbody tr.row');
    expect(await rows.count()).toBe(2);
    await expect.poll(() => rows.nth(0).getAttribute('class')).toContain('status-needs_review');
    expect(await rows.nth(0).textContent()).toContain('Springfield');
    const enrichedRow = rows.nth(1);
    expect(await enrichedRow.textContent()).toContain('City of Austin');
    expect(await enrichedRow.locator('li', { hasText: '→' }).count()).toBeGreaterThan(3);

    const screenshot = process.env.ADMIN_SCREENSHOT ?? join(tmpdir(), `admin-page-${env.running.prefix}.png`);
    await page.screenshot({ path: screenshot, fullPage: true });
    expect(statSync(screenshot).size).toBeGreaterThan(10_000);

    const confirm = rows.nth(0).locator('button.confirm').first();
    await confirm.click();
    await expect.poll(() => page.locator('#flash').textContent()).toMatch(/^Queued job /);
    const jobId = ((await page.locator('#flash').textContent()) ?? '').replace('Queued job ', '');
    await completedJob(env.service, jobId);

    await page.reload();
    const after = page.locator('tbody tr.row');
    expect(await after.locator('.badge.needs_review').count()).toBe(0);
    expect(await after.filter({ hasText: 'Springfield' }).locator('.badge').textContent()).toBe('enriched');
    await context.close();
  }, 60_000);

  it('names the portal whose token lacks a scope a call needed, and which scope', async () => {
    const granted = [...env.hs.auth.authenticate(`Bearer ${env.hs.auth.privateAppToken}`).scopes];
    // A portal admin unticks the notes scope: the account's signal notes are refused.
    env.hs.auth.setPrivateAppScopes(granted.filter((s) => s !== 'crm.objects.contacts.write'));
    try {
      const austin = env.hs.store.createCompany(
        { name: 'City of Austin', state: 'TX' },
        { source: 'CRM_UI' },
      ).id;
      await refreshAndWait(env.service, env.base, API_KEY, austin).catch(() => undefined);
      const context = await env.browser.newContext({ httpCredentials: ADMIN });
      const page = await context.newPage();
      await page.goto(`${env.base}/admin/recent`);
      const notice = page.getByRole('alert');
      await expect.poll(() => notice.textContent()).toContain(`HubSpot portal ${env.hs.portalId} lacks`);
      expect(await notice.locator('code').first().textContent()).toBe('crm.objects.contacts.write');
      await context.close();
    } finally {
      env.hs.auth.setPrivateAppScopes(granted);
    }
  }, 60_000);

  it('asks for credentials: 401 with a Basic challenge, and POSTs must be JSON', async () => {
    const page = await fetch(`${env.base}/admin`);
    expect(page.status).toBe(401);
    expect(page.headers.get('www-authenticate')).toContain('Basic');
    const auth = `Basic ${Buffer.from(`${ADMIN.username}:${ADMIN.password}`).toString('base64')}`;
    const form = await fetch(`${env.base}/admin/api/retry`, {
      method: 'POST',
      headers: { authorization: auth, 'content-type': 'application/x-www-form-urlencoded' },
      body: 'crm=hubspot&tenant=1&accountId=1',
    });
    expect(form.status).toBe(415);
  });
});
