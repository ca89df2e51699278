// Every write on the record, end to end on HubSpot and on Salesforce (their emulators, real HTTP, real
// Redis, the worker): a refresh's history shows each field old → new with its run, and the notes with
// the CRM's ids; a person's edit survives a re-enrichment under `ours` and the history says so; and
// with Redis's memory of what we wrote gone, the history still tells our values from the person's — a
// re-pin to another buyer updates ours and keeps theirs. Then the admin pages, in a real Chromium.
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hubspotSignatureV3 } from '../../connectors/hubspot/webhook-signature.ts';
import { defaultFieldName } from '../../connectors/salesforce/fields.ts';
import type { RunningBuyerIntelSandbox } from '../../emulators/buyer-intel/server.ts';
import { type RunningHubSpotSandbox, startHubSpotSandbox } from '../../emulators/hubspot/server.ts';
import { type RunningSalesforceSandbox, startSalesforceSandbox } from '../../emulators/salesforce/server.ts';
import { sandboxSettings } from '../../emulators/settings.ts';
import type { ChangeJson } from '../../src/api/history-routes.ts';
import type { EnrichResult } from '../../src/enrich/types.ts';
import { DEFAULT_MAPPING } from '../../src/map/default-mapping.ts';
import { fieldDefinitions, PROVENANCE_FIELDS as P } from '../../src/map/field-definitions.ts';
import type { Service } from '../../src/service/runtime.ts';
import { launchChromium } from '../helpers/browser.ts';
import { startSandbox } from '../helpers/buyer-intel-sandbox.ts';
import { closeService, completedJob, createTestService } from '../helpers/service.ts';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const prefix = `test-e2e-history-${randomUUID().slice(0, 8)}`;
const API_KEY = `key-${randomBytes(16).toString('hex')}`;
const ADMIN = { username: 'ops', password: randomBytes(12).toString('hex') };
/** The account each CRM's scenario enriched (the admin pages show HubSpot's). */
const enriched: Partial<Record<'hubspot' | 'salesforce', string>> = {};
const POPULATION = DEFAULT_MAPPING.fields.find((f) => f.attribute === 'Population')?.property ?? '';

let bi: RunningBuyerIntelSandbox;
let hs: RunningHubSpotSandbox;
let sf: RunningSalesforceSandbox;
let service: Service;
let base: string;
let redis: Redis;

beforeAll(async () => {
  [bi, hs, sf] = await Promise.all([startSandbox(), startHubSpotSandbox(), startSalesforceSandbox({})]);
  const settings = sandboxSettings(
    { buyerIntel: bi, hubspot: hs, salesforce: sf },
    { redisUrl: REDIS_URL, prefix },
    {
      signals: { period: 'LastTwoYears', maxNotesPerRun: 50 },
      worker: { concurrency: 4, writeBatchWaitMs: 20 },
    },
  );
  service = await createTestService({ ...settings, api: { apiKeys: [API_KEY] }, admin: ADMIN });
  await service.connector('hubspot', String(hs.portalId)).ensureFields(fieldDefinitions(DEFAULT_MAPPING));
  await service.connector('salesforce', sf.orgId).ensureFields(fieldDefinitions(DEFAULT_MAPPING));
  base = (await service.startHttp(0, '127.0.0.1')).url;
  service.startWorker();
  redis = new Redis(REDIS_URL);
}, 60_000);

afterAll(async () => {
  redis?.disconnect();
  await closeService(service, REDIS_URL, prefix);
  await Promise.all([bi?.close(), hs?.close(), sf?.close()]);
});

const withKey = { authorization: `Bearer ${API_KEY}`, 'content-type': 'application/json' };
const get = async (path: string) => {
  const res = await fetch(`${base}${path}`, { headers: withKey });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
};

/** POST /api/refresh, then the job's result once it completed. */
async function refresh(crm: string, accountId: string): Promise<{ jobId: string; result: EnrichResult }> {
  // As if the double-click window (10 s) had passed since the last refresh.
  const windows = await redis.keys(`${prefix}:refresh-window:*`);
  if (windows.length) await redis.del(...windows);
  const res = await fetch(`${base}/api/refresh`, {
    method: 'POST',
    headers: withKey,
    body: JSON.stringify({ crm, accountId }),
  });
  expect(res.status).toBe(202);
  const { jobId } = (await res.json()) as { jobId: string };
  await completedJob(service, jobId);
  const { body } = await get(`/api/jobs/${jobId}`);
  return { jobId, result: body.result as EnrichResult };
}

const historyOf = async (crm: string, id: string) => {
  const { status, body } = await get(`/api/accounts/${crm}/${id}/history?limit=500`);
  expect(status).toBe(200);
  return body.changes as ChangeJson[];
};

interface CrmUnderTest {
  kind: 'hubspot' | 'salesforce';
  create(name: string, state: string): string;
  /** A person's edit of one of our fields (by our name). */
  edit(id: string, field: string, value: string): void;
  read(id: string, field: string): string | null;
  noteIds(id: string): string[];
}

const CRMS: CrmUnderTest[] = [
  {
    kind: 'hubspot',
    create: (name, state) => hs.store.createCompany({ name, state }, { source: 'CRM_UI' }).id,
    edit: (id, field, value) => void hs.store.updateCompany(id, { [field]: value }, { source: 'CRM_UI' }),
    read: (id, field) => hs.store.getCompany(id)?.values.get(field) ?? null,
    noteIds: (id) => hs.store.notesOf(id).map((n) => n.id),
  },
  {
    kind: 'salesforce',
    create: (name, state) => sf.store.create('Account', { Name: name, BillingState: state }).id,
    edit: (id, field, value) => void sf.store.update('Account', id, { [defaultFieldName(field)]: value }),
    read: (id, field) => {
      const v = sf.store.find('Account', id).values.get(defaultFieldName(field));
      // Salesforce keeps a DateTime as …000+0000; the connector reads it back as the ISO …Z we wrote.
      return v === null || v === undefined ? null : String(v).replace(/\.(\d{3})\+0000$/, '.$1Z');
    },
    noteIds: (id) =>
      sf.store
        .list('Task')
        .filter((t) => t.values.get('WhatId') === id)
        .map((t) => t.id),
  },
];

for (const crm of CRMS) {
  describe(`the write history on ${crm.kind}`, () => {
    let id: string;
    let population: string;

    it('a refresh’s history shows each field old → new, the notes with their CRM ids, and the run', async () => {
      id = crm.create('City of Austin', 'TX');
      enriched[crm.kind] = id;
      const { jobId, result } = await refresh(crm.kind, id);
      expect(result.status).toBe('enriched');
      population = result.fields.find((f) => f.property === POPULATION)?.new ?? '';
      expect(population).toMatch(/^\d+$/);

      const [change, ...older] = await historyOf(crm.kind, id);
      expect(older).toEqual([]);
      expect(change).toMatchObject({
        crm: crm.kind,
        accountId: id,
        jobId,
        trigger: 'refresh',
        run: { kind: 'refresh' },
        buyerId: result.match.buyerId,
      });
      const byField = new Map(change?.fields.map((f) => [f.field, f]));
      expect(byField.get(POPULATION)).toMatchObject({
        attribute: 'Population',
        kind: 'mapped',
        policy: 'ours',
        old: null,
        new: population,
        decision: 'write',
        result: 'ok',
      });
      expect(byField.get(P.status)).toMatchObject({
        kind: 'provenance',
        old: null,
        new: 'enriched',
        result: 'ok',
      });
      // Exactly what was sent, each as the CRM now holds it.
      expect([...byField.keys()].sort()).toEqual(Object.keys(result.written).sort());
      for (const [field, f] of byField) expect([field, crm.read(id, field)]).toEqual([field, f.new]);
      const notes = crm.noteIds(id);
      expect(notes.length).toBeGreaterThan(0);
      expect(change?.notes.map((n) => n.noteId).sort()).toEqual([...notes].sort());

      // The run's page counts what it changed.
      const run = await get(`/api/runs/${change?.runId}`);
      expect(run.status).toBe(200);
      expect(run.body).toMatchObject({
        kind: 'refresh',
        writes: {
          accounts: 1,
          fieldsWritten: byField.size,
          fieldsFailed: 0,
          fieldsSkipped: 0,
          notesCreated: notes.length,
        },
      });
      expect((run.body.history as { changes: ChangeJson[] }).changes.map((c) => c.jobId)).toEqual([jobId]);
    });

    it('a person’s edit survives a re-enrichment under `ours`, and the history says so once', async () => {
      crm.edit(id, POPULATION, '1000001');
      const { jobId, result } = await refresh(crm.kind, id);
      expect(result.fields.find((f) => f.property === POPULATION)?.decision).toBe('blocked-edited-by-person');
      expect(crm.read(id, POPULATION)).toBe('1000001');

      const [kept] = await historyOf(crm.kind, id);
      expect(kept).toMatchObject({ jobId, run: { kind: 'refresh' } });
      expect(kept?.fields).toEqual([
        expect.objectContaining({
          field: POPULATION,
          old: '1000001',
          new: population,
          decision: 'blocked-edited-by-person',
          result: 'not_sent',
        }),
      ]);
      const run = await get(`/api/runs/${kept?.runId}`);
      expect(run.body.writes).toMatchObject({ fieldsWritten: 0, fieldsSkipped: 1, accounts: 1 });

      // Kept again, for the same values: nothing new to say.
      await refresh(crm.kind, id);
      expect(await historyOf(crm.kind, id)).toHaveLength(2);
    });

    it('the history alone tells ours from the person’s: Redis keeps no copy of our writes', async () => {
      expect(await redis.keys(`${prefix}:ledger:fields:*`)).toEqual([]);
      // A person pins the account to another buyer: our values give way to its, the person's stays.
      const travis = bi.dataset.buyers.find((b) => b.name === 'Travis County' && b.stateCode === 'TX');
      crm.edit(id, P.buyerId, travis?.id ?? '');
      const { result } = await refresh(crm.kind, id);
      expect(result.match.buyerId).toBe(travis?.id);
      const byField = new Map(result.fields.map((f) => [f.property, f]));
      expect(byField.get(POPULATION)?.decision).toBe('blocked-edited-by-person');
      expect(crm.read(id, POPULATION)).toBe('1000001');
      // Every `ours` field still holding Austin's value (ours) takes Travis County's.
      const replaced = result.fields.filter(
        (f) =>
          f.policy === 'ours' &&
          f.property !== POPULATION &&
          f.old !== null &&
          f.new !== null &&
          f.old !== f.new,
      );
      expect(replaced.length).toBeGreaterThan(0);
      for (const f of replaced) expect([f.property, f.decision]).toEqual([f.property, 'write']);
      expect(crm.read(id, 'buyer_intel_url')).toBe(byField.get('buyer_intel_url')?.new);

      // The move took back Austin's notes as an undo run of its own (no field: Travis County's values
      // and the person's population stand); the job's writes and its kept value are the job's.
      const changes = await historyOf(crm.kind, id);
      const takeBack = changes.find((c) => c.trigger === 'undo');
      expect(takeBack?.notes.length).toBeGreaterThan(0);
      expect(takeBack?.notes.every((n) => n.action === 'removed')).toBe(true);
      expect(takeBack?.fields).toEqual([]);
      const jobs = changes.filter((c) => c.trigger !== 'undo' && c.jobId === changes[0]?.jobId);
      expect(jobs.every((c) => c.buyerId === travis?.id)).toBe(true);
      const change = { fields: jobs.flatMap((c) => c.fields) };
      const url = change?.fields.find((f) => f.field === 'buyer_intel_url');
      expect(url).toMatchObject({
        decision: 'write',
        result: 'ok',
        old: byField.get('buyer_intel_url')?.old,
      });
      expect(change?.fields.find((f) => f.field === POPULATION)).toMatchObject({
        decision: 'blocked-edited-by-person',
        old: '1000001',
        result: 'not_sent',
      });
    });
  });
}

describe('GET /api/accounts/:crm/:id/history', () => {
  it('answers an empty list for an account never written, and refuses bad input naming it', async () => {
    expect((await get('/api/accounts/hubspot/424242/history')).body).toEqual({
      crm: 'hubspot',
      tenant: String(hs.portalId),
      accountId: '424242',
      learned: [],
      changes: [],
      next: null,
    });
    const bad = await get('/api/accounts/hubspot/424242/history?after=x');
    expect(bad).toEqual({
      status: 400,
      body: { error: 'invalid_request', message: 'query after: must be the `next` of a previous page' },
    });
    expect((await get('/api/accounts/hubspot/424242/history?limit=0')).status).toBe(400);
    expect((await get('/api/accounts/hubspot/424242/history?sort=x')).status).toBe(400);
    expect((await get('/api/accounts/nope/424242/history')).status).toBe(400);
    const unauthenticated = await fetch(`${base}/api/accounts/hubspot/424242/history`);
    expect(unauthenticated.status).toBe(401);
  });

  it('is read by the HubSpot card (signed) for its own portal, not for another CRM', async () => {
    const id = CRMS[0]?.create('Austin Community College', 'TX') ?? '';
    await refresh('hubspot', id);
    const signedGet = async (path: string) => {
      const timestamp = String(Date.now());
      const res = await fetch(`${base}${path}`, {
        headers: {
          'x-hubspot-signature-v3': hubspotSignatureV3(
            hs.clientSecret,
            'GET',
            `${base}${path}`,
            '',
            timestamp,
          ),
          'x-hubspot-request-timestamp': timestamp,
        },
      });
      return { status: res.status, body: (await res.json()) as Record<string, unknown> };
    };
    // hubspot.fetch appends the portal and the user to the URL.
    const own = await signedGet(
      `/api/accounts/hubspot/${id}/history?limit=5&portalId=${hs.portalId}&userId=7`,
    );
    expect(own.status).toBe(200);
    expect((own.body.changes as ChangeJson[])[0]?.trigger).toBe('refresh');
    const other = await signedGet(`/api/accounts/salesforce/${id}/history?portalId=${hs.portalId}`);
    expect([other.status, other.body.error]).toEqual([403, 'forbidden']);
  });

  it('pages an account’s history newest first, every event once', async () => {
    const id = CRMS[0]?.create('City of Springfield', 'IL') ?? '';
    await refresh('hubspot', id);
    const all = (await historyOf('hubspot', id)).flatMap((c) => [
      ...c.fields.map((f) => f.field),
      ...c.notes.map((n) => n.noteId),
    ]);
    const seen: string[] = [];
    let after = '';
    for (let pages = 0; pages < 100; pages++) {
      const { body } = await get(
        `/api/accounts/hubspot/${id}/history?limit=3${after ? `&after=${after}` : ''}`,
      );
      for (const c of body.changes as ChangeJson[])
        seen.push(...c.fields.map((f) => f.field), ...c.notes.map((n) => n.noteId));
      if (!body.next) break;
      after = String(body.next);
    }
    // A change cut by a page's edge lists its fields and notes apart: compare the events, not their order.
    expect(seen.sort()).toEqual(all.sort());
    expect(all.length).toBeGreaterThan(3);
  });
});

describe('the admin pages', () => {
  it('show an account’s history and a run’s changes, linked from the recent enrichments', async () => {
    const id = enriched.hubspot ?? '';
    expect(id).not.toBe('');
    const browser = await launchChromium();
    try {
      const context = await browser.newContext({
        httpCredentials: ADMIN,
        viewport: { width: 1400, height: 900 },
      });
      const page = await context.newPage();
      expect((await page.goto(`${base}/admin/recent`))?.status()).toBe(200);
      await Promise.all([
        page.waitForURL(/\/admin\/history\/hubspot\//),
        page.click(`a.history[href*="/hubspot/${id}?"]`),
      ]);
      expect(await page.locator('h1').textContent()).toBe('History of City of Austin');
      // Newest first: the re-pin to Travis County, which kept the person's population.
      const kept = page.locator(`tr.field.kept[data-field="${POPULATION}"]`).first();
      expect(await kept.locator('td.change').textContent()).toMatch(
        /^kept the person’s 1,000,001; ours \([\d,]+\) not written$/,
      );
      expect(await kept.textContent()).toContain('kept (a person’s edit)');
      const first = page.locator(`tr.field.written[data-field="${POPULATION}"]`).last();
      expect(await first.locator('td.change').textContent()).toMatch(/^empty → [\d,]+$/);
      // The notes on the company: those created, less those the move to Travis County took back.
      const notes = async (action: string) => page.locator(`tr.note.${action}`).count();
      expect((await notes('created')) - (await notes('removed'))).toBe(hs.store.notesOf(id).length);
      expect(await notes('removed')).toBeGreaterThan(0);
      const dir = mkdtempSync(join(tmpdir(), 'history-page-'));
      await page.screenshot({ path: join(dir, 'account-history.png'), fullPage: true });

      // The run of the first refresh: its counts, and its one account's change.
      const runLink = page.locator('tbody a[href^="/admin/runs/"]').last();
      await Promise.all([page.waitForURL(/\/admin\/runs\/\d+$/), runLink.click()]);
      expect(await page.locator('h1').textContent()).toMatch(/^Run \d+: refresh hubspot /);
      const count = (name: string) => page.locator(`tr[data-count="${name}"] td`).last().textContent();
      expect(await count('accounts changed')).toBe('1');
      expect(await count('notes created')).toBe(String(await page.locator('tr.note').count()));
      expect(Number(await count('notes created'))).toBeGreaterThan(0);
      expect(Number(await count('fields written'))).toBeGreaterThan(5);
      expect(await page.locator(`tbody a[href^="/admin/history/hubspot/${id}"]`).count()).toBe(1);
      await page.screenshot({ path: join(dir, 'run.png'), fullPage: true });
      console.log(`admin history screenshots: ${dir}`);

      const missing = await page.goto(`${base}/admin/runs/999999999`);
      expect(missing?.status()).toBe(404);
      const bad = await page.goto(`${base}/admin/history/hubspot/${id}?after=x`);
      expect(bad?.status()).toBe(400);
    } finally {
      await browser.close();
    }
  }, 60_000);
});
