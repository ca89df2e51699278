// The unmodified jsforce 3 against the Salesforce sandbox over real HTTP: sObject rows, collections with
// a per-record failure, query paging, the refresh on an expired session, the daily API limit and
// Sforce-Limit-Info.
import { generateKeyPairSync, sign } from 'node:crypto';
import { Connection } from 'jsforce';
import { afterAll, describe, expect, it } from 'vitest';
import type { SalesforceSandboxOptions } from '../../emulators/salesforce/app.ts';
import { checksumSuffix, isWellFormedId, to18 } from '../../emulators/salesforce/ids.ts';
import { type RunningSalesforceSandbox, startSalesforceSandbox } from '../../emulators/salesforce/server.ts';

const sandboxes: RunningSalesforceSandbox[] = [];
async function start(options: SalesforceSandboxOptions = {}): Promise<RunningSalesforceSandbox> {
  const sandbox = await startSalesforceSandbox(options);
  sandboxes.push(sandbox);
  return sandbox;
}
afterAll(async () => {
  await Promise.all(sandboxes.map((s) => s.close()));
});

const connect = (sf: RunningSalesforceSandbox, accessToken = sf.accessToken) =>
  new Connection({
    instanceUrl: sf.url,
    accessToken,
    refreshToken: sf.refreshToken,
    oauth2: { clientId: sf.clientId, clientSecret: sf.clientSecret, loginUrl: sf.url },
    version: '62.0',
  });

interface SaveResult {
  id?: string;
  success: boolean;
  errors: { statusCode?: string; errorCode?: string; message: string; fields?: string[] }[];
}

async function failure(call: PromiseLike<unknown>): Promise<{ errorCode: string; message: string }> {
  try {
    await call;
  } catch (err) {
    return err as { errorCode: string; message: string };
  }
  throw new Error('expected the call to fail');
}

describe('record ids', () => {
  it('computes the case-safe suffix the documented way', () => {
    // Salesforce's own example pair: 001A0000006Vm9r → 001A0000006Vm9rIAC.
    expect(to18('001A0000006Vm9r')).toBe('001A0000006Vm9rIAC');
    expect(checksumSuffix('000000000000000')).toBe('AAA');
    expect(isWellFormedId('001A0000006Vm9rIAC')).toBe(true);
    expect(isWellFormedId('001A0000006Vm9rAAA')).toBe(false);
  });
});

describe('sObject rows through jsforce', () => {
  it('creates, retrieves (all fields or some) and updates an Account', async () => {
    const sf = await start();
    sf.store.defineCustomField('Account', 'BuyerIntel_Population__c');
    const conn = connect(sf);
    const created = (await conn
      .sobject('Account')
      .create({ Name: 'Austin ISD', BillingState: 'TX' })) as SaveResult;
    expect(created).toEqual({ id: expect.stringMatching(/^001[A-Za-z0-9]{15}$/), success: true, errors: [] });
    const id = created.id ?? '';
    expect(isWellFormedId(id)).toBe(true);

    const full = (await conn.sobject('Account').retrieve(id)) as Record<string, unknown>;
    expect(full).toMatchObject({
      attributes: { type: 'Account', url: `/services/data/v62.0/sobjects/Account/${id}` },
      Id: id,
      Name: 'Austin ISD',
      BillingState: 'TX',
      Website: null,
      OwnerId: expect.stringMatching(/^005/),
      IsDeleted: false,
      BuyerIntel_Population__c: null,
    });
    expect(String(full.CreatedDate)).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}\+0000$/);

    const updated = await conn
      .sobject('Account')
      .update({ Id: id, Website: 'austinisd.org', buyerintel_population__c: 74000 });
    expect(updated).toEqual({ id, success: true, errors: [] });
    const some = await conn
      .sobject('Account')
      .retrieve(id, { fields: ['Name', 'Website', 'BuyerIntel_Population__c'] });
    expect(some).toEqual({
      attributes: { type: 'Account', url: `/services/data/v62.0/sobjects/Account/${id}` },
      Name: 'Austin ISD',
      Website: 'austinisd.org',
      BuyerIntel_Population__c: 74000,
    });
  });

  it('answers Salesforce error arrays that jsforce turns into errorCodes', async () => {
    const sf = await start();
    const conn = connect(sf);
    const missing = await failure(conn.sobject('Account').retrieve(to18('001Dn0000000001')));
    expect(missing.errorCode).toBe('NOT_FOUND');
    const bad = await failure(conn.sobject('Account').create({ Name: 'X', NoSuchField: 1 }));
    expect(bad).toMatchObject({
      errorCode: 'INVALID_FIELD',
      message: "No such column 'NoSuchField' on sobject of type Account",
    });
    const readOnly = await failure(
      conn.sobject('Account').create({ Name: 'X', CreatedDate: '2020-01-01T00:00:00Z' }),
    );
    expect(readOnly.errorCode).toBe('INVALID_FIELD_FOR_INSERT_UPDATE');
    const noName = await failure(conn.sobject('Account').create({ Website: 'x.org' }));
    expect(noName.errorCode).toBe('REQUIRED_FIELD_MISSING');

    const res = await fetch(`${sf.url}/services/data/v62.0/sobjects/Account`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${sf.accessToken}`, 'Content-Type': 'application/json' },
      body: '{"Name": ',
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual([{ message: expect.any(String), errorCode: 'JSON_PARSER_ERROR' }]);
  });

  it('updates a collection with one bad id: per-record results in order, the others written', async () => {
    const sf = await start();
    const conn = connect(sf);
    const a = sf.store.create('Account', { Name: 'Travis County' });
    const b = sf.store.create('Account', { Name: 'Round Rock ISD' });
    const results = (await conn.sobject('Account').update([
      { Id: a.id, Industry: 'Government' },
      { Id: '001xx000003DGb2999', Industry: 'Government' },
      { Id: b.id, Industry: 'Education' },
    ])) as SaveResult[];
    expect(results).toEqual([
      { id: a.id, success: true, errors: [] },
      {
        success: false,
        errors: [
          {
            statusCode: 'MALFORMED_ID',
            message: 'Account ID: id value of incorrect type: 001xx000003DGb2999',
            fields: ['Id'],
          },
        ],
      },
      { id: b.id, success: true, errors: [] },
    ]);
    expect(sf.store.find('Account', a.id).values.get('Industry')).toBe('Government');
    expect(sf.store.find('Account', b.id).values.get('Industry')).toBe('Education');
    expect(sf.stats.count('composite.sobjects.update', 200)).toBe(1);

    const rolledBack = (await conn.sobject('Account').update(
      [
        { Id: a.id, Industry: 'Other' },
        { Id: b.id, Nope__c: 1 },
      ],
      { allOrNone: true },
    )) as SaveResult[];
    expect(rolledBack.map((r) => r.errors[0]?.statusCode)).toEqual([
      'ALL_OR_NONE_OPERATION_ROLLED_BACK',
      'INVALID_FIELD',
    ]);
    expect(sf.store.find('Account', a.id).values.get('Industry')).toBe('Government');
  });

  it('refuses a collection of more than 200 records', async () => {
    const sf = await start();
    const res = await fetch(`${sf.url}/services/data/v62.0/composite/sobjects`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${sf.accessToken}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({
        allOrNone: false,
        records: Array.from({ length: 201 }, (_, i) => ({ attributes: { type: 'Account' }, Name: `A${i}` })),
      }),
    });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { errorCode: string }[])[0]?.errorCode).toBe('EXCEEDED_ID_LIMIT');
    expect(sf.store.list('Account')).toHaveLength(0);
  });

  it('deletes a collection by ids: per-id results in order, at most 200 ids', async () => {
    const sf = await start();
    const conn = connect(sf);
    const account = sf.store.create('Account', { Name: 'Austin' }).id;
    const task = sf.store.create('Task', { WhatId: account, Subject: 'RFP', Status: 'Completed' }).id;
    const unknown = to18('00TDn0000000001');
    const results = (await conn.sobject('Task').destroy([task, 'not-an-id', unknown, task], {
      allOrNone: false,
    })) as SaveResult[];
    expect(results.map((r) => [r.id, r.success, r.errors[0]?.statusCode])).toEqual([
      [task, true, undefined],
      // Salesforce's documented answer for a malformed id carries no id.
      [undefined, false, 'MALFORMED_ID'],
      [unknown, false, 'NOT_FOUND'],
      [task, false, 'ENTITY_IS_DELETED'],
    ]);
    expect((await conn.query(`SELECT Id FROM Task WHERE WhatId = '${account}'`)).totalSize).toBe(0);

    const kept = sf.store.create('Task', { WhatId: account, Subject: 'Bond', Status: 'Completed' }).id;
    const tooMany = await failure(conn.sobject('Task').destroy(Array.from({ length: 201 }, () => kept)));
    expect(tooMany.errorCode).toBe('EXCEEDED_ID_LIMIT');
    expect(sf.store.find('Task', kept).id).toBe(kept);
  });
});

describe('Task.WhatId', () => {
  it('refuses a Task on a deleted, unknown or malformed record, single and in a collection', async () => {
    const sf = await start();
    const conn = connect(sf);
    const live = sf.store.create('Account', { Name: 'Live' }).id;
    const gone = sf.store.create('Account', { Name: 'Gone' }).id;
    sf.store.delete('Account', gone);
    const unknown = to18('001Dn0000000009');
    const base = `${sf.url}/services/data/v62.0`;
    const post = async (path: string, body: unknown) => {
      const res = await fetch(`${base}${path}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${sf.accessToken}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      return { status: res.status, body: (await res.json()) as unknown };
    };
    expect(await post('/sobjects/Task', { WhatId: gone, Subject: 's' })).toEqual({
      status: 400,
      body: [{ errorCode: 'ENTITY_IS_DELETED', message: 'entity is deleted', fields: [] }],
    });
    expect(await post('/sobjects/Task', { WhatId: unknown, Subject: 's' })).toEqual({
      status: 400,
      body: [{ errorCode: 'INVALID_CROSS_REFERENCE_KEY', message: 'invalid cross reference id', fields: [] }],
    });
    expect(await post('/sobjects/Task', { WhatId: 'abc', Subject: 's' })).toEqual({
      status: 400,
      body: [
        {
          errorCode: 'MALFORMED_ID',
          message: 'Related To ID: id value of incorrect type: abc',
          fields: ['WhatId'],
        },
      ],
    });
    const results = (await conn.sobject('Task').create(
      [live, gone, unknown, 'abc', live.slice(0, 15)].map((WhatId) => ({ WhatId, Subject: 's' })),
      { allOrNone: false },
    )) as SaveResult[];
    expect(results.map((r) => [r.success, r.errors[0]?.statusCode])).toEqual([
      [true, undefined],
      [false, 'ENTITY_IS_DELETED'],
      [false, 'INVALID_CROSS_REFERENCE_KEY'],
      [false, 'MALFORMED_ID'],
      [true, undefined],
    ]);
    const task = results[0]?.id ?? '';
    const moved = await failure(conn.sobject('Task').update({ Id: task, WhatId: gone }));
    expect(moved.errorCode).toBe('ENTITY_IS_DELETED');
    expect(sf.store.list('Task')).toHaveLength(2);
  });
});

describe('SOQL query through jsforce', () => {
  it('pages across more than two batches with nextRecordsUrl / queryMore', async () => {
    const sf = await start({ queryBatchSize: 4 });
    for (let i = 0; i < 11; i++)
      sf.store.create('Account', { Name: `District ${i}`, BillingState: i % 2 ? 'TX' : 'OK' });
    const conn = connect(sf);

    const first = await conn.query<{ Id: string; Name: string; attributes?: { type: string; url: string } }>(
      'SELECT Id, Name FROM Account ORDER BY Id',
    );
    expect(first.totalSize).toBe(11);
    expect(first.done).toBe(false);
    expect(first.records).toHaveLength(4);
    // jsforce makes the URL absolute; the wire form is relative (checked below).
    expect(first.nextRecordsUrl).toMatch(/\/services\/data\/v62\.0\/query\/01g[A-Za-z0-9]{15}-4$/);
    const raw = await fetch(
      `${sf.url}/services/data/v62.0/query?q=${encodeURIComponent('SELECT Id FROM Account')}`,
      {
        headers: { Authorization: `Bearer ${sf.accessToken}` },
      },
    );
    expect(raw.headers.get('sforce-limit-info')).toMatch(/^api-usage=\d+\/15000$/);
    expect(await raw.json()).toMatchObject({
      totalSize: 11,
      done: false,
      nextRecordsUrl: expect.stringMatching(/^\/services\/data\/v62\.0\/query\/01g[A-Za-z0-9]{15}-4$/),
    });
    expect(first.records[0]?.attributes).toEqual({
      type: 'Account',
      url: `/services/data/v62.0/sobjects/Account/${first.records[0]?.Id}`,
    });

    const all: string[] = first.records.map((r) => r.Name);
    let next = first;
    while (!next.done && next.nextRecordsUrl) {
      next = await conn.queryMore<{ Id: string; Name: string; attributes?: { type: string; url: string } }>(
        next.nextRecordsUrl,
      );
      all.push(...next.records.map((r) => r.Name));
    }
    expect(all).toEqual(Array.from({ length: 11 }, (_, i) => `District ${i}`));
    expect(sf.stats.count('queryMore', 200)).toBe(2);

    const fetched: unknown[] = [];
    await new Promise<void>((resolve, reject) => {
      conn
        .query("SELECT Id FROM Account WHERE BillingState = 'tx'")
        .on('record', (r: unknown) => fetched.push(r))
        .on('end', () => resolve())
        .on('error', reject)
        .run({ autoFetch: true, maxFetch: 100 });
    });
    expect(fetched).toHaveLength(5);

    const bad = await failure(conn.query('SELECT Nope FROM Account'));
    expect(bad.errorCode).toBe('INVALID_FIELD');
  });
});

describe('sessions and limits', () => {
  it('an expired session makes jsforce refresh once and the call succeeds', async () => {
    const sf = await start({ auth: { rotateRefreshTokens: true } });
    const account = sf.store.create('Account', { Name: 'Austin Fire Dept' });
    const conn = connect(sf);
    const refreshed: { token: string; refreshToken?: string }[] = [];
    conn.on('refresh', (token: string, res: { refresh_token?: string }) =>
      refreshed.push({ token, ...(res.refresh_token ? { refreshToken: res.refresh_token } : {}) }),
    );
    expect(sf.auth.expire(sf.accessToken)).toBe(1);

    const record = (await conn.sobject('Account').retrieve(account.id)) as { Name: string };
    expect(record.Name).toBe('Austin Fire Dept');
    expect(refreshed).toHaveLength(1);
    expect(refreshed[0]?.token).not.toBe(sf.accessToken);
    expect(refreshed[0]?.refreshToken).toMatch(/^5Aep861/);
    expect(conn.accessToken).toBe(refreshed[0]?.token);
    expect(sf.stats.count('oauth2.token', 200)).toBe(1);
    expect(sf.stats.count('sobjects.retrieve', 401)).toBe(1);
    expect(sf.stats.count('sobjects.retrieve', 200)).toBe(1);

    const res = await fetch(`${sf.url}/services/data/v62.0/sobjects/Account/${account.id}`, {
      headers: { Authorization: `Bearer ${sf.accessToken}` },
    });
    expect(res.status).toBe(401);
    expect(await res.json()).toEqual([
      { message: 'Session expired or invalid', errorCode: 'INVALID_SESSION_ID' },
    ]);
  });

  it('refuses a revoked refresh token with invalid_grant', async () => {
    const sf = await start({ auth: { rotateRefreshTokens: true } });
    const res = await fetch(`${sf.url}/services/oauth2/token`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'refresh_token',
        client_id: sf.clientId,
        client_secret: sf.clientSecret,
        refresh_token: 'nope',
      }),
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({
      error: 'invalid_grant',
      error_description: 'expired access/refresh token',
    });
  });

  it('grants a session for a JWT bearer assertion signed with the connected app key', async () => {
    const { publicKey, privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const sf = await start({ auth: { jwtPublicKey: publicKey } });
    const b64 = (o: unknown) => Buffer.from(JSON.stringify(o)).toString('base64url');
    const assertion = (claims: Record<string, unknown>) => {
      const input = `${b64({ alg: 'RS256' })}.${b64(claims)}`;
      return `${input}.${sign('RSA-SHA256', Buffer.from(input), privateKey).toString('base64url')}`;
    };
    const exp = Math.floor(Date.now() / 1000) + 180;
    const conn = new Connection({ loginUrl: sf.url, version: '62.0' });
    const userInfo = await conn.authorize({
      grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer',
      assertion: assertion({ iss: sf.clientId, sub: sf.username, aud: sf.url, exp }),
    });
    expect(userInfo.organizationId).toBe(sf.orgId);
    expect(conn.instanceUrl).toBe(sf.url);
    expect(((await conn.query('SELECT Id FROM Account')) as { totalSize: number }).totalSize).toBe(0);

    const wrongAud = await failure(
      new Connection({ loginUrl: sf.url, version: '62.0' }).authorize({
        grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer',
        assertion: assertion({
          iss: sf.clientId,
          sub: sf.username,
          aud: 'https://login.salesforce.com',
          exp,
        }),
      }),
    );
    expect(wrongAud.message).toBe('audience is invalid');
  });

  it('sends Sforce-Limit-Info and answers REQUEST_LIMIT_EXCEEDED past the daily allocation', async () => {
    const sf = await start({ dailyApiRequests: 3 });
    const conn = connect(sf);
    await conn.query('SELECT Id FROM Account');
    expect(conn.limitInfo.apiUsage).toEqual({ used: 1, limit: 3 });
    await conn.query('SELECT Id FROM Account');
    await conn.query('SELECT Id FROM Account');
    expect(conn.limitInfo.apiUsage).toEqual({ used: 3, limit: 3 });
    const refused = await failure(conn.query('SELECT Id FROM Account'));
    expect(refused).toMatchObject({
      errorCode: 'REQUEST_LIMIT_EXCEEDED',
      message: 'TotalRequests Limit exceeded.',
    });
    expect(sf.stats.count('query', 403)).toBe(1);
  });
});

describe('control plane', () => {
  it('reads stats, injects faults and expires sessions over /__sandbox', async () => {
    const sf = await start();
    const conn = connect(sf);
    const put = await fetch(`${sf.url}/__sandbox/faults`, {
      method: 'PUT',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ inject: [{ kind: 'status', status: 500, match: 'sobjects.create' }] }),
    });
    expect(put.status).toBe(200);
    const failed = await failure(conn.sobject('Account').create({ Name: 'Kansas City' }));
    expect(failed.errorCode).toBe('UNKNOWN_EXCEPTION');
    expect(sf.store.list('Account')).toHaveLength(0);
    await conn.sobject('Account').create({ Name: 'Kansas City' });

    const expired = await fetch(`${sf.url}/__sandbox/tokens/expire`, { method: 'POST' });
    expect(await expired.json()).toEqual({ expired: 1 });
    await conn.query('SELECT Id FROM Account');
    const stats = (await (await fetch(`${sf.url}/__sandbox/stats`)).json()) as {
      byOperation: Record<string, Record<string, number>>;
    };
    expect(stats.byOperation).toMatchObject({
      'sobjects.create': { '201': 1, '500': 1 },
      query: { '401': 1, '200': 1 },
      'oauth2.token': { '200': 1 },
    });
  });
});

describe('notes and files (ContentNote, ContentDocument, ContentVersion, ContentDocumentLink)', () => {
  const b64 = (text: string) => Buffer.from(text, 'utf8').toString('base64');
  type Rows = { totalSize: number; records: Record<string, unknown>[] };

  it('creates a ContentNote with its ContentDocument, ContentVersion and owner link', async () => {
    const sf = await start();
    const conn = connect(sf);
    const created = (await conn
      .sobject('ContentNote')
      .create({ Title: 'RFP: Fleet', Content: b64('<p>Due &amp; soon</p>\n<p>Line 2</p>') })) as SaveResult;
    expect(created).toEqual({ id: expect.stringMatching(/^069[A-Za-z0-9]{15}$/), success: true, errors: [] });
    const id = created.id ?? '';
    expect(isWellFormedId(id)).toBe(true);

    const note = (await conn.sobject('ContentNote').retrieve(id)) as Record<string, unknown>;
    expect(note).toMatchObject({
      attributes: { type: 'ContentNote', url: `/services/data/v62.0/sobjects/ContentNote/${id}` },
      Id: id,
      Title: 'RFP: Fleet',
      // base64 fields come back as the URL of the blob.
      Content: `/services/data/v62.0/sobjects/ContentNote/${id}/Content`,
      FileType: 'SNOTE',
      FileExtension: 'snote',
      TextPreview: 'Due & soon Line 2',
      LatestPublishedVersionId: expect.stringMatching(/^068/),
      OwnerId: sf.store.userId,
      IsDeleted: false,
    });
    // Salesforce strips new lines from a note's content.
    const html = await conn.request<string>(`/services/data/v62.0/sobjects/ContentNote/${id}/Content`);
    expect(String(html)).toBe('<p>Due &amp; soon</p><p>Line 2</p>');

    const versions = await conn.query<Record<string, unknown>>(
      `SELECT Id, ContentDocumentId, Title, FileType, IsLatest, VersionNumber, VersionData FROM ContentVersion WHERE ContentDocumentId = '${id}'`,
    );
    expect(versions.records).toEqual([
      {
        attributes: expect.objectContaining({ type: 'ContentVersion' }),
        Id: note.LatestPublishedVersionId,
        ContentDocumentId: id,
        Title: 'RFP: Fleet',
        FileType: 'SNOTE',
        IsLatest: true,
        VersionNumber: '1',
        VersionData: `/services/data/v62.0/sobjects/ContentVersion/${String(note.LatestPublishedVersionId)}/VersionData`,
      },
    ]);
    const doc = (await conn.sobject('ContentDocument').retrieve(id)) as Record<string, unknown>;
    expect(doc).toMatchObject({
      Id: id,
      Title: 'RFP: Fleet',
      FileType: 'SNOTE',
      LatestPublishedVersionId: note.LatestPublishedVersionId,
    });
    // The owner's link (ShareType I) comes with the document.
    const links = await conn.query<Record<string, unknown>>(
      `SELECT LinkedEntityId, ShareType FROM ContentDocumentLink WHERE ContentDocumentId = '${id}'`,
    );
    expect(links.records).toMatchObject([{ LinkedEntityId: sf.store.userId, ShareType: 'I' }]);

    const untitled = await failure(conn.sobject('ContentNote').create({ Content: b64('x') }));
    expect(untitled).toMatchObject({ errorCode: 'REQUIRED_FIELD_MISSING' });
    const direct = await failure(conn.sobject('ContentDocument').create({ Title: 'x' }));
    expect(direct.errorCode).toBe('INVALID_TYPE_FOR_OPERATION');
    const readOnly = await failure(conn.sobject('ContentNote').create({ Title: 'x', FileType: 'PDF' }));
    expect(readOnly.errorCode).toBe('INVALID_FIELD_FOR_INSERT_UPDATE');
  });

  it('links notes through a collection with per-record failures in request order', async () => {
    const sf = await start();
    const conn = connect(sf);
    const account = sf.store.create('Account', { Name: 'Austin' }).id;
    const gone = sf.store.create('Account', { Name: 'Gone' }).id;
    sf.store.delete('Account', gone);
    const notes = (await conn
      .sobject('ContentNote')
      .create(
        [
          { Title: 'One', Content: b64('<p>1</p>') },
          { Title: 'Two', Content: b64('<p>2</p>') },
          { Content: b64('<p>3</p>') },
        ],
        { allOrNone: false },
      )) as SaveResult[];
    expect(notes.map((n) => n.success)).toEqual([true, true, false]);
    expect(notes[2]).toEqual({
      success: false,
      errors: [{ statusCode: 'REQUIRED_FIELD_MISSING', message: expect.any(String), fields: ['Title'] }],
    });
    const [one, two] = notes.map((n) => n.id ?? '');
    const links = (await conn.sobject('ContentDocumentLink').create(
      [
        { ContentDocumentId: one, LinkedEntityId: account, ShareType: 'V' },
        { ContentDocumentId: two, LinkedEntityId: account, ShareType: 'X' },
        { ContentDocumentId: two, LinkedEntityId: to18('001Dn0000000001'), ShareType: 'V' },
        { ContentDocumentId: two, LinkedEntityId: gone, ShareType: 'V' },
        { ContentDocumentId: two, ShareType: 'V' },
        { ContentDocumentId: 'nope', LinkedEntityId: account, ShareType: 'V' },
        { ContentDocumentId: one, LinkedEntityId: account, ShareType: 'V' },
        { ContentDocumentId: two, LinkedEntityId: account, ShareType: 'C' },
      ],
      { allOrNone: false },
    )) as SaveResult[];
    expect(links[0]).toEqual({
      id: expect.stringMatching(/^06A[A-Za-z0-9]{15}$/),
      success: true,
      errors: [],
    });
    expect(links.slice(1, 7).map((r) => [r.success, r.errors[0]?.statusCode, r.errors[0]?.fields])).toEqual([
      [false, 'INVALID_OR_NULL_FOR_RESTRICTED_PICKLIST', ['ShareType']],
      [false, 'INVALID_CROSS_REFERENCE_KEY', []],
      [false, 'ENTITY_IS_DELETED', []],
      [false, 'REQUIRED_FIELD_MISSING', ['LinkedEntityId']],
      [false, 'MALFORMED_ID', ['ContentDocumentId']],
      [false, 'DUPLICATE_VALUE', []],
    ]);
    expect(links[7]).toMatchObject({ success: true });

    const linked = await conn.query<Record<string, unknown>>(
      `SELECT ContentDocumentId, ShareType, Visibility FROM ContentDocumentLink WHERE LinkedEntityId = '${account}'`,
    );
    expect(linked.records.map((r) => [r.ContentDocumentId, r.ShareType, r.Visibility])).toEqual([
      [one, 'V', 'AllUsers'],
      [two, 'C', 'AllUsers'],
    ]);
    const both = await conn.query<Record<string, unknown>>(
      `SELECT Id FROM ContentDocumentLink WHERE ContentDocumentId IN ('${one}', '${two}') AND LinkedEntityId = '${account}'`,
    );
    expect(both.totalSize).toBe(2);
  });

  it('refuses a ContentDocumentLink query without a filter on the document or the linked entity', async () => {
    const sf = await start();
    const conn = connect(sf);
    for (const where of [
      '',
      " WHERE ShareType = 'V'",
      ` WHERE LinkedEntityId != '${to18('001Dn0000000001')}'`,
    ]) {
      const refused = await failure(conn.query(`SELECT Id FROM ContentDocumentLink${where}`));
      expect(refused).toMatchObject({
        errorCode: 'MALFORMED_QUERY',
        message:
          "Implementation restriction: ContentDocumentLink requires a filter by a single Id on ContentDocumentId or LinkedEntityId using the equals operator or multiple Id's using the IN operator.",
      });
    }
  });

  it('filters with IN lists and refuses a malformed one', async () => {
    const sf = await start();
    const conn = connect(sf);
    for (const name of ['Austin', 'Dallas', 'Houston']) sf.store.create('Account', { Name: name });
    const rows = (await conn.query(
      "SELECT Name FROM Account WHERE Name IN ('austin', 'Houston') ORDER BY Name",
    )) as Rows;
    expect(rows.records.map((r) => r.Name)).toEqual(['Austin', 'Houston']);
    const one = (await conn.query(
      "SELECT Name FROM Account WHERE Name IN ('Dallas') AND Name != 'x'",
    )) as Rows;
    expect(one.records.map((r) => r.Name)).toEqual(['Dallas']);
    for (const bad of ["Name IN 'Austin'", "Name IN ('Austin'", 'Name IN ()', "Name IN ('a' 'b')"]) {
      const refused = await failure(conn.query(`SELECT Name FROM Account WHERE ${bad}`));
      expect(refused.errorCode).toBe('MALFORMED_QUERY');
    }
  });

  it('keeps custom fields on ContentVersion and adds a version when a note is edited', async () => {
    const sf = await start();
    const conn = connect(sf);
    sf.store.defineCustomField('ContentVersion', 'BuyerIntel_Key__c');
    expect(() => sf.store.defineCustomField('ContentNote', 'BuyerIntel_Key__c')).toThrow(/custom fields/);
    const { id = '' } = (await conn
      .sobject('ContentNote')
      .create({ Title: 'Signal', Content: b64('<p>v1</p>') })) as SaveResult;
    const [v1] = (
      (await conn.query(
        `SELECT Id FROM ContentVersion WHERE ContentDocumentId = '${id}' AND IsLatest = true`,
      )) as Rows
    ).records;
    const keyed = (await conn
      .sobject('ContentVersion')
      .update([{ Id: String(v1?.Id), BuyerIntel_Key__c: 'bi-1' }], { allOrNone: false })) as SaveResult[];
    expect(keyed).toEqual([{ id: v1?.Id, success: true, errors: [] }]);
    const noData = await failure(
      conn.sobject('ContentVersion').update({ Id: String(v1?.Id), VersionData: b64('x') }),
    );
    expect(noData.errorCode).toBe('INVALID_FIELD_FOR_INSERT_UPDATE');

    await conn.sobject('ContentNote').update({ Id: id, Content: b64('<p>v2</p>') });
    const versions = (await conn.query(
      `SELECT VersionNumber, IsLatest, BuyerIntel_Key__c FROM ContentVersion WHERE ContentDocumentId = '${id}' ORDER BY VersionNumber`,
    )) as Rows;
    expect(versions.records.map((r) => [r.VersionNumber, r.IsLatest, r.BuyerIntel_Key__c])).toEqual([
      ['1', false, 'bi-1'],
      ['2', true, null],
    ]);
    const html = await conn.request<string>(`/services/data/v62.0/sobjects/ContentNote/${id}/Content`);
    expect(String(html)).toBe('<p>v2</p>');
    const notes = (await conn.query(`SELECT Id, Title FROM ContentNote WHERE Id = '${id}'`)) as Rows;
    expect(notes.records.map((r) => r.Title)).toEqual(['Signal']);
  });

  it('deletes a note with its versions and links; ContentVersion cannot be deleted directly', async () => {
    const sf = await start();
    const conn = connect(sf);
    const account = sf.store.create('Account', { Name: 'Austin' }).id;
    const created = (await conn.sobject('ContentNote').create(
      [
        { Title: 'A', Content: b64('<p>a</p>') },
        { Title: 'B', Content: b64('<p>b</p>') },
      ],
      { allOrNone: false },
    )) as SaveResult[];
    const [a = '', b = ''] = created.map((r) => r.id ?? '');
    await conn.sobject('ContentDocumentLink').create(
      [
        { ContentDocumentId: a, LinkedEntityId: account, ShareType: 'V' },
        { ContentDocumentId: b, LinkedEntityId: account, ShareType: 'V' },
      ],
      { allOrNone: false },
    );
    const [version] = (
      (await conn.query(`SELECT Id FROM ContentVersion WHERE ContentDocumentId = '${a}'`)) as Rows
    ).records;
    const refused = await failure(conn.sobject('ContentVersion').destroy(String(version?.Id)));
    expect(refused.errorCode).toBe('INVALID_TYPE_FOR_OPERATION');

    await conn.sobject('ContentNote').destroy(a);
    expect((await failure(conn.sobject('ContentDocument').retrieve(a))).errorCode).toBe('ENTITY_IS_DELETED');
    // Collections delete any type by id, with per-record results.
    const deleted = (await conn.sobject('ContentNote').destroy([b, a], { allOrNone: false })) as SaveResult[];
    expect(deleted).toEqual([
      { id: b, success: true, errors: [] },
      {
        id: a,
        success: false,
        errors: [{ statusCode: 'ENTITY_IS_DELETED', message: 'entity is deleted', fields: [] }],
      },
    ]);
    const links = (await conn.query(
      `SELECT Id FROM ContentDocumentLink WHERE LinkedEntityId = '${account}'`,
    )) as Rows;
    expect(links.totalSize).toBe(0);
    const versions = (await conn.query(
      `SELECT Id FROM ContentVersion WHERE ContentDocumentId IN ('${a}', '${b}')`,
    )) as Rows;
    expect(versions.totalSize).toBe(0);
    expect((await conn.query('SELECT Id FROM ContentNote')).totalSize).toBe(0);
  });
});
