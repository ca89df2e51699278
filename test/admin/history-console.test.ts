// The history pages in a real Chromium, as a sales-ops lead reads them: an account's history with long
// values and a buyer's UUID fits 1440 px with its Decision column in view, a person's kept edit reads
// "kept the person's 1,400,000; ours (1,250,000) not written", an undo run's page says its counts in
// words (no `gone 0, ours 0, notesGone 0`), and both pages pass the console checks at both widths.
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import express from 'express';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addAdminExportRoutes } from '../../src/admin/export-routes.ts';
import { addAdminHistoryRoutes } from '../../src/admin/history-routes.ts';
import { Store } from '../../src/store/store.ts';
import type { FieldWriteEntry } from '../../src/write/journal.ts';
import { launchChromium } from '../helpers/browser.ts';
import { checkConsolePage } from '../helpers/console-check.ts';
import { releaseTestFile } from '../helpers/release.ts';
import { serviceDatabase } from '../helpers/test-database.ts';

const tenant = `hist-${Math.random().toString(36).slice(2, 8)}`;
const buyerId = randomUUID();
let store: Store;
let base: string;
let server: import('node:http').Server;
let browser: Browser;
let undoRunId: string;

beforeAll(async () => {
  store = new Store(await serviceDatabase());
  const { outcomes, runs, writes } = await store.open();
  await outcomes.record({
    crm: 'hubspot',
    tenant,
    accountId: '9001',
    accountName: 'City of Austin',
    state: 'TX',
    status: 'enriched',
    matchedBy: 'name',
    buyerId,
    buyerName: 'City of Austin',
    buyerType: 'city',
    confidence: 0.93,
    reason: 'Matched',
    candidates: [],
    detail: { source: null, fields: [], written: {}, notes: { created: [], alreadyPresent: 0, overCap: 0 } },
  });
  const backfill = await runs.create({ kind: 'backfill', label: 'backfill of 1 hubspot account' });
  const entry = (over: Partial<FieldWriteEntry>): FieldWriteEntry => ({
    crm: 'hubspot',
    tenant,
    accountId: '9001',
    runId: backfill.id,
    jobId: `hubspot.${tenant}.9001.backfill.${backfill.id}`,
    trigger: 'backfill',
    buyerId,
    field: 'buyer_intel_population',
    attribute: 'Population',
    kind: 'mapped',
    policy: 'ours',
    old: null,
    new: null,
    decision: 'write',
    result: 'ok',
    error: null,
    at: new Date('2026-03-01T12:00:00Z'),
    ...over,
  });
  await writes.recordFieldWrites([
    entry({ old: '1400000', new: '1250000', decision: 'blocked-edited-by-person', result: 'not_sent' }),
    entry({
      field: 'buyer_intel_description',
      attribute: 'Description',
      // A long unbroken value (a URL list, a token) must wrap inside its cell.
      new: `https://www.austintexas.gov/department/purchasing/${'x'.repeat(110)}`,
    }),
    entry({
      field: 'buyer_intel_website',
      attribute: 'Url',
      old: 'austin.gov',
      new: 'https://www.austintexas.gov',
    }),
  ]);
  const undo = await runs.create({ kind: 'undo', label: `undo of run ${backfill.id}` });
  undoRunId = undo.id;
  await writes.recordFieldWrites([
    entry({
      runId: undo.id,
      jobId: null,
      trigger: 'undo',
      field: 'buyer_intel_website',
      attribute: 'Url',
      old: 'https://www.austintexas.gov',
      new: 'austin.gov',
      decision: 'undo',
      at: new Date('2026-03-02T09:30:00Z'),
    }),
    entry({
      runId: undo.id,
      jobId: null,
      trigger: 'undo',
      old: '1400000',
      new: null,
      decision: 'undo-kept-edit',
      result: 'not_sent',
      at: new Date('2026-03-02T09:30:00Z'),
    }),
  ]);
  await runs.finish(undo.id, {
    accounts: 1,
    restored: 1,
    unchanged: 0,
    skipped: 1,
    ours: 0,
    notesRemoved: 2,
    notesGone: 0,
    failed: 0,
    gone: 0,
  });
  const router = express.Router();
  addAdminHistoryRoutes(router, { store });
  addAdminExportRoutes(router, { store });
  const app = express().use('/admin', router);
  server = app.listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  browser = await launchChromium();
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}, 60_000);

afterAll(async () => {
  await browser?.close();
  server?.close();
  await store?.close();
  await releaseTestFile();
});

/** The table inside the window: its right edge, and whether its box scrolls sideways. */
const fits = (page: Page) =>
  page.evaluate(() => {
    const table = document.querySelector('table.history') as HTMLElement;
    const decision = document.querySelector('th.decision') as HTMLElement;
    const box = table.parentElement as HTMLElement;
    return {
      decisionRight: decision.getBoundingClientRect().right,
      width: window.innerWidth,
      scrolls: box.scrollWidth > box.clientWidth + 1,
    };
  });

describe('history console', () => {
  it("fits 1440 px, says a person's kept edit in words, and an undo's counts in sentences", async () => {
    const page = await browser.newPage({ viewport: { width: 1440, height: 900 }, acceptDownloads: true });
    await page.goto(`${base}/admin/history/hubspot/9001?tenant=${tenant}`);
    expect(await page.locator('h1').textContent()).toBe('History of City of Austin');
    for (const width of [1440, 1024]) {
      await page.setViewportSize({ width, height: 900 });
      const f = await fits(page);
      expect(f.scrolls, `the table scrolls sideways at ${width} px`).toBe(false);
      expect(f.decisionRight).toBeLessThanOrEqual(f.width);
    }
    await page.setViewportSize({ width: 1440, height: 900 });
    const kept = page.locator('tr.field.kept[data-field="buyer_intel_population"]').last();
    expect(await kept.locator('td.change').textContent()).toBe(
      'kept the person’s 1,400,000; ours (1,250,000) not written',
    );
    expect(await kept.locator('td').last().textContent()).toBe('kept (a person’s edit)');
    const undoKept = page.locator('tr.field.kept[data-field="buyer_intel_population"]').first();
    expect(await undoKept.locator('td.change').textContent()).toBe(
      'kept the person’s 1,400,000; the value before (empty) not put back',
    );
    expect(await page.locator('body').textContent()).not.toContain('∅');
    expect(await page.getByText('1 Mar 2026, 12:00 UTC').count()).toBeGreaterThan(0);
    expect(await checkConsolePage(page, 'history-account')).toEqual([]);
    // The same history as a file, one click away.
    const [download] = await Promise.all([page.waitForEvent('download'), page.click('#export-history')]);
    expect(download.suggestedFilename()).toBe('history-9001.csv');
    const file = readFileSync((await download.path()) ?? '', 'utf8');
    expect(file.trim().split('\r\n')).toHaveLength(1 + 5);
    expect(file).toContain('"kept the person’s 1,400,000; ours (1,250,000) not written"');

    await page.goto(`${base}/admin/runs/${undoRunId}`);
    expect(await page.locator('#undo-counts li').allTextContents()).toEqual([
      '1 account done',
      '1 field put back to the value before',
      '1 field kept: a person changed it after we wrote it',
      '2 notes removed',
    ]);
    expect(await page.locator('main').textContent()).not.toMatch(/notesGone|gone 0|ours 0/);
    const f = await fits(page);
    expect(f.scrolls).toBe(false);
    expect(await checkConsolePage(page, 'history-undo-run')).toEqual([]);
    await page.close();
  }, 60_000);
});
