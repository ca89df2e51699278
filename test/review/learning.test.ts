// The review queue learns from a person's decisions (issue 46, item 7), through the real review API,
// worker, resolver and emulators: a confirm matches the next account typed the same way in the same
// tenant, with the reason; another tenant and another state learn nothing; a reject holds.
import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningBuyerIntelSandbox } from '../../emulators/buyer-intel/server.ts';
import { type RunningHubSpotSandbox, startHubSpotSandbox } from '../../emulators/hubspot/server.ts';
import { type RunningSalesforceSandbox, startSalesforceSandbox } from '../../emulators/salesforce/server.ts';
import { sandboxSettings } from '../../emulators/settings.ts';
import { DEFAULT_MAPPING } from '../../src/map/default-mapping.ts';
import { fieldDefinitions, PROVENANCE_FIELDS as P } from '../../src/map/field-definitions.ts';
import type { Service } from '../../src/service/runtime.ts';
import { launchChromium } from '../helpers/browser.ts';
import { startSandbox } from '../helpers/buyer-intel-sandbox.ts';
import { accessibilityProblems } from '../helpers/console-check.ts';
import { closeService, completedJob, createTestService } from '../helpers/service.ts';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const prefix = `test-learn-${randomUUID().slice(0, 8)}`;
const API_KEY = `key-${randomBytes(16).toString('hex')}`;
const ADMIN = { username: 'ops', password: randomBytes(12).toString('hex') };

let bi: RunningBuyerIntelSandbox;
let hs: RunningHubSpotSandbox;
let sf: RunningSalesforceSandbox;
let service: Service;
let base: string;

beforeAll(async () => {
  [bi, hs, sf] = await Promise.all([startSandbox(), startHubSpotSandbox(), startSalesforceSandbox({})]);
  const settings = sandboxSettings(
    { buyerIntel: bi, hubspot: hs, salesforce: sf },
    { redisUrl: REDIS_URL, prefix },
    { worker: { concurrency: 4, writeBatchWaitMs: 20 } },
  );
  service = await createTestService({ ...settings, api: { apiKeys: [API_KEY] }, admin: ADMIN });
  await service.connector('hubspot', String(hs.portalId)).ensureFields(fieldDefinitions(DEFAULT_MAPPING));
  await service.connector('salesforce', sf.orgId).ensureFields(fieldDefinitions(DEFAULT_MAPPING));
  base = (await service.startHttp(0, '127.0.0.1')).url;
  service.startWorker();
});

afterAll(async () => {
  await closeService(service, REDIS_URL, prefix);
  await Promise.all([bi?.close(), hs?.close(), sf?.close()]);
});

const call = async (method: string, path: string, body?: unknown) => {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { 'content-type': 'application/json', authorization: `Bearer ${API_KEY}` },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
};

const hsField = (id: string, field: string) => hs.store.getCompany(id)?.values.get(field) ?? null;
const company = (properties: Record<string, string>) =>
  hs.store.createCompany(properties, { source: 'CRM_UI' }).id;

async function refreshed(crm: 'hubspot' | 'salesforce', accountId: string, tenant?: string): Promise<void> {
  const res = await call('POST', '/api/refresh', { crm, accountId, ...(tenant ? { tenant } : {}) });
  expect(res.status).toBe(202);
  // A second refresh of the account within the window is the first one's job: it would prove nothing.
  expect(res.body.deduplicated).toBe(false);
  await completedJob(service, String(res.body.jobId));
}

/** Waits for every job of the queue to be done (an undo is a job of its own). */
async function drained(): Promise<void> {
  await expect
    .poll(
      async () => {
        const c = await service.queue.getJobCounts('waiting', 'prioritized', 'active', 'delayed');
        return Object.values(c).reduce((a, b) => a + b, 0);
      },
      { timeout: 30_000 },
    )
    .toBe(0);
}

const reasonOf = (id: string) => String(hsField(id, P.matchReason) ?? '');

describe('learning from decisions', () => {
  it('a confirm matches the next same-form account of the tenant, with the reason; not another tenant or state', async () => {
    const first = company({ name: 'Springfield' });
    await refreshed('hubspot', first);
    expect(hsField(first, P.status)).toBe('needs_review');
    const card = await call('GET', `/api/accounts/hubspot/${first}`);
    const [pick] = card.body.candidates as { buyerId: string; name: string }[];
    const res = await call('POST', `/api/accounts/hubspot/${first}/confirm`, { buyerId: pick?.buyerId });
    expect(res.status).toBe(202);
    await completedJob(service, String(res.body.jobId));

    const second = company({ name: 'springfield' });
    await refreshed('hubspot', second);
    expect(hsField(second, P.status)).toBe('enriched');
    expect(hsField(second, P.buyerId)).toBe(pick?.buyerId);
    expect(reasonOf(second)).toMatch(
      new RegExp(`^a person matched "Springfield" to ${pick?.name} on \\d{4}-\\d{2}-\\d{2}`),
    );

    // On the record: the confirmed account's history holds the rule it taught, the second's the
    // match the rule carried, with its reason.
    const taught = await call('GET', `/api/accounts/hubspot/${first}/history`);
    expect(taught.status).toBe(200);
    expect(taught.body.learned).toMatchObject([
      {
        verdict: 'confirm',
        buyerId: pick?.buyerId,
        accountName: 'Springfield',
        nameForm: 'springfield',
        undoneAt: null,
      },
    ]);
    expect((taught.body.learned as { rule: string }[])[0]?.rule).toMatch(
      new RegExp(`^a person matched "Springfield" to ${pick?.name} on \\d{4}-\\d{2}-\\d{2}$`),
    );
    const carried = await call('GET', `/api/accounts/hubspot/${second}/history`);
    expect(carried.body.learned).toEqual([]);
    const written = (carried.body.changes as { fields: { field: string; new: string | null }[] }[]).flatMap(
      (c) => c.fields,
    );
    expect(written.find((f) => f.field === P.matchReason)?.new).toMatch(/^a person matched "Springfield"/);

    // The admin page of the confirmed account, in a real Chromium: the rule in words, holding.
    const browser = await launchChromium();
    try {
      const context = await browser.newContext({
        httpCredentials: ADMIN,
        viewport: { width: 1440, height: 900 },
      });
      const page = await context.newPage();
      const url = `${base}/admin/history/hubspot/${first}?tenant=${hs.portalId}`;
      expect((await page.goto(url))?.status()).toBe(200);
      const rule = page.locator('table.learned tr.learned.live[data-verdict="confirm"]');
      expect(await rule.count()).toBe(1);
      expect(await rule.textContent()).toContain(`a person matched "Springfield" to ${pick?.name} on`);
      expect(await rule.textContent()).toContain('holds for the next account typed this way');
      expect(await accessibilityProblems(page)).toEqual([]);
    } finally {
      await browser.close();
    }

    // Another state is another name form.
    const elsewhere = company({ name: 'Springfield', state: 'IL' });
    await refreshed('hubspot', elsewhere);
    expect(reasonOf(elsewhere)).not.toContain('a person matched');

    // Another tenant learns nothing.
    const other = sf.store.create('Account', { Name: 'Springfield' }).id;
    await refreshed('salesforce', other, sf.orgId);
    expect(sf.store.find('Account', other).values.get('BuyerIntel_Status__c')).toBe('needs_review');
  });

  it('after a reject, the next same-form account is not matched automatically to that buyer', async () => {
    const first = company({ name: 'City of Austin', state: 'TX' });
    await refreshed('hubspot', first);
    expect(hsField(first, P.status)).toBe('enriched');
    const buyer = hsField(first, P.buyerId);
    const res = await call('POST', `/api/accounts/hubspot/${first}/reject`, { reason: 'not this city' });
    expect(res.status).toBe(202);
    await completedJob(service, String(res.body.jobId));

    const second = company({ name: 'City of Austin', state: 'TX' });
    await refreshed('hubspot', second);
    expect(hsField(second, P.status)).toBe('needs_review');
    expect(hsField(second, P.buyerId) ?? null).not.toBe(buyer);
  });
});

describe('undo of the confirm', () => {
  it('takes back what it taught: the next same-form account goes to review again', async () => {
    const first = company({ name: 'Springfield', state: 'MO' });
    await refreshed('hubspot', first);
    expect(hsField(first, P.status)).toBe('needs_review');
    const card = await call('GET', `/api/accounts/hubspot/${first}`);
    const [pick] = card.body.candidates as { buyerId: string; name: string }[];
    const res = await call('POST', `/api/accounts/hubspot/${first}/confirm`, { buyerId: pick?.buyerId });
    await completedJob(service, String(res.body.jobId));
    const undo = await call('POST', '/api/undo', { account: { crm: 'hubspot', accountId: first } });
    expect(undo.status, JSON.stringify(undo.body)).toBe(202);
    await drained();
    const history = await call('GET', `/api/accounts/hubspot/${first}/history`);
    expect((history.body.learned as { undoneAt: string | null }[])[0]?.undoneAt).toEqual(expect.any(String));
    const second = company({ name: 'Springfield', state: 'MO' });
    await refreshed('hubspot', second);
    expect(reasonOf(second)).not.toContain('a person matched');
  });
});
