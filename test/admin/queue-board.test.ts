// The queue board (/admin/queues, Bull Board) in a real headless Chromium under our CSP: its page
// loads its own scripts and styles (every request to our origin answers < 400) and lists our queues,
// and a pause from the page goes through. From outside the page, its state-changing routes are
// refused without a browser's origin headers, from another site, or with a body that is not JSON.
import { randomBytes } from 'node:crypto';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Service } from '../../src/service/runtime.ts';
import { launchChromium } from '../helpers/browser.ts';
import { startTestService, type TestService } from '../helpers/start-service.ts';

const ADMIN = { username: 'ops', password: randomBytes(12).toString('hex') };
const basic = `Basic ${Buffer.from(`${ADMIN.username}:${ADMIN.password}`).toString('base64')}`;

let running: TestService;
let service: Service;
let base: string;
let browser: Browser;

beforeAll(async () => {
  running = await startTestService({
    name: 'board',
    without: ['salesforce'],
    settings: (s) => ({ ...s, admin: ADMIN }),
  });
  ({ service, base } = running);
  browser = await launchChromium();
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await running?.close();
});

describe('/admin/queues in a browser', () => {
  it('renders under our CSP: its assets load, our queues are listed, and a pause from the page works', async () => {
    const context = await browser.newContext({ httpCredentials: ADMIN });
    const page = await context.newPage();
    const failed: string[] = [];
    page.on('response', (res) => {
      if (res.url().startsWith(base) && res.status() >= 400) failed.push(`${res.status()} ${res.url()}`);
    });
    const blocked: string[] = [];
    page.on('console', (msg) => {
      // Google Fonts (another origin) is refused by design; nothing of ours may be.
      if (/Content Security Policy/.test(msg.text()) && !/fonts\.googleapis/.test(msg.text()))
        blocked.push(msg.text());
    });
    const response = await page.goto(`${base}/admin/queues`);
    expect(response?.status()).toBe(200);
    expect(response?.headers()['content-security-policy']).toContain("frame-ancestors 'none'");
    await page.getByText('enrich', { exact: false }).first().waitFor({ timeout: 20_000 });
    expect(await page.locator('body').innerText()).toContain('maintenance');
    expect(failed).toEqual([]);
    expect(blocked).toEqual([]);

    // The board's own call (fetch from its page: Sec-Fetch-Site same-origin) is taken.
    const status = await page.evaluate(
      async () => (await fetch('api/queues/enrich/pause', { method: 'PUT' })).status,
    );
    expect(status).toBe(200);
    expect(await service.queue.isPaused()).toBe(true);
    await service.queue.resume();
    await context.close();
  }, 60_000);
});

describe('/admin/queues state-changing routes from outside its page', () => {
  const send = (method: string, path: string, headers: Record<string, string>, body?: string) =>
    fetch(`${base}/admin/queues/api/queues${path}`, {
      method,
      headers: { authorization: basic, ...headers },
      ...(body === undefined ? {} : { body }),
    });

  it('refuses add, pause and empty with no Origin or Sec-Fetch-Site, even with the credentials', async () => {
    const add = await send('POST', '/enrich/add', { 'content-type': 'text/plain' }, '{"name":"x","data":{}}');
    expect(add.status).toBe(403);
    expect((await send('PUT', '/enrich/pause', {})).status).toBe(403);
    expect((await send('PUT', '/enrich/empty', {})).status).toBe(403);
    expect(await service.queue.isPaused()).toBe(false);
    expect(await service.queue.count()).toBe(0);
    // Reading stays open to the credentials (a script may watch the queues).
    expect((await send('GET', '', {})).status).toBe(200);
  });

  it('refuses another site, and a same-origin body that is not JSON', async () => {
    const crossSite = await send('PUT', '/enrich/pause', { 'sec-fetch-site': 'cross-site' });
    expect(crossSite.status).toBe(403);
    const foreign = await send('PUT', '/enrich/pause', { origin: 'https://evil.example' });
    expect(foreign.status).toBe(403);
    const text = await send(
      'POST',
      '/enrich/add',
      { 'sec-fetch-site': 'same-origin', 'content-type': 'text/plain' },
      '{"name":"x","data":{}}',
    );
    expect(text.status).toBe(415);
    expect(await service.queue.isPaused()).toBe(false);
    expect(await service.queue.count()).toBe(0);
  });
});
