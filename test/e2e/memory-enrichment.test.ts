// The seam, end to end: a third CRM that exists only as connectors/memory/ and one registration runs
// the whole flow — an "account created" event → the enrich queue (real BullMQ on real Redis) → resolve
// and fetch against the Buyer Intelligence emulator → map → fields and notes written in that CRM.
import '../helpers/memory-crm.ts'; // first: registers the test double before the registry is read
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { memoryCrm } from '../../connectors/memory/store.ts';
import { crmOf } from '../../connectors/registry.ts';
import type { RunningBuyerIntelSandbox } from '../../emulators/buyer-intel/server.ts';
import { sandboxSettings } from '../../emulators/settings.ts';
import { loadEnv } from '../../src/config/env.ts';
import { DEFAULT_MAPPING } from '../../src/map/default-mapping.ts';
import { fieldDefinitions, PROVENANCE_FIELDS as P } from '../../src/map/field-definitions.ts';
import type { Service } from '../../src/service/runtime.ts';
import { startSandbox } from '../helpers/buyer-intel-sandbox.ts';
import { eventually } from '../helpers/poll.ts';
import { REDIS_URL, testPrefix } from '../helpers/redis.ts';
import { closeService, createTestService, finishedJob } from '../helpers/service.ts';

const prefix = testPrefix('test-memory');
const workspace = `e2e-${randomUUID().slice(0, 8)}`;
const store = memoryCrm(workspace);
const POPULATION = DEFAULT_MAPPING.fields.find((f) => f.attribute === 'Population')?.property ?? '';

let bi: RunningBuyerIntelSandbox;
let service: Service;

beforeAll(async () => {
  bi = await startSandbox();
  const settings = sandboxSettings(
    { buyerIntel: bi },
    { redisUrl: REDIS_URL, prefix },
    { signals: { period: 'LastTwoYears', maxNotesPerRun: 50 }, worker: { writeBatchWaitMs: 20 } },
  );
  service = await createTestService({ ...settings, crms: { 'memory-crm': { workspace } } });
  await service.connector('memory-crm', workspace).ensureFields(fieldDefinitions(DEFAULT_MAPPING));
  service.startWorker();
  await service.startChangeEvents();
});

afterAll(async () => {
  await closeService(service, REDIS_URL, prefix);
  await bi?.close();
});

describe('a third CRM through the registry alone', () => {
  it('is configured from its own variable, like any CRM', () => {
    const env = loadEnv({
      BUYER_INTEL_BASE_URL: 'https://bi.example.com',
      BUYER_INTEL_TOKEN: 'token',
      MEMORY_CRM_WORKSPACE: workspace,
    });
    expect(env.crms).toEqual({ 'memory-crm': { workspace } });
    expect(crmOf('memory-crm').configuredTenants(env.crms['memory-crm'])).toEqual([workspace]);
  });

  it('a created account ends up with the buyer’s fields and signal notes', async () => {
    const id = store.createAccount({
      name: 'City of Austin',
      state: 'TX',
      website: 'https://austintexas.gov',
    });
    const result = await finishedJob(service, id);
    expect(result.status).toBe('enriched');
    const fields = store.accounts.get(id)?.fields;
    expect(fields?.get(P.status)).toBe('enriched');
    expect(fields?.get(P.buyerName)).toBe('City of Austin');
    expect(Number(fields?.get(POPULATION))).toBeGreaterThan(100_000);
    const notes = store.notesOf(id);
    expect(notes.length).toBe(result.notes.created.length);
    expect(notes.length).toBeGreaterThan(0);
    expect(new Set(notes.map((n) => n.key)).size).toBe(notes.length);
  });

  it('an account that names no public buyer is marked, not matched', async () => {
    const id = store.createAccount({ name: 'Zenith Quantum Holdings LLC', state: 'DE' });
    const result = await finishedJob(service, id);
    expect(result.status).toBe('no_match');
    expect(store.accounts.get(id)?.fields.get(P.status)).toBe('no_match');
    expect(store.notesOf(id)).toEqual([]);
  });

  it('enriching the same account again adds no duplicate note', async () => {
    const id = store.createAccount({ name: 'Travis County', state: 'TX' });
    const first = await finishedJob(service, id);
    expect(first.status).toBe('enriched');
    const again = await service.enrich({ crm: 'memory-crm', tenant: workspace, accountId: id });
    expect(again.notes.created).toEqual([]);
    expect(store.notesOf(id).length).toBe(first.notes.created.length);
  });

  it('an account a person renamed and unpinned is matched again from its name as it is now', async () => {
    const id = store.createAccount({ name: 'City of Austin', state: 'TX' });
    expect(await finishedJob(service, id)).toMatchObject({ status: 'enriched' });
    const account = store.accounts.get(id);
    if (!account) throw new Error('the account is gone');
    // The account was another organisation: a person corrects its name and clears our buyer id.
    account.name = 'Travis County';
    account.fields.delete(P.buyerId);
    const again = await service.enrich({ crm: 'memory-crm', tenant: workspace, accountId: id });
    expect(again).toMatchObject({ status: 'enriched', match: { source: 'search' } });
    expect(account.fields.get(P.buyerName)).toBe('Travis County');
  });

  it('a write the CRM refuses for good is on the record with its error, then the failure mark', async () => {
    // A mapped field missing from the CRM (setup not run since the mapping grew): every write of it fails.
    const definition = store.fields.get(POPULATION);
    store.fields.delete(POPULATION);
    try {
      const id = store.createAccount({ name: 'City of Austin', state: 'TX' });
      const failed = await eventually(
        async () =>
          (await service.queue.getJobs(['failed'])).find((j) => j.data.accountId === id)?.failedReason,
        'the job failing',
        { timeoutMs: 10_000 },
      );
      expect(failed).toMatch(/not a field of this CRM/);
      const { writes } = await service.store.open();
      const events = async () =>
        (await writes.forAccount({ crm: 'memory-crm', tenant: workspace, accountId: id })).events;
      // The failure mark is written after the job failed, recorded as pending before its CRM call and
      // settled with the CRM's answer after: wait for both of its fields to be settled.
      await eventually(
        async () =>
          (await events()).filter(
            (e) => e.type === 'field' && e.decision === 'failure-mark' && e.result !== 'pending',
          ).length === 2,
        'the failure mark settled on the record',
      );
      const fields = (await events()).flatMap((e) => (e.type === 'field' ? [e] : []));
      const marks = fields.filter((f) => f.decision === 'failure-mark');
      expect(marks.map((f) => [f.field, f.result]).sort()).toEqual([
        [P.matchReason, 'ok'],
        [P.status, 'ok'],
      ]);
      expect(marks.find((f) => f.field === P.status)?.new).toBe('error');
      const refused = fields.filter((f) => f.result === 'error');
      expect(refused.map((f) => f.field)).toContain(POPULATION);
      expect(new Set(refused.map((f) => f.error))).toEqual(
        new Set([`400: ${POPULATION} is not a field of this CRM (run setup)`]),
      );
      expect(store.accounts.get(id)?.fields.get(P.status)).toBe('error');
    } finally {
      if (definition) store.fields.set(POPULATION, definition);
    }
  });
});
