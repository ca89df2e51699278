// The Salesforce connector on the unmodified jsforce 3 against the Salesforce sandbox over real HTTP:
// reading an Account, a collection update with per-record failures, notes as Tasks and as ContentNotes
// and their keys, the refresh of an expired session, the daily API limit, no token in any error message,
// and `ensureFields` end to end through the sandbox's Metadata API (SOAP) as well as the pure
// FieldDefinition → CustomField mapping.
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { Connection } from 'jsforce';
import { afterAll, describe, expect, it } from 'vitest';
import { readBudget } from '../../connectors/limits.ts';
import { crmOf } from '../../connectors/registry.ts';
import {
  createSalesforceConnector,
  type SalesforceConnectorOptions,
  SalesforceTransientError,
} from '../../connectors/salesforce/connector.ts';
import { SalesforceRequestError } from '../../connectors/salesforce/errors.ts';
import {
  defaultFieldName,
  noteKeyFieldMetadata,
  toCustomFieldMetadata,
} from '../../connectors/salesforce/fields.ts';
import { IdFieldReads } from '../../connectors/salesforce/read.ts';
import {
  AccountNotFoundError,
  CrmAuthError,
  CrmRateLimitError,
  type NoteDraft,
} from '../../connectors/types.ts';
import type { SalesforceSandboxOptions } from '../../emulators/salesforce/app.ts';
import { to18 } from '../../emulators/salesforce/ids.ts';
import { type RunningSalesforceSandbox, startSalesforceSandbox } from '../../emulators/salesforce/server.ts';
import { DEFAULT_MAPPING } from '../../src/map/default-mapping.ts';
import { fieldDefinitions, idFieldDefinitions } from '../../src/map/field-definitions.ts';

const sandboxes: RunningSalesforceSandbox[] = [];
async function start(options: SalesforceSandboxOptions = {}): Promise<RunningSalesforceSandbox> {
  const sandbox = await startSalesforceSandbox(options);
  sandbox.store.defineCustomField('Account', 'BuyerIntel_Population__c');
  sandbox.store.defineCustomField('Account', 'BuyerIntel_Status__c');
  sandbox.store.defineCustomField('Account', 'BuyerIntel_IsPublic__c');
  // Setup creates this through the Metadata API in production (ensureFields); the sandbox has none.
  sandbox.store.defineCustomField('Task', 'BuyerIntel_Key__c');
  sandboxes.push(sandbox);
  return sandbox;
}
afterAll(async () => {
  await Promise.all(sandboxes.map((s) => s.close()));
});

const optionsFor = (
  sf: RunningSalesforceSandbox,
  extra: Partial<SalesforceConnectorOptions> = {},
): SalesforceConnectorOptions => ({
  instanceUrl: sf.url,
  loginUrl: sf.url,
  accessToken: sf.accessToken,
  refreshToken: sf.refreshToken,
  clientId: sf.clientId,
  clientSecret: sf.clientSecret,
  apiVersion: '62.0',
  orgId: sf.orgId,
  ...extra,
});

async function failure(call: PromiseLike<unknown>): Promise<Error> {
  try {
    await call;
  } catch (err) {
    return err as Error;
  }
  throw new Error('expected the call to fail');
}

const expectNoSecrets = (sf: RunningSalesforceSandbox, err: Error, ...more: string[]) => {
  for (const secret of [sf.accessToken, sf.refreshToken, sf.clientSecret, ...more]) {
    expect(err.message).not.toContain(secret);
  }
};

describe('getAccount', () => {
  it('reads the standard fields and ours, keyed by our names, as strings or null', async () => {
    const sf = await start();
    const account = sf.store.create('Account', {
      Name: 'Austin ISD',
      BillingState: 'TX',
      BillingCity: 'Austin',
      BillingPostalCode: '78703',
      Website: 'austinisd.org',
      BuyerIntel_Population__c: 74000.5,
      BuyerIntel_IsPublic__c: true,
    });
    const connector = createSalesforceConnector(optionsFor(sf));
    expect(connector).toMatchObject({
      kind: 'salesforce',
      tenant: sf.orgId,
      maxUpdateBatch: 200,
      maxNoteBatch: 200,
    });
    const snapshot = await connector.getAccount(account.id, [
      'buyer_intel_population',
      'buyer_intel_status',
      'buyer_intel_is_public',
    ]);
    expect(snapshot).toEqual({
      id: account.id,
      name: 'Austin ISD',
      state: 'TX',
      city: 'Austin',
      // The billing address is evidence for matching.
      zip: '78703',
      street: null,
      website: 'austinisd.org',
      // Whoever owns the Account (here the user who created it) gets its follow-up tasks.
      ownerId: sf.store.userId,
      fields: { buyer_intel_population: '74000.5', buyer_intel_status: null, buyer_intel_is_public: 'true' },
    });
    expect(sf.stats.count('sobjects.retrieve', 200)).toBe(1);
  });

  it('throws AccountNotFoundError for an unknown, deleted or malformed id', async () => {
    const sf = await start();
    const connector = createSalesforceConnector(optionsFor(sf));
    const missing = to18('001Dn0000000001');
    const notFound = await failure(connector.getAccount(missing, []));
    expect(notFound).toBeInstanceOf(AccountNotFoundError);
    expect(sf.stats.count('sobjects.retrieve', 404)).toBe(1);

    const gone = sf.store.create('Account', { Name: 'Gone' });
    sf.store.delete('Account', gone.id);
    expect(await failure(connector.getAccount(gone.id, []))).toBeInstanceOf(AccountNotFoundError);
    expect(await failure(connector.getAccount("x' OR 1", []))).toBeInstanceOf(AccountNotFoundError);
  });

  it('batch reads leave out an id Salesforce would refuse in SOQL, and match a 15-character id', async () => {
    const sf = await start();
    const connector = createSalesforceConnector(optionsFor(sf));
    const a = sf.store.create('Account', { Name: 'Austin' }).id;
    sf.store.create('Task', { WhatId: a, Subject: 'n', BuyerIntel_Key__c: 'bi-1' });
    // 18 characters of the right shape whose case checksum is wrong: Salesforce answers the whole query
    // INVALID_QUERY_FILTER_OPERATOR "invalid ID field", so it must not reach the IN (...) list.
    const badChecksum = `${a.slice(0, 15)}${a.slice(15) === 'AAA' ? 'BBB' : 'AAA'}`;
    const read = await connector.getAccounts([badChecksum, a.slice(0, 15), a], []);
    expect(read.map((s) => s.id)).toEqual([a.slice(0, 15), a]);
    const keys = await connector.existingNoteKeysOf([badChecksum, a]);
    expect(keys.get(a)).toEqual(['bi-1']);
    expect(await failure(connector.getAccount(badChecksum, []))).toBeInstanceOf(AccountNotFoundError);
  });

  it('an unknown field is a permanent SalesforceRequestError', async () => {
    const sf = await start();
    const account = sf.store.create('Account', { Name: 'Travis County' });
    const connector = createSalesforceConnector(optionsFor(sf));
    const err = await failure(connector.getAccount(account.id, ['buyer_intel_nope']));
    expect(err.name).toBe('SalesforceRequestError');
    expect(err).toMatchObject({ permanent: true, errorCode: 'INVALID_FIELD' });
  });
});

describe('account ids', () => {
  const ours = [
    'BuyerIntel_MatchNcesId__c',
    'BuyerIntel_MatchIpedsId__c',
    'BuyerIntel_MatchCensusId__c',
    'BuyerIntel_MatchBuyerId__c',
  ];

  it('reads our id fields as text, leading zeros kept, an empty one left out', async () => {
    const sf = await start();
    const connector = createSalesforceConnector(optionsFor(sf));
    expect(connector.idFields?.map((f) => [f.kind, f.name, f.ours])).toEqual([
      ['nces', ours[0], true],
      ['ipeds', ours[1], true],
      ['census', ours[2], true],
      ['buyer', ours[3], true],
    ]);
    for (const name of ours) sf.store.defineCustomField('Account', name);
    const account = sf.store.create('Account', {
      Name: 'LAUSD',
      BillingState: 'CA',
      BuyerIntel_MatchNcesId__c: ' 0602316 ',
      BuyerIntel_MatchIpedsId__c: '',
    });
    const snapshot = await connector.getAccount(account.id, []);
    expect(snapshot.ids).toEqual({ nces: '0602316' });
    const page = await connector.listAccounts([]);
    expect(page.accounts.find((a) => a.id === account.id)?.ids).toEqual({ nces: '0602316' });
    expect(sf.stats.count('sobjects.retrieve', 400)).toBe(0);
  });

  it('an org without our id fields (setup not run since) reads accounts with one refused call, once', async () => {
    const sf = await start();
    const account = sf.store.create('Account', { Name: 'Travis County', BillingState: 'TX' });
    const connector = createSalesforceConnector(optionsFor(sf));
    for (let i = 0; i < 3; i++) {
      const snapshot = await connector.getAccount(account.id, ['buyer_intel_status']);
      expect(snapshot).toMatchObject({ name: 'Travis County', fields: { buyer_intel_status: null } });
      expect(snapshot.ids).toBeUndefined();
    }
    expect(sf.stats.count('sobjects.retrieve', 400)).toBe(1);
    expect(sf.stats.count('sobjects.retrieve', 200)).toBe(3);
    expect((await connector.listAccounts([])).accounts.map((a) => a.name)).toEqual(['Travis County']);
    expect(sf.stats.count('query', 400)).toBe(0);
  });

  it('reads the fields SALESFORCE_ID_FIELDS names; one the org lacks is skipped', async () => {
    const sf = await start();
    sf.store.defineCustomField('Account', 'District_NCES__c');
    sf.store.defineCustomField('Account', 'Census_GID__c');
    const account = sf.store.create('Account', {
      Name: 'Fresno USD',
      District_NCES__c: '0631021',
      Census_GID__c: '06101010100000',
    });
    const connector = createSalesforceConnector(
      optionsFor(sf, {
        idFieldNames: { nces: 'District_NCES__c', census: 'Census_GID__c', buyer: 'Missing_Buyer__c' },
      }),
    );
    expect(connector.idFields?.every((f) => !f.ours)).toBe(true);
    expect((await connector.getAccount(account.id, [])).ids).toEqual({
      nces: '0631021',
      census: '06101010100000',
    });
    expect(sf.stats.count('sobjects.retrieve', 400)).toBe(1);
  });

  it('setup’s id fields are created through the Metadata API; the org then reads and takes writes of them', async () => {
    const sf = await start();
    const connector = createSalesforceConnector(optionsFor(sf));
    const { definitions, problems } = idFieldDefinitions(connector.idFields ?? [], DEFAULT_MAPPING);
    expect(problems).toEqual([]);
    const result = await connector.ensureFields(definitions);
    expect(result.created).toEqual(ours.map((n) => `Account.${n}`));
    for (const name of ours) expect(sf.store.fields('Account')).toContain(name);
    const account = sf.store.create('Account', { Name: 'Columbus' });
    const written = await connector.updateAccounts([
      { accountId: account.id, fields: { BuyerIntel_MatchCensusId__c: '13222899700000' } },
    ]);
    expect(written).toEqual([{ accountId: account.id, ok: true }]);
    expect((await connector.getAccount(account.id, [])).ids).toEqual({ census: '13222899700000' });
  });
});

describe('id fields an org lacks', () => {
  const field = (name: string, ours: boolean) => ({ kind: 'nces' as const, name, ours });
  const lacking = (name: string) =>
    new SalesforceRequestError(`No such column '${name}' on sobject of type Account`, {
      operation: 'sobject.Account.retrieve',
      errorCode: 'INVALID_FIELD',
    });

  it('are left out for ten minutes, then asked for again (setup may have made them)', async () => {
    let clock = 0;
    const reads = new IdFieldReads(
      [field('BuyerIntel_MatchNcesId__c', true), field('BuyerIntel_MatchIpedsId__c', true)],
      () => clock,
    );
    const asked: string[][] = [];
    let exists = false;
    const read = (fields: readonly { name: string }[]) => {
      asked.push(fields.map((f) => f.name));
      const first = fields[0];
      return !exists && first ? Promise.reject(lacking(first.name)) : Promise.resolve(fields.length);
    };
    expect(await reads.run(read)).toBe(0);
    // One refused call drops all of ours, made by setup together.
    expect(asked).toEqual([['BuyerIntel_MatchNcesId__c', 'BuyerIntel_MatchIpedsId__c'], []]);
    clock += 9 * 60_000;
    expect(await reads.run(read)).toBe(0);
    exists = true;
    clock += 60_000;
    expect(await reads.run(read)).toBe(2);
    expect(asked).toHaveLength(4);
  });

  it('drops only the named field of the customer’s, and passes any other error on', async () => {
    const reads = new IdFieldReads([field('NCES__c', false), field('IPEDS__c', false)]);
    const asked: string[][] = [];
    const result = await reads.run((fields) => {
      asked.push(fields.map((f) => f.name));
      return fields.some((f) => f.name === 'NCES__c')
        ? Promise.reject(lacking('nces__c'))
        : Promise.resolve('ok');
    });
    expect(result).toBe('ok');
    expect(asked).toEqual([['NCES__c', 'IPEDS__c'], ['IPEDS__c']]);
    const other = lacking('Population__c');
    await expect(reads.run(() => Promise.reject(other))).rejects.toBe(other);
  });
});

describe('updateAccounts', () => {
  it('writes 50 accounts in one collection call; a deleted and a bad id fail permanently alone', async () => {
    const sf = await start();
    const accounts = Array.from({ length: 48 }, (_, i) =>
      sf.store.create('Account', { Name: `District ${i}` }),
    );
    const deleted = sf.store.create('Account', { Name: 'Deleted' });
    sf.store.delete('Account', deleted.id);
    const ids = [...accounts.map((a) => a.id)];
    ids.splice(10, 0, deleted.id);
    ids.splice(20, 0, '001xx000003DGb2999');
    const connector = createSalesforceConnector(optionsFor(sf));
    const results = await connector.updateAccounts(
      ids.map((id, i) => ({
        accountId: id,
        fields: { buyer_intel_population: String(1000 + i), buyer_intel_status: i === 0 ? null : 'enriched' },
      })),
    );
    expect(sf.stats.count('composite.sobjects.update')).toBe(1);
    expect(results).toHaveLength(50);
    expect(results.map((r) => r.accountId)).toEqual(ids);
    expect(results[10]).toMatchObject({ ok: false, error: { permanent: true, status: 404 } });
    expect(results[20]).toMatchObject({
      ok: false,
      error: { permanent: true, message: expect.stringContaining('MALFORMED_ID') },
    });
    expect(results.filter((r) => r.ok)).toHaveLength(48);
    const first = sf.store.find('Account', accounts[0]?.id ?? '');
    expect(first.values.get('BuyerIntel_Population__c')).toBe('1000');
    expect(first.values.get('BuyerIntel_Status__c')).toBeNull();
    expect(sf.store.find('Account', accounts[47]?.id ?? '').values.get('BuyerIntel_Status__c')).toBe(
      'enriched',
    );
  });

  it('an unknown field fails its records permanently; a 500 is a SalesforceTransientError', async () => {
    const sf = await start();
    const a = sf.store.create('Account', { Name: 'A' });
    const b = sf.store.create('Account', { Name: 'B' });
    const connector = createSalesforceConnector(optionsFor(sf));
    const results = await connector.updateAccounts([
      { accountId: a.id, fields: { buyer_intel_nope: 'x' } },
      { accountId: b.id, fields: { buyer_intel_status: 'ok' } },
    ]);
    expect(results[0]).toMatchObject({ ok: false, error: { permanent: true } });
    expect(results[1]).toEqual({ accountId: b.id, ok: true });

    sf.faults.inject({ kind: 'status', status: 500, match: 'composite.sobjects.update' });
    const err = await failure(
      connector.updateAccounts([{ accountId: a.id, fields: { buyer_intel_status: 'x' } }]),
    );
    expect(err).toBeInstanceOf(SalesforceTransientError);
    expect(err).toMatchObject({ permanent: false, errorCode: 'UNKNOWN_EXCEPTION' });
  });
});

describe('notes as Tasks', () => {
  it('creates Tasks in one call and reads their keys back with query paging', async () => {
    const sf = await start({ queryBatchSize: 4 });
    const account = sf.store.create('Account', { Name: 'Round Rock ISD' });
    const other = sf.store.create('Account', { Name: 'Other' });
    const connector = createSalesforceConnector(optionsFor(sf));
    const drafts: NoteDraft[] = Array.from({ length: 9 }, (_, i) => ({
      accountId: account.id,
      dedupeKey: `buyer-1:signal-${i}`,
      title: `RFP ${i}: ${'x'.repeat(300)}`,
      body: `Line one\nLine two ${i}`,
      occurredAt: '2026-03-04T15:00:00Z',
    }));
    drafts.push({ ...drafts[0], accountId: other.id, dedupeKey: 'buyer-2:signal-0' } as NoteDraft);
    const results = await connector.createNotes(drafts);
    expect(sf.stats.count('composite.sobjects.create')).toBe(1);
    expect(results.every((r) => r.ok)).toBe(true);
    const first = results[0];
    const task = sf.store.find('Task', first?.ok ? first.noteId : '');
    expect(Object.fromEntries(task.values)).toMatchObject({
      WhatId: account.id,
      Status: 'Completed',
      ActivityDate: '2026-03-04',
      BuyerIntel_Key__c: 'buyer-1:signal-0',
      Description: 'Line one\nLine two 0\n\nbuyer-intel-key: buyer-1:signal-0',
    });
    expect(String(task.values.get('Subject'))).toHaveLength(255);

    const keys = await connector.existingNoteKeys(account.id);
    expect(keys).toEqual(new Set(drafts.slice(0, 9).map((d) => d.dedupeKey)));
    expect(sf.stats.count('queryMore', 200)).toBe(2);
    expect(await connector.existingNoteKeys(other.id)).toEqual(new Set(['buyer-2:signal-0']));
    await expect(connector.existingNoteKeys("001' OR Id != '")).rejects.toBeInstanceOf(AccountNotFoundError);
  });
});

describe('notes as Tasks on a deleted or unknown Account', () => {
  it('fails those Tasks permanently and creates the others, in one call', async () => {
    const sf = await start();
    const account = sf.store.create('Account', { Name: 'Austin' }).id;
    const gone = sf.store.create('Account', { Name: 'Gone' }).id;
    sf.store.delete('Account', gone);
    const connector = createSalesforceConnector(optionsFor(sf));
    const draft = (accountId: string, dedupeKey: string): NoteDraft => ({
      accountId,
      dedupeKey,
      title: 'RFP',
      body: 'Due soon',
      occurredAt: '2026-03-04T15:00:00Z',
    });
    const results = await connector.createNotes([
      draft(account, 'bi-1'),
      draft(gone, 'bi-2'),
      draft(to18('001Dn0000000001'), 'bi-3'),
    ]);
    expect(sf.stats.count('composite.sobjects.create')).toBe(1);
    expect(results[0]).toMatchObject({ dedupeKey: 'bi-1', ok: true });
    expect(results[1]).toMatchObject({
      dedupeKey: 'bi-2',
      ok: false,
      error: { status: 404, permanent: true, message: expect.stringContaining('ENTITY_IS_DELETED') },
    });
    expect(results[2]).toMatchObject({
      dedupeKey: 'bi-3',
      ok: false,
      error: { permanent: true, message: expect.stringContaining('INVALID_CROSS_REFERENCE_KEY') },
    });
    expect(sf.store.list('Task').map((t) => t.values.get('WhatId'))).toEqual([account]);
  });
});

describe('notes as ContentNotes', () => {
  const b64 = (text: string) => Buffer.from(text, 'utf8').toString('base64');
  const draftFor = (accountId: string, dedupeKey: string, body = 'Due Date: 2026-10-01'): NoteDraft => ({
    accountId,
    dedupeKey,
    title: `RFP: ${dedupeKey}`,
    body,
    occurredAt: '2026-03-04T15:00:00Z',
  });
  const startNotes = async () => {
    const sf = await start();
    sf.store.defineCustomField('ContentVersion', 'BuyerIntel_Key__c');
    return { sf, connector: createSalesforceConnector(optionsFor(sf, { notes: 'content-note' })) };
  };
  /** The notes a person sees on the Account (its ContentDocumentLinks), as Salesforce answers them. */
  async function notesOnAccount(sf: RunningSalesforceSandbox, accountId: string) {
    const conn = new Connection({ instanceUrl: sf.url, accessToken: sf.accessToken, version: '62.0' });
    const links = await conn.query<{ ContentDocumentId: string; ShareType: string }>(
      `SELECT ContentDocumentId, ShareType FROM ContentDocumentLink WHERE LinkedEntityId = '${accountId}'`,
    );
    return Promise.all(
      links.records.map(async (link) => {
        const note = (await conn.sobject('ContentNote').retrieve(link.ContentDocumentId)) as {
          Id: string;
          Title: string;
        };
        const content = await conn.request<string>(
          `/services/data/v62.0/sobjects/ContentNote/${note.Id}/Content`,
        );
        return { id: note.Id, title: note.Title, content: String(content), shareType: link.ShareType };
      }),
    );
  }

  it('creates notes linked to their Account in four calls; the same drafts again create nothing', async () => {
    const { sf, connector } = await startNotes();
    const account = sf.store.create('Account', { Name: 'Round Rock ISD' }).id;
    const other = sf.store.create('Account', { Name: 'Other' }).id;
    const drafts = [
      draftFor(account, 'bi-1', 'Due <b>soon</b> & "fast"\n\nLink: https://bids.example.gov/?a=1&b=2'),
      draftFor(other, 'bi-2'),
      draftFor(account, 'bi-3'),
      draftFor(account, 'bi-1', 'the same key again'),
    ];
    const results = await connector.createNotes(drafts);
    expect(results.map((r) => [r.dedupeKey, r.ok])).toEqual([
      ['bi-1', true],
      ['bi-2', true],
      ['bi-3', true],
      ['bi-1', true],
    ]);
    expect(results[3]).toEqual(results[0]);
    const noteIds = results.map((r) => (r.ok ? r.noteId : ''));
    for (const id of noteIds) expect(id).toMatch(/^069[A-Za-z0-9]{15}$/);
    // Notes, their versions (one query), their keys, their links: four calls for the batch.
    expect(sf.stats.count('composite.sobjects.create')).toBe(2);
    expect(sf.stats.count('query')).toBe(1);
    expect(sf.stats.count('composite.sobjects.update')).toBe(1);
    expect(sf.stats.count('composite.sobjects.delete')).toBe(0);

    const seen = await notesOnAccount(sf, account);
    expect(seen).toEqual([
      {
        id: noteIds[0],
        title: 'RFP: bi-1',
        content:
          '<p>Due &lt;b&gt;soon&lt;/b&gt; &amp; &quot;fast&quot;</p><p><br></p><p>Link: https://bids.example.gov/?a=1&amp;b=2</p>',
        shareType: 'V',
      },
      { id: noteIds[2], title: 'RFP: bi-3', content: '<p>Due Date: 2026-10-01</p>', shareType: 'V' },
    ]);
    expect(await connector.existingNoteKeys(account)).toEqual(new Set(['bi-1', 'bi-3']));
    expect(await connector.existingNoteKeys(other)).toEqual(new Set(['bi-2']));

    // What a worker does with the same drafts again (a re-run, a redelivered job): nothing to create.
    for (let run = 0; run < 2; run++) {
      const onCrm = new Map<string, Set<string>>();
      for (const id of [account, other]) onCrm.set(id, await connector.existingNoteKeys(id));
      const missing = drafts.filter((d) => !onCrm.get(d.accountId)?.has(d.dedupeKey));
      expect(missing).toEqual([]);
      expect(await connector.createNotes(missing)).toEqual([]);
    }
    expect(await notesOnAccount(sf, account)).toHaveLength(2);
    expect(sf.store.list('ContentNote')).toHaveLength(3);

    // A person edits a note in Salesforce (a new version without our key): it still counts as created.
    sf.store.update('ContentNote', noteIds[2] ?? '', { Content: b64('<p>edited</p>') });
    expect(await connector.existingNoteKeys(account)).toEqual(new Set(['bi-1', 'bi-3']));
  });

  it('fails a note for a deleted or unknown account permanently and deletes it again', async () => {
    const { sf, connector } = await startNotes();
    const account = sf.store.create('Account', { Name: 'Austin' }).id;
    const gone = sf.store.create('Account', { Name: 'Gone' }).id;
    sf.store.delete('Account', gone);
    const results = await connector.createNotes([
      draftFor(account, 'bi-1'),
      draftFor(gone, 'bi-2'),
      draftFor(to18('001Dn0000000001'), 'bi-3'),
    ]);
    expect(results[0]).toMatchObject({ dedupeKey: 'bi-1', ok: true });
    expect(results[1]).toMatchObject({
      dedupeKey: 'bi-2',
      ok: false,
      error: { status: 404, permanent: true, message: expect.stringContaining('ENTITY_IS_DELETED') },
    });
    expect(results[2]).toMatchObject({
      dedupeKey: 'bi-3',
      ok: false,
      error: { permanent: true, message: expect.stringContaining('INVALID_CROSS_REFERENCE_KEY') },
    });
    // The two half-made notes were deleted in one call; only the linked one is left.
    expect(sf.stats.count('composite.sobjects.delete')).toBe(1);
    expect(sf.store.list('ContentNote').map((n) => n.id)).toEqual([results[0]?.ok ? results[0].noteId : '']);
  });

  it('a failed key write deletes the batch’s new notes and is a SalesforceTransientError', async () => {
    const { sf, connector } = await startNotes();
    const account = sf.store.create('Account', { Name: 'Austin' }).id;
    sf.faults.inject({ kind: 'status', status: 500, match: 'composite.sobjects.update' });
    const err = await failure(connector.createNotes([draftFor(account, 'bi-1'), draftFor(account, 'bi-2')]));
    expect(err).toBeInstanceOf(SalesforceTransientError);
    expect(sf.store.list('ContentNote')).toEqual([]);
    expect(await connector.existingNoteKeys(account)).toEqual(new Set());
    // The retry makes them.
    const results = await connector.createNotes([draftFor(account, 'bi-1'), draftFor(account, 'bi-2')]);
    expect(results.every((r) => r.ok)).toBe(true);
    expect(await connector.existingNoteKeys(account)).toEqual(new Set(['bi-1', 'bi-2']));
  });

  it('ensureFields creates the key field on ContentVersion, and on Task for follow-up tasks', async () => {
    const sf = await startSalesforceSandbox();
    sandboxes.push(sf);
    const connector = createSalesforceConnector(optionsFor(sf, { notes: 'content-note' }));
    const result = await connector.ensureFields([]);
    expect(result).toEqual({
      created: ['ContentVersion.BuyerIntel_Key__c', 'Task.BuyerIntel_Key__c'],
      existing: [],
    });
    expect(sf.store.fields('ContentVersion')).toContain('BuyerIntel_Key__c');
    expect(sf.store.fields('Task')).toContain('BuyerIntel_Key__c');
  });

  it('refuses an unknown notes option', () => {
    const sf = sandboxes[0];
    if (!sf) throw new Error('no sandbox');
    expect(() =>
      createSalesforceConnector(optionsFor(sf, { notes: 'attachment' as unknown as 'task' })),
    ).toThrow(/notes must be/);
  });
});

describe('sessions, limits and secrets', () => {
  it('an expired session is refreshed once by jsforce, the call succeeds and onRefresh gets the tokens', async () => {
    const sf = await start({ auth: { rotateRefreshTokens: true } });
    const account = sf.store.create('Account', { Name: 'Austin Fire Dept' });
    const refreshed: { token: string; refreshToken: string | undefined }[] = [];
    const connector = createSalesforceConnector(
      optionsFor(sf, { onRefresh: (token, refreshToken) => refreshed.push({ token, refreshToken }) }),
    );
    expect(sf.auth.expire(sf.accessToken)).toBe(1);
    expect((await connector.getAccount(account.id, [])).name).toBe('Austin Fire Dept');
    expect(refreshed).toHaveLength(1);
    expect(refreshed[0]?.token).not.toBe(sf.accessToken);
    expect(refreshed[0]?.refreshToken).toMatch(/^5Aep861/);
    expect(sf.stats.count('oauth2.token', 200)).toBe(1);

    // The rotated refresh token is the one used next time (the old one was revoked).
    sf.auth.expire();
    expect((await connector.getAccount(account.id, [])).name).toBe('Austin Fire Dept');
    expect(refreshed).toHaveLength(2);
  });

  it('a refused refresh is a CrmAuthError without any token in its message', async () => {
    const sf = await start();
    const badRefresh = '5Aep861-not-a-valid-refresh-token';
    const connector = createSalesforceConnector(optionsFor(sf, { refreshToken: badRefresh }));
    sf.auth.expire();
    const err = await failure(connector.getAccount(to18('001Dn0000000001'), []));
    expect(err).toBeInstanceOf(CrmAuthError);
    expectNoSecrets(sf, err, badRefresh);

    const noRefresh = createSalesforceConnector(optionsFor(sf, { refreshToken: undefined }));
    const err2 = await failure(noRefresh.existingNoteKeys(to18('001Dn0000000001')));
    expect(err2).toBeInstanceOf(CrmAuthError);
    expectNoSecrets(sf, err2);
  });

  it('REQUEST_LIMIT_EXCEEDED is a CrmRateLimitError of 60 s', async () => {
    const sf = await start({ dailyApiRequests: 1 });
    const account = sf.store.create('Account', { Name: 'Kansas City' });
    // No id fields, whose absence from this org the first read would spend the one call learning.
    const connector = createSalesforceConnector(optionsFor(sf, { idFieldNames: {} }));
    await connector.getAccount(account.id, []);
    const errors = [
      await failure(connector.getAccount(account.id, [])),
      await failure(
        connector.updateAccounts([{ accountId: account.id, fields: { buyer_intel_status: 'x' } }]),
      ),
      await failure(connector.existingNoteKeys(account.id)),
    ];
    for (const err of errors) {
      expect(err).toBeInstanceOf(CrmRateLimitError);
      expect(err).toMatchObject({
        retryAfterMs: 60_000,
        policy: 'DAILY_API_REQUESTS',
        permanent: false,
        // One org's allocation: only that org's jobs wait.
        limit: 'tenant',
      });
      expect(err.message).toContain('api-usage 1/1');
      expectNoSecrets(sf, err);
    }
  });

  it('a network failure is a SalesforceTransientError', async () => {
    const sf = await start();
    const connector = createSalesforceConnector(optionsFor(sf));
    const id = sf.store.create('Account', { Name: 'Lubbock' }).id;
    sandboxes.splice(sandboxes.indexOf(sf), 1);
    await sf.close();
    const err = await failure(
      connector.updateAccounts([{ accountId: id, fields: { buyer_intel_status: 'x' } }]),
    );
    expect(err).toBeInstanceOf(SalesforceTransientError);
    expectNoSecrets(sf, err);
  });

  it('is built by kind through the registry, from its config section, keeping the org’s limits in Redis', async () => {
    const sf = await start();
    const redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
    const prefix = `test-sf-registry-${randomUUID().slice(0, 8)}`;
    try {
      const runtime = { redis, prefix, recordCall: () => {}, log: console };
      const { connections, eventSources } = crmOf('salesforce').connect(
        {
          app: { clientId: sf.clientId, clientSecret: sf.clientSecret, loginUrl: sf.url, apiVersion: '62.0' },
          org: { orgId: sf.orgId, instanceUrl: sf.url, refreshToken: sf.refreshToken },
        },
        runtime,
      );
      expect(eventSources).toEqual([]);
      expect(connections.map((c) => c.tenant)).toEqual([sf.orgId.slice(0, 15)]);
      const connector = connections[0]?.connector;
      expect(connector?.kind).toBe('salesforce');
      expect((await connector?.listAccounts([], { limit: 1 }))?.accounts).toBeDefined();
      const state = await readBudget(redis, prefix, 'salesforce', sf.orgId.slice(0, 15));
      expect(state.daily).toMatchObject({ limit: 15_000 });
      expect(state.window).toBeUndefined();
      expect(() => createSalesforceConnector({ ...optionsFor(sf), apiVersion: '' })).toThrow(/apiVersion/);
    } finally {
      const keys = await redis.keys(`${prefix}:*`);
      if (keys.length) await redis.del(...keys);
      redis.disconnect();
    }
  });
});

describe('ensureFields', () => {
  it('creates every field of the default mapping and the Task key field, then nothing on a re-run', async () => {
    const sf = await startSalesforceSandbox();
    sandboxes.push(sf);
    const connector = createSalesforceConnector(optionsFor(sf));
    const definitions = fieldDefinitions(DEFAULT_MAPPING);
    const expected = [
      ...definitions.map((d) => `Account.${defaultFieldName(d.name)}`),
      noteKeyFieldMetadata().fullName,
    ];

    const first = await connector.ensureFields(definitions);
    expect(first.created).toEqual(expected);
    expect(first.existing).toEqual([]);
    for (const name of expected) {
      const [type, field] = name.split('.') as ['Account' | 'Task', string];
      expect(sf.store.fields(type)).toContain(field);
    }
    // At most 10 components per Metadata API call.
    expect(sf.stats.count('metadata.upsertMetadata')).toBe(Math.ceil(expected.length / 10));

    const second = await connector.ensureFields(definitions);
    expect(second.created).toEqual([]);
    expect(second.existing).toEqual(expected);

    const account = sf.store.create('Account', { Name: 'Austin ISD' });
    const status = definitions.find((d) => d.type === 'string');
    if (!status) throw new Error('the default mapping has no string field');
    const results = await connector.updateAccounts([
      { accountId: account.id, fields: { [status.name]: 'written by the test' } },
    ]);
    expect(results).toEqual([{ accountId: account.id, ok: true }]);
    expect(sf.store.find('Account', account.id).values.get(defaultFieldName(status.name))).toBe(
      'written by the test',
    );
  });
});

describe('FieldDefinition → CustomField metadata', () => {
  const def = (type: Parameters<typeof toCustomFieldMetadata>[0]['type'], extra = {}) => ({
    name: `buyer_intel_${type}`,
    label: `Buyer ${type}`,
    type,
    description: 'desc',
    ...extra,
  });

  it('translates our names to API names', () => {
    expect(defaultFieldName('buyer_intel_population')).toBe('BuyerIntel_Population__c');
    expect(defaultFieldName('buyer_intel_match_reason')).toBe('BuyerIntel_MatchReason__c');
    expect(defaultFieldName('Website')).toBe('Website');
    expect(defaultFieldName('Custom__c')).toBe('Custom__c');
  });

  it('maps each type', () => {
    const base = { label: expect.any(String), description: 'desc' };
    expect(toCustomFieldMetadata(def('string'), 'BuyerIntel_String__c')).toEqual({
      ...base,
      fullName: 'Account.BuyerIntel_String__c',
      type: 'Text',
      length: 255,
    });
    expect(toCustomFieldMetadata(def('text'), 'BuyerIntel_Text__c')).toMatchObject({
      type: 'LongTextArea',
      length: 32768,
      visibleLines: 5,
    });
    expect(toCustomFieldMetadata(def('number'), 'BuyerIntel_N__c')).toMatchObject({
      type: 'Number',
      precision: 18,
      scale: 2,
    });
    expect(toCustomFieldMetadata(def('date'), 'BuyerIntel_D__c').type).toBe('Date');
    expect(toCustomFieldMetadata(def('datetime'), 'BuyerIntel_Dt__c').type).toBe('DateTime');
    expect(toCustomFieldMetadata(def('url'), 'BuyerIntel_U__c').type).toBe('Url');
    expect(toCustomFieldMetadata(def('bool'), 'BuyerIntel_B__c')).toMatchObject({
      type: 'Checkbox',
      defaultValue: 'false',
    });
    expect(
      toCustomFieldMetadata(
        def('enumeration', {
          options: [
            { value: 'city', label: 'City' },
            { value: 'county', label: 'County' },
          ],
        }),
        'BuyerIntel_Kind__c',
      ),
    ).toMatchObject({
      type: 'Picklist',
      valueSet: {
        valueSetDefinition: {
          sorted: false,
          value: [
            { fullName: 'city', label: 'City', default: false },
            { fullName: 'county', label: 'County', default: false },
          ],
        },
      },
    });
    expect(
      toCustomFieldMetadata({ ...def('string'), label: 'L'.repeat(60) }, 'BuyerIntel_S__c').label,
    ).toHaveLength(40);
    expect(() => toCustomFieldMetadata(def('string'), 'Bad__Name__c')).toThrow(/API name/);
    expect(noteKeyFieldMetadata()).toMatchObject({
      fullName: 'Task.BuyerIntel_Key__c',
      type: 'Text',
      length: 255,
    });
  });
});
