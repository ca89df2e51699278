// The console's Runs list, run page and Dashboard in a real Chromium against a running service on the
// emulators: refreshes make runs, the list shows them, clicking one opens its page with its progress
// read as finished once its account has an outcome, and the dashboard's counts are the store's.
import { describe, expect, it } from 'vitest';
import { PROVENANCE_FIELDS as P } from '../../src/map/field-definitions.ts';
import { checkConsolePage } from '../helpers/console-check.ts';
import { consoleTestService } from '../helpers/console-service.ts';
import { eventually } from '../helpers/poll.ts';
import { refreshAndWait } from '../helpers/service.ts';

const env = consoleTestService('runs-console');
const { ADMIN, API_KEY } = env;

describe('runs console', () => {
  it('lists runs, opens one with its progress, and the dashboard counts what the store holds', async () => {
    const austin = env.hs.store.createCompany(
      { name: 'City of Austin', state: 'TX' },
      { source: 'CRM_UI' },
    ).id;
    await refreshAndWait(env.service, env.base, API_KEY, austin);

    const context = await env.browser.newContext({
      httpCredentials: ADMIN,
      viewport: { width: 1400, height: 900 },
    });
    const page = await context.newPage();
    const response = await page.goto(`${env.base}/admin`);
    expect(page.url()).toMatch(/\/admin\/dashboard$/);
    expect(response?.status()).toBe(200);
    const api = await (await page.request.get(`${env.base}/admin/api/dashboard`)).json();
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

  it('undoes a run from its page after a dialog naming what goes back; the undo run is listed', async () => {
    const boston = env.hs.store.createCompany(
      { name: 'City of Boston', state: 'MA' },
      { source: 'CRM_UI' },
    ).id;
    await refreshAndWait(env.service, env.base, API_KEY, boston);
    expect(env.hs.store.getCompany(boston)?.values.get(P.status)).toBe('enriched');

    const context = await env.browser.newContext({
      httpCredentials: ADMIN,
      viewport: { width: 1440, height: 900 },
    });
    const page = await context.newPage();
    await page.goto(`${env.base}/admin/runs`);
    // The newest run is Boston's refresh.
    await page.locator('tbody tr.run').first().locator('a').first().click();
    await page.waitForURL(/\/admin\/runs\/\d+$/);
    const runId = page.url().split('/').pop() ?? '';

    // A cross-site page holding the credentials cannot start it (same-origin check, as every admin POST).
    const forged = await fetch(`${env.base}/admin/api/runs/${runId}/undo`, {
      method: 'POST',
      headers: {
        authorization: `Basic ${Buffer.from(`${ADMIN.username}:${ADMIN.password}`).toString('base64')}`,
        'content-type': 'application/json',
        'sec-fetch-site': 'cross-site',
      },
      body: '{}',
    });
    expect(forged.status).toBe(403);

    await page.getByRole('button', { name: 'Undo this run…' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.waitFor();
    expect(await dialog.getByRole('heading').textContent()).toMatch(
      new RegExp(`^Undo run ${runId} \\(refresh`),
    );
    const plan = (await dialog.locator('#undo-plan').textContent()) ?? '';
    expect(plan).toContain('1 account it changed');
    expect(plan).toMatch(/[1-9]\d* field values? go back to the value before/);
    expect(plan).toContain('0 kept: somebody changed them since');
    expect(await checkConsolePage(page, 'run-undo-dialog')).toEqual([]);
    // Cancel leaves everything as it was.
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    expect(await dialog.isVisible()).toBe(false);
    expect(env.hs.store.getCompany(boston)?.values.get(P.status)).toBe('enriched');

    await page.getByRole('button', { name: 'Undo this run…' }).click();
    await dialog.getByRole('button', { name: 'Yes, undo' }).click();
    const started = page.locator('#undo-run');
    await started.waitFor();
    const undoRun = (await started.textContent())?.match(/run (\d+)/)?.[1];
    expect(undoRun).toBeDefined();
    await started.click();
    await page.waitForURL(new RegExp(`/admin/runs/${undoRun}$`));
    expect(await page.locator('h1').textContent()).toBe(
      `Run ${undoRun}: undo of run ${runId} (refresh: ${await labelOf(runId)})`,
    );
    // The worker takes the values back in the CRM.
    await eventually(
      () => (env.hs.store.getCompany(boston)?.values.get(P.status) ?? null) === null || undefined,
      'the undo cleared what the refresh wrote',
    );

    await page.getByRole('link', { name: 'Runs', exact: true }).click();
    const listed = page.locator(`tbody tr.run[data-run="${undoRun}"]`);
    expect(await listed.locator('td').nth(1).textContent()).toBe('undo');
    expect(await listed.locator('td').nth(2).textContent()).toBe(ADMIN.username);
    await context.close();
  }, 90_000);
});

async function labelOf(runId: string): Promise<string> {
  const run = await (await env.service.store.open()).runs.get(runId);
  return run?.label ?? '';
}
