// What the Salesforce connector sends, and how it reads the answer, where Salesforce is strict: a clear
// of a Checkbox writes false (null is refused), one Account named by its 15- and 18-character ids goes
// as one record (a collection naming a record twice is refused as a whole), every documented "record
// gone" code is the account gone (404, permanent), and a field the integration user cannot edit is a
// permanent failure that names the field and what the admin grants. Through the real jsforce against
// the Salesforce sandbox; the codes the sandbox never answers for a write, through recordFailureOf.
import { afterAll, describe, expect, it } from 'vitest';
import { createSalesforceCalls } from '../../connectors/salesforce/client.ts';
import { createSalesforceConnector } from '../../connectors/salesforce/connector.ts';
import { recordFailureOf, SalesforceRequestError } from '../../connectors/salesforce/errors.ts';
import { CheckboxFields, RECHECK_MS } from '../../connectors/salesforce/field-kinds.ts';
import { getAccount } from '../../connectors/salesforce/read.ts';
import { AccountNotFoundError } from '../../connectors/types.ts';
import type { SalesforceSandboxOptions } from '../../emulators/salesforce/app.ts';
import { to18 } from '../../emulators/salesforce/ids.ts';
import { type RunningSalesforceSandbox, startSalesforceSandbox } from '../../emulators/salesforce/server.ts';

const sandboxes: RunningSalesforceSandbox[] = [];
async function start(options: SalesforceSandboxOptions = {}): Promise<RunningSalesforceSandbox> {
  const sf = await startSalesforceSandbox(options);
  sf.store.defineCustomField('Account', 'BuyerIntel_Status__c');
  sf.store.defineCustomField('Account', 'BuyerIntel_Population__c');
  sf.store.defineCustomField('Account', 'BuyerIntel_IsPublic__c', { kind: 'checkbox' }, 'Is Public');
  sf.store.defineCustomField('Task', 'BuyerIntel_Key__c');
  sandboxes.push(sf);
  return sf;
}
afterAll(async () => {
  await Promise.all(sandboxes.map((s) => s.close()));
});

const options = (sf: RunningSalesforceSandbox) => ({
  instanceUrl: sf.url,
  loginUrl: sf.url,
  accessToken: sf.accessToken,
  refreshToken: sf.refreshToken,
  clientId: sf.clientId,
  clientSecret: sf.clientSecret,
  apiVersion: '62.0',
  orgId: sf.orgId,
});
const connectorOf = (sf: RunningSalesforceSandbox) => createSalesforceConnector(options(sf));
const stored = (sf: RunningSalesforceSandbox, id: string, field: string) =>
  sf.store.find('Account', id).values.get(field);

describe('a clear of a Checkbox', () => {
  it('writes false (Salesforce refuses null for one), a Text field still null, one describe for both', async () => {
    const sf = await start();
    const id = sf.store.create('Account', {
      Name: 'Checkbox ISD',
      BuyerIntel_IsPublic__c: true,
      BuyerIntel_Status__c: 'enriched',
    }).id;
    const connector = connectorOf(sf);
    // The way an undo or a "buyer has no value any more" clear reaches the connector: null (or "").
    const results = await connector.updateAccounts([
      { accountId: id, fields: { buyer_intel_is_public: null, buyer_intel_status: '' } },
    ]);
    expect(results).toEqual([{ accountId: id, ok: true }]);
    expect(stored(sf, id, 'BuyerIntel_IsPublic__c')).toBe(false);
    expect(stored(sf, id, 'BuyerIntel_Status__c')).toBeNull();
    expect(sf.stats.count('sobjects.describe')).toBe(1);

    // The next clear uses what describe said; a write that clears nothing asks nothing.
    sf.store.update('Account', id, { BuyerIntel_IsPublic__c: true });
    await connector.updateAccounts([{ accountId: id, fields: { buyer_intel_is_public: null } }]);
    await connector.updateAccounts([{ accountId: id, fields: { buyer_intel_is_public: 'true' } }]);
    expect(sf.stats.count('sobjects.describe')).toBe(1);
    expect(stored(sf, id, 'BuyerIntel_IsPublic__c')).toBe(true);
  });

  it('asks describe again for a field it did not name once RECHECK_MS have passed (setup may have made it)', async () => {
    const sf = await start();
    let now = 0;
    const { calls } = createSalesforceCalls(options(sf));
    const kinds = new CheckboxFields(calls, 'Account', () => now);
    expect(await kinds.among(['BuyerIntel_IsPublic__c', 'BuyerIntel_Status__c'])).toEqual(
      new Set(['BuyerIntel_IsPublic__c']),
    );
    sf.store.defineCustomField('Account', 'BuyerIntel_IsK12__c', { kind: 'checkbox' }, 'Is K-12');
    // Within RECHECK_MS a field describe did not name is not asked about again (Salesforce answers).
    expect(await kinds.among(['BuyerIntel_IsK12__c'])).toEqual(new Set());
    now = RECHECK_MS;
    expect(await kinds.among(['buyerintel_isk12__c'])).toEqual(new Set(['buyerintel_isk12__c']));
    expect(sf.stats.count('sobjects.describe')).toBe(2);
  });
});

describe('one Account twice in one batch', () => {
  it('goes as one record under its 18-character id, later values winning: the collection is not refused', async () => {
    const sf = await start();
    const id = sf.store.create('Account', { Name: 'Twice ISD' }).id;
    const other = sf.store.create('Account', { Name: 'Once ISD' }).id;
    const results = await connectorOf(sf).updateAccounts([
      { accountId: id, fields: { buyer_intel_status: 'first', buyer_intel_population: '10' } },
      { accountId: other, fields: { buyer_intel_status: 'other' } },
      { accountId: id.slice(0, 15), fields: { buyer_intel_status: 'second' } },
    ]);
    expect(results).toEqual([
      { accountId: id, ok: true },
      { accountId: other, ok: true },
      { accountId: id.slice(0, 15), ok: true },
    ]);
    expect(sf.stats.count('composite.sobjects.update', 200)).toBe(1);
    expect([stored(sf, id, 'BuyerIntel_Status__c'), stored(sf, id, 'BuyerIntel_Population__c')]).toEqual([
      'second',
      '10',
    ]);
    expect(stored(sf, other, 'BuyerIntel_Status__c')).toBe('other');
  });
});

describe('an Account that is gone', () => {
  it('fails permanently with 404 in an update, whether deleted (ENTITY_IS_DELETED) or never there (INVALID_CROSS_REFERENCE_KEY)', async () => {
    const sf = await start();
    const live = sf.store.create('Account', { Name: 'Live ISD' }).id;
    const deleted = sf.store.create('Account', { Name: 'Deleted ISD' }).id;
    sf.store.delete('Account', deleted);
    const never = to18('001Dn0000000001');
    const results = await connectorOf(sf).updateAccounts(
      [never, deleted, live].map((accountId) => ({ accountId, fields: { buyer_intel_status: 'x' } })),
    );
    expect(results.map((r) => (r.ok ? 'ok' : [r.error.status, r.error.permanent]))).toEqual([
      [404, true],
      [404, true],
      'ok',
    ]);
    expect(results[0]).toMatchObject({
      error: { message: expect.stringContaining('INVALID_CROSS_REFERENCE_KEY') },
    });
  });

  it('fails a note Task on it with 404; an unknown owner of a follow-up is no gone Account', async () => {
    const sf = await start();
    const account = sf.store.create('Account', { Name: 'Owned ISD' }).id;
    const results = await connectorOf(sf).createNotes([
      {
        accountId: to18('001Dn0000000001'),
        dedupeKey: 'bi-1',
        title: 'RFP',
        body: 'x',
        occurredAt: '2026-03-04',
      },
      {
        accountId: account,
        dedupeKey: 'bi-2',
        title: 'Call them',
        body: 'x',
        occurredAt: '2026-03-04',
        task: { ownerId: to18('005Dn0000000001'), dueDate: '2026-03-11', priority: 'high' },
      },
    ]);
    expect(results.map((r) => (r.ok ? 'ok' : [r.error.status, r.error.permanent]))).toEqual([
      [404, true],
      [400, true],
    ]);
  });

  it('is read as AccountNotFoundError when a retrieve answers INVALID_CROSS_REFERENCE_KEY', async () => {
    const refused = new SalesforceRequestError('invalid cross reference id', {
      operation: 'sobject.Account.retrieve',
      errorCode: 'INVALID_CROSS_REFERENCE_KEY',
    });
    const calls = {
      conn: { sobject: () => ({ retrieve: () => Promise.reject(refused) }) },
      call: (_operation: string, send: () => PromiseLike<unknown>) => send(),
    } as unknown as Parameters<typeof getAccount>[0];
    await expect(getAccount(calls, (n) => n, to18('001Dn0000000001'), [])).rejects.toBeInstanceOf(
      AccountNotFoundError,
    );
  });
});

describe('recordFailureOf: every documented "record gone" code', () => {
  const of = (statusCode: string, fields: string[], otherReferences = false) =>
    recordFailureOf([{ statusCode, message: 'm', fields }], 'Salesforce Account 001', (t) => t, {
      otherReferences,
    });
  const gone = { status: 404, permanent: true, message: expect.stringContaining('is gone') };

  it('NOT_FOUND is the account gone', () => {
    expect(of('NOT_FOUND', [])).toEqual(gone);
  });
  it('ENTITY_IS_DELETED is the account gone', () => {
    expect(of('ENTITY_IS_DELETED', [])).toEqual(gone);
  });
  it('INVALID_CROSS_REFERENCE_KEY with no field, on a record with no other reference, is the account gone', () => {
    expect(of('INVALID_CROSS_REFERENCE_KEY', [])).toEqual(gone);
  });
  it('INVALID_CROSS_REFERENCE_KEY naming Id is the account gone, other references or not', () => {
    expect(of('INVALID_CROSS_REFERENCE_KEY', ['Id'], true)).toEqual(gone);
  });
  it('INVALID_CROSS_REFERENCE_KEY about another reference (named, or possible) is a permanent refusal, not gone', () => {
    for (const failure of [
      of('INVALID_CROSS_REFERENCE_KEY', ['OwnerId']),
      of('INVALID_CROSS_REFERENCE_KEY', [], true),
    ])
      expect(failure).toEqual({
        status: 400,
        permanent: true,
        message: expect.not.stringContaining('is gone'),
      });
  });
  it('a lock is still a failure for now', () => {
    expect(of('UNABLE_TO_LOCK_ROW', [])).toMatchObject({ status: undefined, permanent: false });
  });
});

describe('a field the integration user cannot edit (field-level security)', () => {
  it('fails its records permanently, naming the field and the Edit access to grant; the others are written', async () => {
    const sf = await start({ readOnlyFields: ['Account.BuyerIntel_Population__c'] });
    const a = sf.store.create('Account', { Name: 'Locked ISD' }).id;
    const b = sf.store.create('Account', { Name: 'Open ISD' }).id;
    const results = await connectorOf(sf).updateAccounts([
      { accountId: a, fields: { buyer_intel_population: '12', buyer_intel_status: 'enriched' } },
      { accountId: b, fields: { buyer_intel_status: 'enriched' } },
    ]);
    expect(results[0]).toEqual({
      accountId: a,
      ok: false,
      error: { status: 400, permanent: true, message: expect.stringContaining('BuyerIntel_Population__c') },
    });
    const message = results[0]?.ok === false ? results[0].error.message : '';
    expect(message).toContain('INVALID_FIELD_FOR_INSERT_UPDATE');
    expect(message).toMatch(/grants that user Edit access to the field/);
    expect(message).toContain('Set Field-Level Security');
    expect(message).toContain('permission set');
    expect(results[1]).toEqual({ accountId: b, ok: true });
    expect(stored(sf, a, 'BuyerIntel_Status__c')).toBeNull();
  });
});
