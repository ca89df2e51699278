// A job whose field write the CRM refuses writes no note (issue 44): the notes wait for the fields, and
// the refused write is still on the record. Against the HubSpot emulator on a portal without our
// properties (`setup` never ran): HubSpot answers the batch update 400 PROPERTY_DOESNT_EXIST.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_MAPPING } from '../../src/map/default-mapping.ts';
import { fieldDefinitions, PROVENANCE_FIELDS as P } from '../../src/map/field-definitions.ts';
import { startTestService, type TestService } from '../helpers/start-service.ts';

let t: TestService;

beforeAll(async () => {
  // Signal notes on (the default cap): a matched account has notes to write.
  t = await startTestService({ name: 'fields-before-notes', without: ['salesforce'], http: false });
});
afterAll(async () => {
  await t?.close();
});

describe('a job whose fields the CRM refuses', () => {
  it('writes no note, and its refused field write is on the record', async () => {
    const { service, hs } = t;
    const tenant = String(hs.portalId);
    const id = hs.store.createCompany({ name: 'City of Austin', state: 'TX' }, { source: 'CRM_UI' }).id;
    await expect(service.enrich({ crm: 'hubspot', tenant, accountId: id })).rejects.toThrow(
      /PROPERTY_DOESNT_EXIST|does not exist/i,
    );
    expect(hs.store.notesOf(id)).toHaveLength(0);
    const { events } = await (await service.store.open()).writes.forAccount({
      crm: 'hubspot',
      tenant,
      accountId: id,
    });
    const status = events.find((e) => e.type === 'field' && e.field === P.status);
    expect(status).toMatchObject({ type: 'field', result: 'error', new: 'enriched' });
    expect(events.filter((e) => e.type === 'note')).toEqual([]);

    // With the fields made, the same account gets its fields and then its notes.
    await service.connector('hubspot', tenant).ensureFields(fieldDefinitions(DEFAULT_MAPPING));
    const result = await service.enrich({ crm: 'hubspot', tenant, accountId: id });
    expect(result.status).toBe('enriched');
    expect(result.notes.created.length).toBeGreaterThan(0);
    expect(hs.store.notesOf(id)).toHaveLength(result.notes.created.length);
    expect(hs.store.get('companies', id)?.values.get(P.status)).toBe('enriched');
  }, 60_000);
});
