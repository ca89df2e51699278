// Accounts that carry registry ids and no name, against a provider that serves only the documented
// operations (the emulator's `documentedOnly`: the criteria search, named by the contract but never
// shown, answers 404 as an independent implementation of it does). Through the whole flow — the account
// created in a CRM → its job on the real queue → resolve → the store's outcome and the CRM's status
// field — each ends where a person decides, with a reason a person understands, or matched when its
// buyer id names a buyer; none fails, and the provider is asked for the criteria search once only.
import '../helpers/memory-crm.ts'; // first: registers the test double before the registry is read
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_ID_FIELD_NAMES as ID } from '../../connectors/account-ids.ts';
import { memoryCrm } from '../../connectors/memory/store.ts';
import type { SandboxBuyer } from '../../emulators/buyer-intel/data/dataset.ts';
import type { RunningBuyerIntelSandbox } from '../../emulators/buyer-intel/server.ts';
import { sandboxSettings } from '../../emulators/settings.ts';
import { DEFAULT_MAPPING } from '../../src/map/default-mapping.ts';
import { fieldDefinitions, PROVENANCE_FIELDS as P } from '../../src/map/field-definitions.ts';
import type { Service } from '../../src/service/runtime.ts';
import { startSandbox } from '../helpers/buyer-intel-sandbox.ts';
import { eventually } from '../helpers/poll.ts';
import { REDIS_URL, testPrefix } from '../helpers/redis.ts';
import { closeService, createTestService } from '../helpers/service.ts';

const prefix = testPrefix('test-ids-no-name');
const workspace = `ids-${randomUUID().slice(0, 8)}`;
const crm = memoryCrm(workspace);

let bi: RunningBuyerIntelSandbox;
let service: Service;

beforeAll(async () => {
  bi = await startSandbox({ documentedOnly: true });
  const settings = sandboxSettings(
    { buyerIntel: bi },
    { redisUrl: REDIS_URL, prefix },
    {
      // A job that fails is failed for good at once: the test reads `error` rather than waiting out retries.
      worker: { attempts: 1, writeBatchWaitMs: 20 },
      buyerIntel: { maxAttempts: 1 },
    },
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

const attribute = (b: SandboxBuyer, key: string): string =>
  String((bi.dataset.attributesOf(b.id) as Record<string, unknown> | undefined)?.[key] ?? '');
const holding = (key: string, kind?: string) => {
  const found = bi.dataset.buyers.find((b) => (!kind || b.type === kind) && attribute(b, key) !== '');
  if (!found) throw new Error(`the emulator has no buyer with ${key}`);
  return found;
};

/** The account's outcome once its job is over: the store's status and reason, the CRM's status field. */
async function ended(accountId: string) {
  const { outcomes } = await service.store.open();
  const outcome = await eventually(
    () => outcomes.get({ crm: 'memory-crm', tenant: workspace, accountId }),
    `account ${accountId}'s outcome recorded`,
    { timeoutMs: 20_000, intervalMs: 50 },
  );
  return { ...outcome, field: crm.accounts.get(accountId)?.fields.get(P.status) };
}

// Websites that name no buyer: the documented search by the address's words finds none that holds the id.
const ELSEWHERE = [
  'https://qzvx-records.example.net',
  'https://wqpl-portal.example.net',
  'https://xkcv-files.example.net',
];

describe('ids and no name, on a provider without the criteria search', () => {
  it('accounts that arrive together, their first criteria searches in flight at once: none fails', async () => {
    // Every criteria search answers its 404 late, so that the first accounts' calls are all out before
    // one comes back: what a run's first chunk does on a provider not tried yet.
    bi.faults.inject({ kind: 'delay', ms: 300, match: 'searchBuyersByCriteria', times: 20 });
    const district = holding('NcesId', 'SchoolDistrict');
    const college = holding('IpedsIdNumeric');
    const city = holding('CensusIdPid6', 'City');
    const own = crm.createAccount({
      name: null,
      website: district.url ?? '',
      fields: { [ID.nces]: attribute(district, 'NcesId') },
    });
    const elsewhere = [
      crm.createAccount({
        name: null,
        website: ELSEWHERE[0],
        fields: { [ID.nces]: attribute(district, 'NcesId') },
      }),
      crm.createAccount({
        name: null,
        website: ELSEWHERE[1],
        fields: { [ID.ipeds]: attribute(college, 'IpedsIdNumeric') },
      }),
      crm.createAccount({
        name: null,
        state: city.stateCode,
        website: ELSEWHERE[2],
        fields: { [ID.census]: attribute(city, 'CensusIdPid6') },
      }),
    ];
    // Its own web address finds the district by the documented search, and the district holds the id.
    const found = await ended(own);
    expect(found, found.reason ?? '').toMatchObject({
      status: 'enriched',
      field: 'enriched',
      buyerId: district.id,
      matchedBy: 'id',
    });
    for (const id of elsewhere) {
      const outcome = await ended(id);
      expect(outcome, outcome.reason ?? '').toMatchObject({ status: 'needs_review', field: 'needs_review' });
    }
    bi.faults.clear();
  });

  it('after that, accounts with ids alone are never sent to it: each to review saying why, or matched by its buyer id', async () => {
    const asked = bi.stats.count('searchBuyersByCriteria');
    expect(asked).toBeGreaterThan(0);
    expect(bi.stats.count('searchBuyersByCriteria', 404)).toBe(asked);
    const district = holding('NcesId', 'SchoolDistrict');
    const college = holding('IpedsIdNumeric');
    const city = holding('CensusIdPid6', 'City');
    const county = holding('StateCode', 'County');
    const reviewed = [
      crm.createAccount({ name: null, fields: { [ID.nces]: attribute(district, 'NcesId') } }),
      crm.createAccount({
        name: null,
        state: district.stateCode,
        fields: { [ID.nces]: attribute(district, 'NcesId') },
      }),
      crm.createAccount({ name: null, fields: { [ID.ipeds]: attribute(college, 'IpedsIdNumeric') } }),
      crm.createAccount({
        name: null,
        state: city.stateCode,
        fields: { [ID.census]: attribute(city, 'CensusIdPid6') },
      }),
    ];
    // A buyer id of the right shape that names no buyer: a person typed it wrong.
    const typo = crm.createAccount({ name: null, fields: { [ID.buyer]: randomUUID() } });
    const matched = crm.createAccount({ name: null, fields: { [ID.buyer]: county.id } });

    for (const id of reviewed) {
      const outcome = await ended(id);
      expect(outcome, outcome.reason ?? '').toMatchObject({ status: 'needs_review', field: 'needs_review' });
      expect(outcome.reason).toContain(
        'no name to search by, and this provider has no search by registry id',
      );
    }
    const wrong = await ended(typo);
    expect(wrong).toMatchObject({ status: 'needs_review', field: 'needs_review' });
    expect(wrong.reason).toContain('matches no buyer');
    expect(await ended(matched)).toMatchObject({
      status: 'enriched',
      field: 'enriched',
      buyerId: county.id,
      matchedBy: 'id',
    });
    // Told that the operation does not exist, the process asks for it no more.
    expect(bi.stats.count('searchBuyersByCriteria')).toBe(asked);
  });
});
