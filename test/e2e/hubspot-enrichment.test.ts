// The whole path, through real HTTP, the real @hubspot/api-client and real Redis: a person creates a
// company in the HubSpot emulator → its webhook reaches our receiver → a BullMQ job → the worker
// resolves it against the Buyer Intelligence sandbox → fields and notes visible through HubSpot's API.
// @redis-cluster: also runs on a 3-master Redis Cluster (npm run test:cluster).
import { createHmac } from 'node:crypto';
import { Client } from '@hubspot/api-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningBuyerIntelSandbox } from '../../emulators/buyer-intel/server.ts';
import { type RunningHubSpotSandbox, startHubSpotSandbox } from '../../emulators/hubspot/server.ts';
import { sandboxSettings } from '../../emulators/settings.ts';
import { DEFAULT_MAPPING } from '../../src/map/default-mapping.ts';
import { fieldDefinitions, PROVENANCE_FIELDS as P } from '../../src/map/field-definitions.ts';
import type { Service } from '../../src/service/runtime.ts';
import { startSandbox } from '../helpers/buyer-intel-sandbox.ts';
import { REDIS_URL, testPrefix } from '../helpers/redis.ts';
import { closeService, createTestService, finishedJob } from '../helpers/service.ts';

const prefix = testPrefix('test-e2e');
const POPULATION = DEFAULT_MAPPING.fields.find((f) => f.attribute === 'Population')?.property ?? '';

let bi: RunningBuyerIntelSandbox;
let hs: RunningHubSpotSandbox;
let service: Service;
let hubspot: Client;
let receiverUrl: string;

beforeAll(async () => {
  bi = await startSandbox();
  hs = await startHubSpotSandbox({});
  service = await createTestService(
    sandboxSettings(
      { buyerIntel: bi, hubspot: hs },
      { redisUrl: REDIS_URL, prefix },
      {
        buyerIntel: {
          timeoutMs: 5_000,
          maxAttempts: 3,
          ratePerSecond: 100,
          burst: 100,
          maxRetryAfterMs: 100,
        },
        signals: { period: 'LastTwoYears', maxNotesPerRun: 50 },
        worker: { concurrency: 8, writeBatchWaitMs: 50 },
      },
    ),
  );
  await service.connector('hubspot', String(hs.portalId)).ensureFields(fieldDefinitions(DEFAULT_MAPPING));
  const http = await service.startHttp(0, '127.0.0.1');
  receiverUrl = http.url;
  service.startWorker();
  hs.webhooks.configure({
    targetUrl: `${http.url}/webhooks/hubspot`,
    propertyChanges: [],
    retryDelaysMs: [50, 100, 200],
  });
  hubspot = new Client({ accessToken: hs.accessToken, basePath: hs.url, numberOfApiCallRetries: 0 });
});

afterAll(async () => {
  await closeService(service, REDIS_URL, prefix);
  await Promise.all([bi?.close(), hs?.close()]);
});

const finished = (accountId: string, timeoutMs?: number) => finishedJob(service, accountId, timeoutMs);

const createAsPerson = (properties: Record<string, string>) =>
  hs.store.createCompany(properties, { source: 'CRM_UI' }).id;
const propsOf = async (id: string, names: string[]) =>
  (await hubspot.crm.companies.basicApi.getById(id, names)).properties;

describe('automatic enrichment on HubSpot', () => {
  let austin: string;

  it('a created company ends up with the buyer’s fields and signal notes', async () => {
    austin = createAsPerson({ name: 'City of Austin', state: 'TX', domain: 'austintexas.gov' });
    const result = await finished(austin);
    expect(result.status).toBe('enriched');
    const props = await propsOf(austin, [
      P.status,
      P.buyerName,
      P.buyerId,
      P.matchConfidence,
      P.lastEnrichedAt,
      POPULATION,
    ]);
    expect(props[P.status]).toBe('enriched');
    expect(props[P.buyerName]).toBe('City of Austin');
    const buyer = bi.dataset.buyers.find((b) => b.name === 'City of Austin' && b.stateCode === 'TX');
    expect(props[P.buyerId]).toBe(buyer?.id);
    expect(Number(props[P.matchConfidence])).toBeGreaterThanOrEqual(0.75);
    expect(props[POPULATION]).toBe(String(bi.dataset.attributesOf(buyer?.id ?? '')?.Population));
    const notes = hs.store.notesOf(austin);
    expect(result.notes.overCap).toBe(0);
    expect(notes.length).toBeGreaterThan(0);
    expect(notes.length).toBe(result.notes.created.length);
    expect(new Set(result.notes.created.map((n) => n.key)).size).toBe(notes.length);
    // And through HubSpot's own API: the notes are associated with the company.
    const linked = await hubspot.crm.associations.v4.basicApi.getPage(
      'companies',
      austin,
      'notes',
      undefined,
      500,
    );
    expect(linked.results.map((a) => String(a.toObjectId)).sort()).toEqual(notes.map((n) => n.id).sort());
    const bodies = await hubspot.crm.objects.notes.batchApi.read({
      inputs: notes.map((n) => ({ id: n.id })),
      properties: ['hs_note_body'],
      propertiesWithHistory: [],
    });
    expect(bodies.results.every((n) => (n.properties.hs_note_body ?? '').includes('Signal:'))).toBe(true);
  });

  it('a re-delivered webhook, after the job was cleaned up, runs again but adds no note and writes nothing', async () => {
    const before = hs.store.notesOf(austin).length;
    const done = (await service.queue.getJobs(['completed'])).find((j) => j.data.accountId === austin);
    await done?.remove();
    const body = JSON.stringify([
      {
        eventId: 1,
        subscriptionId: 1,
        portalId: hs.portalId,
        appId: hs.appId,
        occurredAt: Date.now(),
        subscriptionType: 'company.creation',
        attemptNumber: 1,
        objectId: Number(austin),
        changeFlag: 'CREATED',
        changeSource: 'CRM_UI',
      },
    ]);
    const timestamp = String(Date.now());
    const uri = `${receiverUrl}/webhooks/hubspot`;
    const res = await fetch(uri, {
      method: 'POST',
      headers: {
        'Content-Type': 'application/json',
        'X-HubSpot-Request-Timestamp': timestamp,
        'X-HubSpot-Signature-v3': createHmac('sha256', hs.clientSecret)
          .update(`POST${uri}${body}${timestamp}`)
          .digest('base64'),
      },
      body,
    });
    expect(res.status).toBe(200);
    const again = await finished(austin);
    expect(again.notes.created).toEqual([]);
    expect(again.fields.filter((f) => f.decision === 'write')).toEqual([]);
    expect(hs.store.notesOf(austin).length).toBe(before);
    // The buyer id on the company pins the second run: the name and the original reason stay.
    expect(again.match.source).toBe('pinned');
    const props = await propsOf(austin, [P.buyerName, P.matchReason]);
    expect(props[P.buyerName]).toBe('City of Austin');
    expect(props[P.matchReason]).toMatch(/^Matched "City of Austin" \(TX\)/);
  });

  it('a value a person changed is not overwritten under the `ours` policy', async () => {
    expect(DEFAULT_MAPPING.fields.find((f) => f.property === POPULATION)?.policy ?? 'ours').toBe('ours');
    hs.store.updateCompany(austin, { [POPULATION]: '1000001' }, { source: 'CRM_UI' });
    const result = await service.enrich({ crm: 'hubspot', tenant: String(hs.portalId), accountId: austin });
    expect(result.fields.find((f) => f.property === POPULATION)?.decision).toBe('blocked-edited-by-person');
    expect((await propsOf(austin, [POPULATION]))[POPULATION]).toBe('1000001');
  });

  it('an ambiguous name ends "needs review" with the candidates and nothing else written', async () => {
    const id = createAsPerson({ name: 'Springfield' });
    const result = await finished(id);
    expect(result.status).toBe('needs_review');
    const props = await propsOf(id, [P.status, P.candidates, P.buyerId, POPULATION]);
    expect(props[P.status]).toBe('needs_review');
    expect(props[P.candidates]?.split('\n').length).toBeGreaterThanOrEqual(2);
    expect(props[P.buyerId] ?? null).toBeNull();
    expect(props[POPULATION] ?? null).toBeNull();
    expect(hs.store.notesOf(id)).toEqual([]);
  });

  it('a 429 storm from the Buyer Intelligence API delays the work but loses nothing', async () => {
    bi.faults.inject({ kind: 'status', status: 429, retryAfterSeconds: 1, times: 12 });
    const names = [
      'Travis County',
      'Austin Community College',
      'City of Springfield',
      'Austin Police Department',
    ];
    const states = ['TX', 'TX', 'IL', 'TX'];
    const ids = names.map((name, i) => createAsPerson({ name, state: states[i] ?? '' }));
    const results = await Promise.all(ids.map((id) => finished(id, 30_000)));
    expect(results.map((r) => r.status)).toEqual(['enriched', 'enriched', 'enriched', 'enriched']);
    expect(bi.stats.count(undefined, 429)).toBeGreaterThanOrEqual(12);
    expect(await service.queue.getJobs(['failed'])).toEqual([]);
  });
});
