// A yes/no mapping on Salesforce: a Checkbox is never null there (it reads false until set), so the
// protective policies must take false as "empty" or they would never write the field. Through real
// HTTP, jsforce, the Metadata API `setup` uses, and real Redis.
import { randomUUID } from 'node:crypto';
import jsforce from 'jsforce';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultFieldName } from '../../connectors/salesforce/fields.ts';
import type { RunningBuyerIntelSandbox } from '../../emulators/buyer-intel/server.ts';
import { type RunningSalesforceSandbox, startSalesforceSandbox } from '../../emulators/salesforce/server.ts';
import { sandboxSettings } from '../../emulators/settings.ts';
import { DEFAULT_MAPPING } from '../../src/map/default-mapping.ts';
import { fieldDefinitions } from '../../src/map/field-definitions.ts';
import type { Mapping } from '../../src/map/mapping-schema.ts';
import type { Service } from '../../src/service/runtime.ts';
import { startSandbox } from '../helpers/buyer-intel-sandbox.ts';
import { closeService, createTestService } from '../helpers/service.ts';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const prefix = `test-e2e-sf-bool-${randomUUID().slice(0, 8)}`;
const MAPPING: Mapping = {
  ...DEFAULT_MAPPING,
  fields: [
    ...DEFAULT_MAPPING.fields,
    { attribute: 'Psap', property: 'buyer_intel_psap_ours', transform: 'boolean', policy: 'ours' },
    { attribute: 'Psap', property: 'buyer_intel_psap_fill', transform: 'boolean', policy: 'fill-empty' },
  ],
};
const OURS = defaultFieldName('buyer_intel_psap_ours');
const FILL = defaultFieldName('buyer_intel_psap_fill');

let bi: RunningBuyerIntelSandbox;
let sf: RunningSalesforceSandbox;
let service: Service;
let conn: jsforce.Connection;

beforeAll(async () => {
  bi = await startSandbox();
  sf = await startSalesforceSandbox({});
  service = await createTestService({
    ...sandboxSettings({ buyerIntel: bi, salesforce: sf }, { redisUrl: REDIS_URL, prefix }),
    mapping: MAPPING,
  });
  await service.connector('salesforce', sf.orgId).ensureFields(fieldDefinitions(MAPPING));
  conn = new jsforce.Connection({ instanceUrl: sf.url, accessToken: sf.accessToken, version: '62.0' });
});

afterAll(async () => {
  await closeService(service, REDIS_URL, prefix);
  await Promise.all([bi?.close(), sf?.close()]);
});

describe('a boolean mapping on Salesforce', () => {
  it('writes true into a Checkbox that reads false, under ours and under fill-empty', async () => {
    // Counties whose buyer answers Psap: true; the first that resolves is the account under test.
    const counties = bi.dataset.buyers.filter(
      (b) => b.type === 'County' && bi.dataset.attributesOf(b.id)?.Psap === true && b.url,
    );
    expect(counties.length).toBeGreaterThan(0);
    for (const buyer of counties.slice(0, 10)) {
      const id = sf.store.create('Account', {
        Name: buyer.name,
        BillingState: buyer.stateCode,
        Website: buyer.url,
      }).id;
      const before = (await conn.sobject('Account').retrieve(id)) as Record<string, unknown>;
      expect(before[OURS]).toBe(false);
      expect(before[FILL]).toBe(false);
      const result = await service.enrich({ crm: 'salesforce', tenant: sf.orgId, accountId: id });
      if (result.status !== 'enriched') continue;
      const decisions = result.fields.filter((f) => f.property.startsWith('buyer_intel_psap'));
      expect(decisions.map((f) => [f.policy, f.decision, f.new])).toEqual([
        ['ours', 'write', 'true'],
        ['fill-empty', 'write', 'true'],
      ]);
      const after = (await conn.sobject('Account').retrieve(id)) as Record<string, unknown>;
      expect([after[OURS], after[FILL]]).toEqual([true, true]);
      // A person unchecks the field we wrote: kept under ours; fill-empty keeps what is there.
      await conn.sobject('Account').update({ Id: id, [OURS]: false });
      const again = await service.enrich({ crm: 'salesforce', tenant: sf.orgId, accountId: id });
      expect(again.fields.find((f) => f.property === 'buyer_intel_psap_ours')?.decision).toBe(
        'blocked-edited-by-person',
      );
      expect(((await conn.sobject('Account').retrieve(id)) as Record<string, unknown>)[OURS]).toBe(false);
      return;
    }
    throw new Error('no county with Psap resolved');
  });
});
