// Ids first, the whole path: setup creates the id properties in the HubSpot emulator, a person creates
// a company with an NCES id typed in one → its webhook → a job → the resolver matches it by that id
// against the Buyer Intelligence emulator → the company's fields and the store's outcome say so (cohort
// matched_by_id, the reason naming the id). And an id that contradicts the name goes to review.
import { randomUUID } from 'node:crypto';
import { Client } from '@hubspot/api-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SandboxBuyer } from '../../emulators/buyer-intel/data/dataset.ts';
import type { RunningBuyerIntelSandbox } from '../../emulators/buyer-intel/server.ts';
import { type RunningHubSpotSandbox, startHubSpotSandbox } from '../../emulators/hubspot/server.ts';
import { sandboxSettings } from '../../emulators/settings.ts';
import { DEFAULT_MAPPING } from '../../src/map/default-mapping.ts';
import {
  fieldDefinitions,
  idFieldDefinitions,
  PROVENANCE_FIELDS as P,
} from '../../src/map/field-definitions.ts';
import type { Service } from '../../src/service/runtime.ts';
import { startSandbox } from '../helpers/buyer-intel-sandbox.ts';
import { closeService, createTestService, finishedJob } from '../helpers/service.ts';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const prefix = `test-e2e-ids-${randomUUID().slice(0, 8)}`;
const NCES = 'buyer_intel_match_nces_id';

let bi: RunningBuyerIntelSandbox;
let hs: RunningHubSpotSandbox;
let service: Service;
let hubspot: Client;
let tenant: string;

beforeAll(async () => {
  bi = await startSandbox();
  hs = await startHubSpotSandbox({});
  tenant = String(hs.portalId);
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
        signals: { period: 'LastTwoYears', maxNotesPerRun: 5 },
        worker: { concurrency: 4, writeBatchWaitMs: 50 },
      },
    ),
  );
  // What `setup` does: the mapped and provenance fields, and our id properties.
  const connector = service.connector('hubspot', tenant);
  const ids = idFieldDefinitions(connector.idFields ?? [], DEFAULT_MAPPING);
  expect(ids.definitions.map((d) => d.name)).toContain(NCES);
  await connector.ensureFields([...fieldDefinitions(DEFAULT_MAPPING), ...ids.definitions]);
  const http = await service.startHttp(0, '127.0.0.1');
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

function buyer(name: string, stateCode: string): SandboxBuyer {
  const found = bi.dataset.buyers.find((b) => b.name === name && b.stateCode === stateCode);
  if (!found) throw new Error(`the emulator has no ${name} in ${stateCode}`);
  return found;
}
const ncesOf = (b: SandboxBuyer) => String(bi.dataset.attributesOf(b.id)?.NcesId);

/** A company a person creates through HubSpot's API (the id property must exist: setup made it). */
async function createAsPerson(properties: Record<string, string>): Promise<string> {
  const created = await hubspot.crm.companies.basicApi.create({ properties, associations: [] });
  return created.id;
}
const propsOf = async (id: string, names: string[]) =>
  (await hubspot.crm.companies.basicApi.getById(id, names)).properties;

describe('ids first on HubSpot', () => {
  it('a company with its NCES id (a leading zero) is matched by it, and the store says matched by id', async () => {
    // "Houston County Schools" names a district in Georgia and one in Alabama: by name alone, a review.
    const alabama = buyer('Houston County Schools', 'AL');
    const nces = ncesOf(alabama);
    expect(nces).toMatch(/^01\d{5}$/);
    const id = await createAsPerson({ name: 'Houston County Schools', [NCES]: nces });
    const result = await finishedJob(service, id);
    expect(result.status).toBe('enriched');
    expect(result.match).toMatchObject({ buyerId: alabama.id, source: 'id', confidence: 1 });
    const reason = `Matched "Houston County Schools" (AL) by its NCES id ${nces}`;
    expect(result.match.explanation).toBe(reason);

    const props = await propsOf(id, [P.status, P.buyerId, P.matchReason, P.matchConfidence, NCES]);
    expect(props).toMatchObject({
      [P.status]: 'enriched',
      [P.buyerId]: alabama.id,
      [P.matchReason]: reason,
      [P.matchConfidence]: '1',
      [NCES]: nces,
    });

    const { outcomes } = await service.store.open();
    const outcome = await outcomes.get({ crm: 'hubspot', tenant, accountId: id });
    expect(outcome).toMatchObject({
      status: 'enriched',
      cohort: 'matched_by_id',
      matchedBy: 'id',
      buyerId: alabama.id,
      reason,
    });

    // Enriched again (now pinned by our own buyer id): still matched by id, for the reason it was.
    await service.enrich({ crm: 'hubspot', tenant, accountId: id });
    const again = await outcomes.get({ crm: 'hubspot', tenant, accountId: id });
    expect(again).toMatchObject({ cohort: 'matched_by_id', reason });
  });

  it('an NCES id that contradicts the name goes to review, the id’s district listed first', async () => {
    const district = buyer('Austin Independent School District', 'TX');
    const id = await createAsPerson({ name: 'City of Austin', state: 'TX', [NCES]: ncesOf(district) });
    const result = await finishedJob(service, id);
    expect(result.status).toBe('needs_review');
    expect(result.match.explanation).toContain(
      `the NCES id ${ncesOf(district)} names "${district.name}" (TX)`,
    );
    const props = await propsOf(id, [P.status, P.candidates, P.buyerId]);
    expect(props[P.status]).toBe('needs_review');
    expect(props[P.buyerId] ?? null).toBeNull();
    expect(props[P.candidates]?.split('\n')[0]).toContain(district.id);
    const { outcomes } = await service.store.open();
    expect(await outcomes.get({ crm: 'hubspot', tenant, accountId: id })).toMatchObject({
      cohort: 'needs_review',
    });
  });
});
