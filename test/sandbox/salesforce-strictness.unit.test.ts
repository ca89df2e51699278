// Where the Salesforce documents are silent the sandbox takes the stricter reading, and it can model an
// integration user without field-level Edit on one of our fields. Each rule is seen through the real
// jsforce (or plain HTTP where jsforce hides the status): sObject Describe; INVALID_FIELD_FOR_INSERT_UPDATE
// for a field the user may read but not edit (the option, the store knob and the control route); a
// collection update naming one record twice refused as a whole; an update of an id naming no record
// (INVALID_CROSS_REFERENCE_KEY) or one in the recycle bin (ENTITY_IS_DELETED), per record.
import { Connection } from 'jsforce';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningSalesforceSandbox, startSalesforceSandbox } from '../../emulators/salesforce/server.ts';

let sf: RunningSalesforceSandbox;
let conn: Connection;
type SaveResult = {
  id?: string;
  success: boolean;
  errors: { statusCode: string; message: string; fields: string[] }[];
};

beforeAll(async () => {
  // One field read-only from the start, as an org whose admin gave the integration user Read only.
  sf = await startSalesforceSandbox({ readOnlyFields: ['Account.BuyerIntel_Locked__c'] });
  sf.store.defineCustomField('Account', 'BuyerIntel_Locked__c', { kind: 'text', length: 255 }, 'Locked');
  sf.store.defineCustomField('Account', 'BuyerIntel_Status__c', { kind: 'text', length: 255 }, 'Status');
  sf.store.defineCustomField('Account', 'BuyerIntel_Psap__c', { kind: 'checkbox' }, 'PSAP');
  conn = new Connection({ instanceUrl: sf.url, accessToken: sf.accessToken, version: '62.0' });
});
afterAll(async () => {
  await sf.close();
});

const newAccount = (name = 'Strict ISD') => sf.store.create('Account', { Name: name }).id;
const stored = (id: string, field: string) => sf.store.find('Account', id).values.get(field);

async function failure(p: Promise<unknown>): Promise<Error & { errorCode?: string }> {
  try {
    await p;
  } catch (err) {
    return err as Error & { errorCode?: string };
  }
  throw new Error('expected the call to fail');
}

describe('sObject Describe', () => {
  it("tells a field's type, whether it takes null and whether this user may edit it", async () => {
    const described = await conn.sobject('Account').describe();
    const field = (name: string) => described.fields.find((f) => f.name === name);
    expect(described.name).toBe('Account');
    expect(field('BuyerIntel_Psap__c')).toMatchObject({ type: 'boolean', nillable: false, updateable: true });
    expect(field('BuyerIntel_Status__c')).toMatchObject({ type: 'string', length: 255, nillable: true });
    expect(field('BuyerIntel_Locked__c')).toMatchObject({ updateable: false, createable: false });
    expect(field('CreatedDate')).toMatchObject({ type: 'datetime', updateable: false });
    expect(field('Id')).toMatchObject({ type: 'id', nillable: false });
  });
});

describe('a field the integration user cannot edit (field-level security)', () => {
  it('refuses the write per record with INVALID_FIELD_FOR_INSERT_UPDATE naming the field, writes the rest', async () => {
    const a = newAccount();
    const b = newAccount();
    const results = (await conn.sobject('Account').update(
      [
        { Id: a, BuyerIntel_Locked__c: 'x', BuyerIntel_Status__c: 'enriched' },
        { Id: b, BuyerIntel_Status__c: 'enriched' },
      ],
      { allOrNone: false },
    )) as SaveResult[];
    expect(results).toEqual([
      {
        success: false,
        errors: [
          {
            statusCode: 'INVALID_FIELD_FOR_INSERT_UPDATE',
            message:
              'Unable to create/update fields: BuyerIntel_Locked__c. Please check the security settings of this field and verify that it is read/write for your profile or permission set.',
            fields: ['BuyerIntel_Locked__c'],
          },
        ],
      },
      { id: b, success: true, errors: [] },
    ]);
    // Nothing of the refused record is written; a read still works (Read was not taken away).
    expect(stored(a, 'BuyerIntel_Status__c')).toBeNull();
    expect(stored(b, 'BuyerIntel_Status__c')).toBe('enriched');
    const read = (await conn.sobject('Account').retrieve(a, { fields: ['BuyerIntel_Locked__c'] })) as Record<
      string,
      unknown
    >;
    expect(read.BuyerIntel_Locked__c).toBeNull();
  });

  it('is switched per field through /__sandbox/field-access, a single PATCH answering 400', async () => {
    const id = newAccount();
    const access = (editable: boolean) =>
      fetch(`${sf.url}/__sandbox/field-access`, {
        method: 'PUT',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ sobjectType: 'Account', name: 'BuyerIntel_Status__c', editable }),
      });
    expect((await access(false)).status).toBe(200);
    const single = await fetch(`${sf.url}/services/data/v62.0/sobjects/Account/${id}`, {
      method: 'PATCH',
      headers: { authorization: `Bearer ${sf.accessToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ BuyerIntel_Status__c: 'enriched' }),
    });
    expect(single.status).toBe(400);
    expect(await single.json()).toEqual([
      expect.objectContaining({
        errorCode: 'INVALID_FIELD_FOR_INSERT_UPDATE',
        fields: ['BuyerIntel_Status__c'],
      }),
    ]);
    const described = await conn.sobject('Account').describe();
    expect(described.fields.find((f) => f.name === 'BuyerIntel_Status__c')?.updateable).toBe(false);

    expect((await access(true)).status).toBe(200);
    await conn.sobject('Account').update({ Id: id, BuyerIntel_Status__c: 'enriched' });
    expect(stored(id, 'BuyerIntel_Status__c')).toBe('enriched');
  });
});

describe('collection updates', () => {
  it('refuse the whole call, writing nothing, when one record is named twice (jsforce sees DUPLICATE_VALUE)', async () => {
    const a = newAccount();
    const b = newAccount();
    const err = await failure(
      conn.sobject('Account').update(
        [
          { Id: a, BuyerIntel_Status__c: 'one' },
          { Id: b, BuyerIntel_Status__c: 'two' },
          { Id: a, BuyerIntel_Status__c: 'three' },
        ],
        { allOrNone: false },
      ),
    );
    expect(err.errorCode).toBe('DUPLICATE_VALUE');
    expect(err.message).toBe(`Duplicate id specified: ${a}`);
    expect([stored(a, 'BuyerIntel_Status__c'), stored(b, 'BuyerIntel_Status__c')]).toEqual([null, null]);
  });

  it('answer an id naming no record INVALID_CROSS_REFERENCE_KEY and a deleted one ENTITY_IS_DELETED, per record', async () => {
    const live = newAccount();
    const deleted = newAccount('Deleted ISD');
    sf.store.delete('Account', deleted);
    // A well-formed Account id of no record: the id of a live one with its serial part changed.
    const never = `${live.slice(0, 10)}ZZZZZ`;
    const results = (await conn.sobject('Account').update(
      [
        { Id: never, BuyerIntel_Status__c: 'x' },
        { Id: deleted, BuyerIntel_Status__c: 'x' },
        { Id: live, BuyerIntel_Status__c: 'x' },
      ],
      { allOrNone: false },
    )) as SaveResult[];
    expect(results).toEqual([
      {
        success: false,
        errors: [
          { statusCode: 'INVALID_CROSS_REFERENCE_KEY', message: 'invalid cross reference id', fields: [] },
        ],
      },
      {
        success: false,
        errors: [{ statusCode: 'ENTITY_IS_DELETED', message: 'entity is deleted', fields: [] }],
      },
      { id: live, success: true, errors: [] },
    ]);
    // One row by its URL is still the resource that is not there: 404 NOT_FOUND.
    const single = await failure(conn.sobject('Account').update({ Id: never, BuyerIntel_Status__c: 'x' }));
    expect(single.errorCode).toBe('NOT_FOUND');
  });
});
