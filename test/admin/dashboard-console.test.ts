// The console's Dashboard in a real Chromium against a running service on the emulators: after three
// refreshes (a match, an ambiguous name, a name nobody has) the charts are drawn by chart.js served
// from our own origin under the CSP, each chart's numbers are in the table beside it and in its tooltip
// on hover, and the counts are what the CRM was written: statuses per tenant, the match rate, the
// review backlog and its age, signal notes this week, and the calls the workers made this hour.
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { PROVENANCE_FIELDS as P } from '../../src/map/field-definitions.ts';
import { checkConsolePage } from '../helpers/console-check.ts';
import { consoleTestService } from '../helpers/console-service.ts';
import { eventually } from '../helpers/poll.ts';
import { refreshAndWait } from '../helpers/service.ts';

const env = consoleTestService('dashboard-console');
const { ADMIN, API_KEY } = env;

const cells = (page: Page, table: string, row: string) =>
  page
    .locator(`#${table} tbody tr`, { has: page.locator('th', { hasText: row }) })
    .locator('td')
    .allTextContents();

/** What the chart drawn on `id` shows in its tooltip when the mouse is over its first bar or point. */
async function hoverFirst(page: Page, id: string, dataset = 0): Promise<string[]> {
  const at = await page.evaluate(
    ([canvasId, i]) => {
      // biome-ignore lint/suspicious/noExplicitAny: chart.js's global, loaded by the page
      const chart = (globalThis as any).Chart.getChart(document.getElementById(canvasId as string));
      const el = chart.getDatasetMeta(i).data[0];
      return { x: el.x, y: el.y + (el.height ?? 0) / 2 };
    },
    [id, dataset] as const,
  );
  const box = await page.locator(`#${id}`).boundingBox();
  await page.mouse.move((box?.x ?? 0) + at.x, (box?.y ?? 0) + at.y);
  return page.evaluate((canvasId) => {
    // biome-ignore lint/suspicious/noExplicitAny: chart.js's global
    const tip = (globalThis as any).Chart.getChart(document.getElementById(canvasId)).tooltip;
    return tip.opacity > 0
      ? tip.dataPoints.map(
          (p: { dataset: { label: string }; formattedValue: string }) =>
            `${p.dataset.label}: ${p.formattedValue}`,
        )
      : [];
  }, id);
}

describe('dashboard console', () => {
  it('draws each chart from our origin with its numbers beside it and on hover', async () => {
    const ids = [
      env.hs.store.createCompany({ name: 'City of Austin', state: 'TX' }, { source: 'CRM_UI' }).id,
      env.hs.store.createCompany({ name: 'Springfield' }, { source: 'CRM_UI' }).id,
      env.hs.store.createCompany({ name: 'Qwertyuiop Zxcv Holdings', state: 'NV' }, { source: 'CRM_UI' }).id,
    ];
    for (const id of ids) await refreshAndWait(env.service, env.base, API_KEY, id);
    const statuses = ids.map((id) => env.hs.store.getCompany(id)?.values.get(P.status));
    const count = (s: string) => statuses.filter((x) => x === s).length;
    expect(count('enriched')).toBe(1);
    expect(count('needs_review')).toBe(1);
    const notes = (await (await env.service.store.open()).writes.runChanges('1')).notesCreated;

    const context = await env.browser.newContext({
      httpCredentials: ADMIN,
      viewport: { width: 1440, height: 900 },
    });
    const page = await context.newPage();
    const blocked: string[] = [];
    // A script or style the CSP refused is a console error; a missing asset a 4xx (the browser's own
    // favicon request aside: the console has none).
    page.on('console', (m) => {
      if (m.type() === 'error' && !m.text().startsWith('Failed to load resource')) blocked.push(m.text());
    });
    page.on('response', (r) => {
      if (r.status() >= 400 && !r.url().endsWith('/favicon.ico')) blocked.push(`${r.status()} ${r.url()}`);
    });
    const tenant = `HubSpot ${env.hs.portalId}`;
    // The workers' calls reach the dashboard with their next flush (every 10 s, every process).
    await eventually(
      async () => {
        await page.goto(`${env.base}/admin/dashboard`);
        return (
          Number((await cells(page, 'usage-24h', 'HubSpot'))[0]?.replace(/,/g, '') ?? 0) > 0 || undefined
        );
      },
      'the calls of this hour on the dashboard',
      { timeoutMs: 30_000, intervalMs: 2_000 },
    );

    const response = await page.request.get(`${env.base}/admin/dashboard`);
    expect(response.headers()['content-security-policy']).toMatch(/script-src 'self' 'nonce-/);
    const sources = await page.locator('script[src]').evaluateAll((s) => s.map((e) => e.getAttribute('src')));
    expect(sources).toEqual(['/admin/assets/chart.umd.min.js', '/admin/assets/dashboard.js']);

    // Statuses per tenant: the table and the stacked bars say the same; hover shows each status's count.
    expect(await cells(page, 'by-tenant', tenant)).toEqual([
      '1',
      '1',
      String(count('no_match')),
      String(count('error')),
      `${Math.round((1 / (2 + count('no_match'))) * 1000) / 10}%`,
    ]);
    expect(await page.locator('#match-rate').textContent()).toBe(
      `${Math.round((1 / (2 + count('no_match'))) * 1000) / 10}%`,
    );
    expect(await hoverFirst(page, 'chart-status')).toEqual(
      expect.arrayContaining(['enriched: 1', 'needs review: 1']),
    );

    // The review backlog: one account, waiting since today, its age readable.
    expect(await page.locator('#backlog-waiting').textContent()).toBe('1');
    expect(await cells(page, 'backlog-ages', 'since today')).toEqual(['1']);
    expect(await page.locator('#backlog-median').textContent()).toBe(
      new Date().toLocaleDateString('en-GB', {
        day: 'numeric',
        month: 'short',
        year: 'numeric',
        timeZone: 'UTC',
      }),
    );
    expect(await page.locator('#backlog-oldest').textContent()).toMatch(/UTC \(\d+ min ago\)$/);
    expect(await hoverFirst(page, 'chart-backlog')).toEqual(['accounts waiting: 1']);

    // Signal notes: this week's bar is every note written (the first refresh's).
    expect(notes).toBeGreaterThan(0);
    expect(await page.locator('#signals-total').textContent()).toBe(String(notes));
    const weekly = await page.evaluate(() => {
      // biome-ignore lint/suspicious/noExplicitAny: chart.js's global
      const chart = (globalThis as any).Chart.getChart(document.getElementById('chart-signals'));
      return chart.data.datasets[0].data as number[];
    });
    expect(weekly).toHaveLength(12);
    expect(weekly.at(-1)).toBe(notes);

    // Budgets: the provider's pace, and the calls per API of the last 24 hours.
    expect(await page.locator('#provider-pace').textContent()).toBe(
      '50 of 50 requests/s in use, the full rate',
    );
    expect(Number((await cells(page, 'usage-24h', 'Buyer Intelligence'))[0])).toBeGreaterThan(0);
    expect(await cells(page, 'crm-limits', tenant)).toHaveLength(2);

    expect(blocked).toEqual([]);
    expect(await checkConsolePage(page, 'dashboard')).toEqual([]);
    await context.close();
  }, 120_000);
});
