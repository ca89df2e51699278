// Issue #15, end to end on the HubSpot and Salesforce emulators: accounts enriched at once read the CRM
// in shared batch calls, not one call each; an account whose notes our records hold in full asks the
// CRM nothing about notes; a crash between creating a note and recording it, or Redis losing the
// record, sends the job to the CRM and makes no duplicate; a deleted account still fails for good.
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningBuyerIntelSandbox } from '../../emulators/buyer-intel/server.ts';
import { type RunningHubSpotSandbox, startHubSpotSandbox } from '../../emulators/hubspot/server.ts';
import { type RunningSalesforceSandbox, startSalesforceSandbox } from '../../emulators/salesforce/server.ts';
import { sandboxSettings } from '../../emulators/settings.ts';
import { enrichJobOptions } from '../../queues/enrich-queue.ts';
import type { EnrichResult } from '../../src/enrich/types.ts';
import { DEFAULT_MAPPING } from '../../src/map/default-mapping.ts';
import { fieldDefinitions } from '../../src/map/field-definitions.ts';
import type { Service } from '../../src/service/runtime.ts';
import { startSandbox } from '../helpers/buyer-intel-sandbox.ts';
import { eventually } from '../helpers/poll.ts';
import { closeService, createTestService } from '../helpers/service.ts';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const prefix = `test-reads-${randomUUID().slice(0, 8)}`;
/** More than one HubSpot batch (100), less than one Salesforce batch (200). */
const N = 110;

let bi: RunningBuyerIntelSandbox;
let hs: RunningHubSpotSandbox;
let sf: RunningSalesforceSandbox;
let service: Service;
let redis: Redis;

beforeAll(async () => {
  bi = await startSandbox();
  hs = await startHubSpotSandbox({});
  sf = await startSalesforceSandbox({});
  service = await createTestService(
    sandboxSettings(
      { buyerIntel: bi, hubspot: hs, salesforce: sf },
      { redisUrl: REDIS_URL, prefix },
      {
        buyerIntel: {
          timeoutMs: 10_000,
          maxAttempts: 3,
          ratePerSecond: 1000,
          burst: 1000,
          maxRetryAfterMs: 100,
        },
        signals: { period: 'LastTwoYears', maxNotesPerRun: 50 },
        worker: { concurrency: 8, writeBatchWaitMs: 50 },
      },
    ),
  );
  await service.connector('hubspot', String(hs.portalId)).ensureFields(fieldDefinitions(DEFAULT_MAPPING));
  await service.connector('salesforce', sf.orgId).ensureFields(fieldDefinitions(DEFAULT_MAPPING));
  redis = new Redis(REDIS_URL);
}, 120_000);

afterAll(async () => {
  redis?.disconnect();
  await closeService(service, REDIS_URL, prefix);
  await Promise.all([bi?.close(), hs?.close(), sf?.close()]);
});

/** Distinct buyers with a state, as a person would name their accounts. */
function buyerNames(count: number, skip = 0): { name: string; state: string }[] {
  const seen = new Set<string>();
  const out: { name: string; state: string }[] = [];
  for (const b of bi.dataset.buyers) {
    if (!b.stateCode || seen.has(b.name)) continue;
    seen.add(b.name);
    out.push({ name: b.name, state: b.stateCode });
  }
  return out.slice(skip, skip + count);
}

const enrichAll = (crm: string, tenant: string, ids: string[]) =>
  Promise.all(ids.map((accountId) => service.enrich({ crm, tenant, accountId })));

const hubspotNotes = (ids: string[]) => ids.reduce((n, id) => n + hs.store.notesOf(id).length, 0);

describe('HubSpot: concurrent enrichments share their reads', () => {
  const tenant = () => String(hs.portalId);
  let ids: string[];
  let first: EnrichResult[];

  it(`${N} accounts enriched at once read the CRM in ceil(N/100) calls and list no account's notes alone`, async () => {
    ids = buyerNames(N).map((b) => hs.store.createCompany({ name: b.name, state: b.state }).id);
    hs.stats.reset();
    first = await enrichAll('hubspot', tenant(), ids);
    expect(first.filter((r) => r.status === 'enriched').length).toBeGreaterThan(N / 2);
    expect(hs.stats.count('crm.companies.batchApi.read')).toBe(Math.ceil(N / 100));
    expect(hs.stats.count('crm.companies.basicApi.getById')).toBe(0);
    expect(hs.stats.count('crm.associations.v4.basicApi.getPage')).toBe(0);
    const noteKeyCalls = hs.stats.count('crm.associations.v4.batchApi.getPage');
    // Shared when jobs ask within one batch window: never more than one call per enriched account.
    expect(noteKeyCalls).toBeGreaterThan(0);
    expect(noteKeyCalls).toBeLessThanOrEqual(first.filter((r) => r.status === 'enriched').length);
    console.info(
      `HubSpot, ${N} accounts at once: ${hs.stats.count('crm.companies.batchApi.read')} account reads, ${noteKeyCalls} note-association reads, ${hs.stats.count('crm.objects.notes.batchApi.read')} note-body reads`,
    );
    expect(hubspotNotes(ids)).toBe(first.reduce((n, r) => n + r.notes.created.length, 0));
  }, 180_000);

  it('a re-run asks the CRM nothing about notes: our records hold every account’s keys in full', async () => {
    const before = hubspotNotes(ids);
    hs.stats.reset();
    const again = await enrichAll('hubspot', tenant(), ids);
    expect(again.every((r) => r.notes.created.length === 0)).toBe(true);
    expect(hubspotNotes(ids)).toBe(before);
    expect(hs.stats.count('crm.companies.batchApi.read')).toBe(Math.ceil(N / 100));
    expect(hs.stats.count('crm.associations.v4.batchApi.getPage')).toBe(0);
    expect(hs.stats.count('crm.associations.v4.basicApi.getPage')).toBe(0);
    expect(hs.stats.count('crm.objects.notes.batchApi.read')).toBe(0);
  }, 180_000);

  it('a note created but not recorded before a crash (its pending marker left) is found on the CRM, not made twice', async () => {
    const i = first.findIndex((r) => r.notes.created.length > 0);
    const accountId = ids[i] ?? '';
    const key = first[i]?.notes.created[0]?.key ?? '';
    const ref = { crm: 'hubspot', tenant: tenant(), accountId };
    // The state a crash leaves: the marker written ahead, the CRM holding the note, our record not.
    await service.deps.ledgers.forgetNotes(ref, [key]);
    await service.deps.ledgers.notesPending(ref, [key]);
    const before = hs.store.notesOf(accountId).length;
    hs.stats.reset();
    const result = await service.enrich(ref);
    expect(result.notes.created).toEqual([]);
    expect(hs.store.notesOf(accountId).length).toBe(before);
    // One association read per engagement type our keys live on: notes, and follow-up tasks.
    expect(hs.stats.count('crm.associations.v4.batchApi.getPage')).toBe(2);
    // Settled: the next run trusts the record again.
    expect(await service.deps.ledgers.noteKnowledge(ref, [key, 'bi-none'])).toEqual({
      known: new Set([key]),
      complete: true,
    });
  });

  it('Redis losing an account’s notes record sends the job to the CRM: nothing duplicated', async () => {
    const accountId = ids.find((id) => hs.store.notesOf(id).length > 0) ?? '';
    const before = hs.store.notesOf(accountId).length;
    await redis.del(`${prefix}:ledger:notes:hubspot:${tenant()}:${accountId}`);
    hs.stats.reset();
    const result = await service.enrich({ crm: 'hubspot', tenant: tenant(), accountId });
    expect(result.notes.created).toEqual([]);
    expect(result.notes.alreadyPresent).toBeGreaterThanOrEqual(before);
    expect(hs.store.notesOf(accountId).length).toBe(before);
    // One association read per engagement type our keys live on: notes, and follow-up tasks.
    expect(hs.stats.count('crm.associations.v4.batchApi.getPage')).toBe(2);
  });

  it('an account deleted in the CRM fails its job for good, saying so', async () => {
    const id = hs.store.createCompany({ name: 'City of Austin', state: 'TX' }).id;
    hs.store.archive('companies', id);
    const err = await service.enrich({ crm: 'hubspot', tenant: tenant(), accountId: id }).catch((e) => e);
    expect(err).toMatchObject({ permanent: true });
    expect(String(err.message)).toMatch(new RegExp(`hubspot account ${id} not found`));

    service.startWorker();
    const jobId = `reads-gone-${id}`;
    await service.queue.add(
      'enrich',
      { crm: 'hubspot', tenant: tenant(), accountId: id, trigger: 'cli' },
      enrichJobOptions('cli', 3, jobId),
    );
    await eventually(async () => (await service.queue.getJobState(jobId)) === 'failed', 'the job failing', {
      timeoutMs: 20_000,
      intervalMs: 50,
    });
    const job = await service.queue.getJob(jobId);
    // Permanent: one attempt, not three.
    expect(job?.attemptsStarted).toBe(1);
    expect(job?.failedReason).toMatch(/not found/);
  });
});

describe('Salesforce: concurrent enrichments share their reads', () => {
  let ids: string[];

  it(`${N} Accounts enriched at once read them in one query, and a re-run queries nothing about notes`, async () => {
    ids = buyerNames(N, N).map((b) => sf.store.create('Account', { Name: b.name, BillingState: b.state }).id);
    sf.stats.reset();
    const first = await enrichAll('salesforce', sf.orgId, ids);
    expect(first.filter((r) => r.status === 'enriched').length).toBeGreaterThan(N / 2);
    expect(sf.stats.count('sobjects.retrieve')).toBe(0);
    const queries = sf.stats.count('query');
    // One Account query; the Task queries of the note keys are shared within a batch window.
    expect(queries).toBeLessThanOrEqual(1 + first.filter((r) => r.status === 'enriched').length);
    console.info(`Salesforce, ${N} Accounts at once: ${queries} queries (Accounts and Task keys)`);
    const tasks = () => sf.store.list('Task').filter((t) => ids.includes(String(t.values.get('WhatId'))));
    const created = tasks().length;
    expect(created).toBe(first.reduce((n, r) => n + r.notes.created.length, 0));

    sf.stats.reset();
    const again = await enrichAll('salesforce', sf.orgId, ids);
    expect(again.every((r) => r.notes.created.length === 0)).toBe(true);
    expect(tasks().length).toBe(created);
    // The Accounts, in one query of up to 200: the notes' keys are known in full.
    expect(sf.stats.count('query')).toBe(Math.ceil(N / 200));
    expect(sf.stats.count('sobjects.retrieve')).toBe(0);
  }, 180_000);
});
