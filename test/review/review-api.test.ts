// The review queue over real HTTP, real Redis, PGlite and the emulators: a bulk approve does what its
// preview said and leaves clean reasons in the CRM; a confirm leaves no stale reason on either CRM;
// reject pins (no search until cleared, even after its job failed for good); re-search with an edited
// name; duplicates marked in the CRM, and marked again when a person rejects the recommended account.
import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningBuyerIntelSandbox } from '../../emulators/buyer-intel/server.ts';
import { type RunningHubSpotSandbox, startHubSpotSandbox } from '../../emulators/hubspot/server.ts';
import { type RunningSalesforceSandbox, startSalesforceSandbox } from '../../emulators/salesforce/server.ts';
import { sandboxSettings } from '../../emulators/settings.ts';
import { enrichJobOptions, jobIdOf } from '../../queues/enrich-queue.ts';
import { DEFAULT_MAPPING } from '../../src/map/default-mapping.ts';
import { fieldDefinitions, PROVENANCE_FIELDS as P } from '../../src/map/field-definitions.ts';
import type { Service } from '../../src/service/runtime.ts';
import { startSandbox } from '../helpers/buyer-intel-sandbox.ts';
import { closeService, completedJob, createTestService } from '../helpers/service.ts';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const prefix = `test-review-${randomUUID().slice(0, 8)}`;
const API_KEY = `key-${randomBytes(16).toString('hex')}`;

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
  service = await createTestService({ ...settings, api: { apiKeys: [API_KEY] } });
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

/** A HubSpot company's later change: a job of its own, as a webhook event queues it. */
async function changed(accountId: string, properties: Record<string, string>): Promise<void> {
  hs.store.updateCompany(accountId, properties);
  const jobId = jobIdOf('test', 'hubspot', accountId, randomUUID());
  await service.queue.add(
    'enrich',
    { crm: 'hubspot', tenant: String(hs.portalId), accountId, trigger: 'webhook', cause: 'test change' },
    enrichJobOptions('webhook', 1, jobId),
  );
  await completedJob(service, jobId);
}

/** Waits for every job of the queue to be done (bulk actions queue many). */
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

describe('bulk approve', () => {
  const ids: string[] = [];

  it('approves as many accounts as its preview counted and leaves clean reasons in HubSpot', async () => {
    for (let i = 0; i < 4; i++) ids.push(company({ name: 'Springfield' }));
    for (const id of ids) await refreshed('hubspot', id);
    for (const id of ids) expect(hsField(id, P.status)).toBe('needs_review');

    const filter = { crm: 'hubspot', q: 'springfield' };
    const preview = await call('POST', '/api/review/approve', { filter, floor: 0, preview: true });
    expect(preview.status).toBe(200);
    expect(preview.body.count).toBe(4);
    expect(preview.body.sample).toHaveLength(4);
    // A preview changes nothing.
    for (const id of ids) expect(hsField(id, P.status)).toBe('needs_review');

    const done = await call('POST', '/api/review/approve', { filter, floor: 0 });
    expect(done.status).toBe(202);
    expect(done.body.approved).toBe(preview.body.count);
    await drained();
    for (const id of ids) {
      expect(hsField(id, P.status)).toBe('enriched');
      expect(hsField(id, P.matchReason)).toMatch(
        /^Confirmed by key:[0-9a-f]{8}: .+ \(candidate score \d\.\d\d\)$/,
      );
      expect(hsField(id, P.matchConfidence)).toBe('1');
      expect(hsField(id, P.candidates)).toBeNull();
    }
    const listed = await call('GET', '/api/review?crm=hubspot&cohort=needs_review&q=springfield');
    expect(listed.body.rows).toEqual([]);
  });

  it('marks all but the recommended account of the duplicates group, and clears the mark when one moves', async () => {
    const groups = await call('GET', '/api/review/duplicates?crm=hubspot');
    const group = (groups.body.groups as { members: { accountId: string }[]; recommended: string }[]).find(
      (g) => g.members.some((m) => m.accountId === ids[0]),
    );
    expect(group?.members).toHaveLength(4);
    // Same evidence (all confirmed, confidence 1): the older record is recommended.
    expect(group?.recommended).toBe(ids[0]);
    const [keep, ...others] = ids;
    expect(hsField(keep ?? '', P.duplicateOf)).toBeNull();
    for (const id of others) expect(hsField(id, P.duplicateOf)).toBe(keep);

    const moved = others[0] ?? '';
    const res = await call('POST', `/api/accounts/hubspot/${moved}/research`, {
      name: 'Travis County',
      state: 'TX',
    });
    expect(res.status).toBe(202);
    await completedJob(service, String(res.body.jobId));
    await drained();
    expect(hsField(moved, P.buyerName)).toMatch(/Travis/);
    expect(hsField(moved, P.duplicateOf)).toBeNull();
    // A person's edit is used for the search only: the CRM's own name stays.
    expect(hsField(moved, 'name')).toBe('Springfield');
    for (const id of others.slice(1)) expect(hsField(id, P.duplicateOf)).toBe(keep);
  });

  it('rejecting the recommended account makes another one recommended: no member stays a duplicate of it', async () => {
    const [keep, , next, last] = ids;
    const res = await call('POST', `/api/accounts/hubspot/${keep}/reject`, { reason: 'a private company' });
    expect(res.status).toBe(202);
    await completedJob(service, String(res.body.jobId));
    await drained();
    expect(hsField(keep ?? '', P.status)).toBe('no_match');
    expect(hsField(next ?? '', P.duplicateOf)).toBeNull();
    expect(hsField(last ?? '', P.duplicateOf)).toBe(next);
    const groups = await call('GET', '/api/review/duplicates?crm=hubspot');
    const group = (groups.body.groups as { members: { accountId: string }[]; recommended: string }[]).find(
      (g) => g.members.some((m) => m.accountId === next),
    );
    expect(group?.recommended).toBe(next);
    expect(group?.members.map((m) => m.accountId)).toEqual([next, last]);
  });
});

describe('confirm leaves no stale reason or confidence', () => {
  it('on Salesforce', async () => {
    const id = sf.store.create('Account', { Name: 'Springfield' }).id;
    await refreshed('salesforce', id, sf.orgId);
    const field = (name: string) => sf.store.find('Account', id).values.get(name) ?? null;
    expect(field('BuyerIntel_Status__c')).toBe('needs_review');
    expect(String(field('BuyerIntel_MatchReason__c'))).toMatch(/review/i);
    const card = await call('GET', `/api/accounts/salesforce/${id}?tenant=${sf.orgId}`);
    const [pick] = card.body.candidates as { buyerId: string; name: string }[];
    const res = await call('POST', `/api/accounts/salesforce/${id}/confirm`, {
      tenant: sf.orgId,
      buyerId: pick?.buyerId,
    });
    expect(res.status).toBe(202);
    await completedJob(service, String(res.body.jobId));
    expect(field('BuyerIntel_Status__c')).toBe('enriched');
    expect(String(field('BuyerIntel_MatchReason__c'))).toMatch(/^Confirmed by key:[0-9a-f]{8}: /);
    expect(String(field('BuyerIntel_MatchReason__c'))).toContain(pick?.name);
    expect(Number(field('BuyerIntel_MatchConfidence__c'))).toBe(1);
    expect(field('BuyerIntel_Candidates__c')).toBeNull();
  });
});

describe('reject and clear', () => {
  it('pins a rejected account: later jobs do no search and keep it rejected, until a person clears it', async () => {
    const id = company({ name: 'City of Austin', state: 'TX' });
    await refreshed('hubspot', id);
    expect(hsField(id, P.status)).toBe('enriched');

    const res = await call('POST', `/api/accounts/hubspot/${id}/reject`, { reason: 'a private company' });
    expect(res.status).toBe(202);
    await completedJob(service, String(res.body.jobId));
    expect(hsField(id, P.status)).toBe('no_match');
    expect(hsField(id, P.matchReason)).toMatch(/^Rejected by key:[0-9a-f]{8}: a private company$/);
    expect(hsField(id, P.matchConfidence)).toBeNull();
    expect(hsField(id, P.buyerId)).toBeNull();

    const searches = bi.stats.count('searchBuyers');
    await changed(id, { name: 'City of Austin, Texas' });
    expect(bi.stats.count('searchBuyers')).toBe(searches);
    expect(hsField(id, P.status)).toBe('no_match');
    expect(hsField(id, P.matchReason)).toMatch(/^Rejected by/);

    const cleared = await call('POST', `/api/accounts/hubspot/${id}/clear`, {});
    expect(cleared.status).toBe(202);
    expect(cleared.body.wasPinned).toBe(true);
    await completedJob(service, String(cleared.body.jobId));
    // Resolved again, by its name as it is now: the pin no longer holds.
    expect(bi.stats.count('searchBuyers')).toBeGreaterThan(searches);
    expect(hsField(id, P.status)).toBe('enriched');
    expect(hsField(id, P.matchReason)).not.toMatch(/Rejected/);
  });

  it('a reject takes back the rejected buyer’s values and signal notes, keeping a person’s edit, as an undo run', async () => {
    const id = company({ name: 'Austin ISD', state: 'TX' });
    await refreshed('hubspot', id);
    expect(hsField(id, P.status)).toBe('enriched');
    const ours = [...(hs.store.getCompany(id)?.values.entries() ?? [])].filter(
      ([k, v]) => k.startsWith('buyer_intel_') && v !== null && v !== '' && k !== 'buyer_intel_url',
    );
    expect(ours.length).toBeGreaterThan(5);
    expect(hsField(id, 'buyer_intel_type')).not.toBeNull();
    // A person's own value in one of our fields is theirs: kept.
    hs.store.updateCompany(id, { buyer_intel_url: 'https://example.org/ours-not' });

    const res = await call('POST', `/api/accounts/hubspot/${id}/reject`, { reason: 'not this district' });
    await completedJob(service, String(res.body.jobId));
    expect(hsField(id, P.status)).toBe('no_match');
    expect(hsField(id, P.buyerId)).toBeNull();
    expect(hsField(id, 'buyer_intel_type')).toBeNull();
    expect(hsField(id, 'buyer_intel_url')).toBe('https://example.org/ours-not');
    // What the reject's own job writes: its status, reason and time (no buyer's data).
    const own: string[] = [P.status, P.matchReason, P.lastEnrichedAt];
    const left = ours.filter(([k]) => !own.includes(k) && hsField(id, k) !== null);
    expect(left.map(([k]) => [k, hsField(id, k)])).toEqual([]);
    expect(hs.store.notesOf(id)).toHaveLength(0);
    // The take-back is a run of its own on the history (so it can be undone).
    const runs = await call('GET', '/api/runs?kind=undo');
    expect(JSON.stringify(runs.body)).toContain(`account ${id}'s values and notes of ours (rejected)`);
    // The reject taught the tenant never to match this buyer to "Austin ISD" (TX) automatically
    // (test/review/learning.test.ts); clearing it takes that back for the tests after this one.
    const cleared = await call('POST', `/api/accounts/hubspot/${id}/clear`, {});
    await completedJob(service, String(cleared.body.jobId));
  });

  it('a re-enrichment that moves the account to another buyer takes back the old buyer’s notes and values', async () => {
    const id = company({ name: 'Austin ISD', state: 'TX' });
    await refreshed('hubspot', id);
    const first = hsField(id, P.buyerId);
    expect(first).not.toBeNull();
    const oldNotes = hs.store.notesOf(id).length;
    expect(oldNotes).toBeGreaterThan(0);
    // A person puts another buyer's id on the company: its next job moves it there.
    const city = company({ name: 'City of Austin', state: 'TX' });
    await refreshed('hubspot', city);
    const cityBuyer = hsField(city, P.buyerId);
    expect(cityBuyer).not.toBeNull();
    await changed(id, { [P.buyerId]: cityBuyer ?? '' });
    const second = hsField(id, P.buyerId);
    expect(second).not.toBeNull();
    expect(second).not.toBe(first);
    // Only the new buyer's notes are left; no field holds a value of the old buyer's that the new one
    // has no value for (its type is the new buyer's).
    const keys = hs.store.notesOf(id).map((n) => n.values.get('hs_note_body') ?? '');
    expect(keys.filter((b) => b.includes(`bi-${first}-`))).toEqual([]);
    expect(hsField(id, 'buyer_intel_type')).not.toBe('School District');
    const runs = await call('GET', '/api/runs?kind=undo');
    expect(JSON.stringify(runs.body)).toContain(`moved from buyer ${first} to ${second}`);
  });

  it('a rejection holds after its job failed for good: the next job still does no search', async () => {
    const id = company({ name: 'City of Austin', state: 'TX' });
    await refreshed('hubspot', id);
    const res = await call('POST', `/api/accounts/hubspot/${id}/reject`, { reason: 'a private company' });
    await completedJob(service, String(res.body.jobId));
    // What a job failing for good records (see onFinalFailure): the account is `error`, still pinned.
    const { outcomes } = await service.store.open();
    const key = { crm: 'hubspot', tenant: String(hs.portalId), accountId: id };
    await outcomes.recordError(key, 'HubSpot refused the write');
    expect(await outcomes.get(key)).toMatchObject({ status: 'error', pinned: true });

    // The CRM shows the failure, as onFinalFailure writes it.
    hs.store.updateCompany(id, { [P.status]: 'error' });
    const searches = bi.stats.count('searchBuyers');
    await changed(id, { name: 'City of Austin, Texas' });
    expect(bi.stats.count('searchBuyers')).toBe(searches);
    expect(hsField(id, P.status)).toBe('no_match');
    expect(hsField(id, P.matchReason)).toMatch(/^Rejected by key:[0-9a-f]{8}: a private company$/);
    expect(await outcomes.get(key)).toMatchObject({ status: 'no_match', pinned: true });
  });
});

describe('re-search with an edited name', () => {
  it('finds the buyer the CRM name could not', async () => {
    const id = company({ name: 'Qzxv Unknown Place' });
    await refreshed('hubspot', id);
    expect(hsField(id, P.status)).not.toBe('enriched');
    const res = await call('POST', `/api/accounts/hubspot/${id}/research`, {
      name: 'City of Austin',
      state: 'TX',
    });
    expect(res.status).toBe(202);
    await completedJob(service, String(res.body.jobId));
    expect(hsField(id, P.status)).toBe('enriched');
    expect(hsField(id, P.buyerName)).toMatch(/Austin/);
    expect(hsField(id, P.matchReason)).toMatch(/^Re-searched by key:[0-9a-f]{8} as "City of Austin" in TX: /);
    expect(hsField(id, 'name')).toBe('Qzxv Unknown Place');
  });
});

describe('the review API refuses bad input naming the problem', () => {
  it.each([
    ['GET', '/api/review?cohort=maybe', undefined, 'cohort'],
    ['GET', '/api/review?minConfidence=2', undefined, 'minConfidence'],
    ['GET', '/api/review?crm=pipedrive', undefined, 'crm'],
    ['GET', '/api/review?after=not%20a%20cursor', undefined, 'after'],
    ['GET', `/api/review?after=${Buffer.from('[1,"x"]').toString('base64url')}`, undefined, 'after'],
    ['GET', '/api/review?limit=0', undefined, 'limit'],
    ['GET', '/api/review?since=yesterday-ish', undefined, 'since'],
    ['GET', '/api/review/duplicates?after=bm9wZQ', undefined, 'after'],
    ['POST', '/api/review/approve', { filter: {}, floor: 'high' }, 'floor'],
    ['POST', '/api/review/approve', { accounts: [{ crm: 'hubspot', accountId: 'a b' }] }, 'accountId'],
    ['POST', '/api/accounts/hubspot/a%20b/reject', { reason: 'x' }, 'accountId'],
    ['POST', '/api/accounts/hubspot/123/reject', {}, 'reason'],
    ['POST', '/api/accounts/hubspot/123/research', {}, 'name or a state'],
  ])('%s %s', async (method, path, body, named) => {
    const res = await call(method, path, body);
    expect(res.status).toBe(400);
    expect(String(res.body.message)).toContain(named);
  });
});
