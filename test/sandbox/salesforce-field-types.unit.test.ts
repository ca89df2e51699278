// The Salesforce sandbox refuses, over real HTTP, what a real org refuses for a typed field: a value too
// long for a Text field, too many integer digits for a Number, a value that is no number/date at all, an
// unknown value of a restricted picklist, a blank or too long Account Name; per record in sObject
// Collections. SOQL takes date/dateTime literals unquoted and refuses the quoted form. Every REST answer,
// refusals included, carries Sforce-Limit-Info.
import { Connection } from 'jsforce';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningSalesforceSandbox, startSalesforceSandbox } from '../../emulators/salesforce/server.ts';

let sf: RunningSalesforceSandbox;
const base = () => `${sf.url}/services/data/v62.0`;

beforeAll(async () => {
  sf = await startSalesforceSandbox();
  sf.store.defineCustomField('Account', 'Code__c', { kind: 'text', length: 10 }, 'Code');
  sf.store.defineCustomField('Account', 'Seats__c', { kind: 'number', precision: 5, scale: 0 }, 'Seats');
  sf.store.defineCustomField('Account', 'Opened__c', { kind: 'date' }, 'Opened');
  sf.store.defineCustomField(
    'Account',
    'Tier__c',
    { kind: 'picklist', values: ['Gold', 'Silver'], restricted: true },
    'Tier',
  );
});
afterAll(async () => {
  await sf.close();
});

async function call(method: string, path: string, body?: unknown, token = sf.accessToken) {
  const res = await fetch(`${base()}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    ...(body !== undefined ? { body: typeof body === 'string' ? body : JSON.stringify(body) } : {}),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text ? (JSON.parse(text) as unknown) : undefined };
}

async function newAccount(): Promise<string> {
  const created = await call('POST', '/sobjects/Account', { Name: 'Typed Fields ISD' });
  expect(created.status).toBe(201);
  return (created.body as { id: string }).id;
}

describe('typed fields on one record', () => {
  it('refuses 300 characters in a Text(10) field with STRING_TOO_LONG naming the field', async () => {
    const id = await newAccount();
    const res = await call('PATCH', `/sobjects/Account/${id}`, { Code__c: 'x'.repeat(300) });
    expect(res.status).toBe(400);
    expect(res.body).toEqual([
      {
        errorCode: 'STRING_TOO_LONG',
        message: expect.stringMatching(/^Code: data value too large: x+\.\.\. \(max length=10\)$/),
        fields: ['Code__c'],
      },
    ]);
    const ok = await call('PATCH', `/sobjects/Account/${id}`, { Code__c: 'x'.repeat(10) });
    expect(ok.status).toBe(204);
  });

  it('refuses letters in a Number field for the whole request and too many digits per record', async () => {
    const id = await newAccount();
    const letters = await call('PATCH', `/sobjects/Account/${id}`, { Seats__c: 'many' });
    expect(letters.status).toBe(400);
    expect(letters.body).toEqual([
      {
        errorCode: 'JSON_PARSER_ERROR',
        message: expect.stringContaining(
          'Cannot deserialize instance of double from VALUE_STRING value many',
        ),
      },
    ]);
    const big = await call('PATCH', `/sobjects/Account/${id}`, { Seats__c: 1234567 });
    expect(big.status).toBe(400);
    expect(big.body).toEqual([
      {
        errorCode: 'NUMBER_OUTSIDE_VALID_RANGE',
        message: 'Seats: value outside of valid range on numeric field: 1234567',
        fields: ['Seats__c'],
      },
    ]);
    // Five digits fit; a numeric string is a number, and extra decimal places are kept, not refused.
    expect((await call('PATCH', `/sobjects/Account/${id}`, { Seats__c: '99999' })).status).toBe(204);
    const read = await call('GET', `/sobjects/Account/${id}?fields=Seats__c`);
    expect((read.body as { Seats__c: unknown }).Seats__c).toBe(99999);
  });

  it('refuses an impossible date and an unknown value of a restricted picklist', async () => {
    const id = await newAccount();
    const date = await call('PATCH', `/sobjects/Account/${id}`, { Opened__c: '2024-02-30' });
    expect(date.status).toBe(400);
    expect((date.body as { errorCode: string }[])[0]?.errorCode).toBe('JSON_PARSER_ERROR');
    expect((await call('PATCH', `/sobjects/Account/${id}`, { Opened__c: '2024-02-29' })).status).toBe(204);
    const pick = await call('PATCH', `/sobjects/Account/${id}`, { Tier__c: 'Platinum' });
    expect(pick.status).toBe(400);
    expect(pick.body).toEqual([
      {
        errorCode: 'INVALID_OR_NULL_FOR_RESTRICTED_PICKLIST',
        message: 'Tier: bad value for restricted picklist field: Platinum',
        fields: ['Tier__c'],
      },
    ]);
  });

  it('refuses a 256-character or blank Account Name', async () => {
    const long = await call('POST', '/sobjects/Account', { Name: 'n'.repeat(256) });
    expect(long.status).toBe(400);
    expect((long.body as { errorCode: string; fields: string[] }[])[0]).toMatchObject({
      errorCode: 'STRING_TOO_LONG',
      fields: ['Name'],
      message: expect.stringContaining('Account Name: data value too large'),
    });
    const blank = await call('POST', '/sobjects/Account', { Name: '' });
    expect(blank.status).toBe(400);
    expect((blank.body as { errorCode: string }[])[0]?.errorCode).toBe('REQUIRED_FIELD_MISSING');
  });

  it('takes the type, length and picklist of a field created through the Metadata API', async () => {
    const conn = new Connection({ instanceUrl: sf.url, accessToken: sf.accessToken, version: '62.0' });
    await conn.metadata.upsert('CustomField', {
      fullName: 'Account.Short__c',
      label: 'Short',
      type: 'Text',
      length: 3,
    } as never);
    const id = await newAccount();
    const res = await call('PATCH', `/sobjects/Account/${id}`, { Short__c: 'abcd' });
    expect((res.body as { errorCode: string; message: string }[])[0]).toMatchObject({
      errorCode: 'STRING_TOO_LONG',
      message: 'Short: data value too large: abcd (max length=3)',
    });
  });
});

describe('Checkbox fields', () => {
  it('read false, never null: on records from before the field, new records, and in SOQL', async () => {
    const before = await newAccount();
    const conn = new Connection({ instanceUrl: sf.url, accessToken: sf.accessToken, version: '62.0' });
    await conn.metadata.upsert('CustomField', {
      fullName: 'Account.Flag__c',
      label: 'Flag',
      type: 'Checkbox',
      defaultValue: 'false',
    } as never);
    await conn.metadata.upsert('CustomField', {
      fullName: 'Account.On__c',
      label: 'On',
      type: 'Checkbox',
      defaultValue: 'true',
    } as never);
    const after = await newAccount();
    for (const id of [before, after]) {
      const read = await call('GET', `/sobjects/Account/${id}?fields=Flag__c,On__c`);
      expect(read.body).toMatchObject({ Flag__c: false, On__c: true });
    }
    expect((await call('PATCH', `/sobjects/Account/${after}`, { Flag__c: true })).status).toBe(204);
    expect((await call('GET', `/sobjects/Account/${after}?fields=Flag__c`)).body).toMatchObject({
      Flag__c: true,
    });
    // Cleared the documented way: false.
    expect((await call('PATCH', `/sobjects/Account/${after}`, { Flag__c: false, On__c: false })).status).toBe(
      204,
    );
    const q = await call(
      'GET',
      `/query?q=${encodeURIComponent(`SELECT Flag__c, On__c FROM Account WHERE Id = '${after}'`)}`,
    );
    expect((q.body as { records: unknown[] }).records).toEqual([
      expect.objectContaining({ Flag__c: false, On__c: false }),
    ]);
  });

  it('refuses null for a Checkbox with INVALID_TYPE_ON_FIELD_IN_RECORD, per record, and keeps the value', async () => {
    sf.store.defineCustomField('Account', 'Nulled__c', { kind: 'checkbox' }, 'Nulled');
    const a = await newAccount();
    const b = await newAccount();
    const conn = new Connection({ instanceUrl: sf.url, accessToken: sf.accessToken, version: '62.0' });
    await conn.sobject('Account').update({ Id: a, Nulled__c: true });

    // One record: the save is refused with the record error as the body.
    const single = await call('PATCH', `/sobjects/Account/${a}`, { Nulled__c: null });
    expect(single.status).toBe(400);
    expect(single.body).toEqual([
      {
        errorCode: 'INVALID_TYPE_ON_FIELD_IN_RECORD',
        message: 'Nulled: value not of required type: ',
        fields: ['Nulled__c'],
      },
    ]);

    // A collection, through jsforce: that record fails, the other one is written.
    const results = await conn.sobject('Account').update(
      [
        { Id: a, Nulled__c: null },
        { Id: b, Nulled__c: true },
      ] as never[],
      { allOrNone: false },
    );
    expect(results).toEqual([
      {
        success: false,
        errors: [
          {
            statusCode: 'INVALID_TYPE_ON_FIELD_IN_RECORD',
            message: 'Nulled: value not of required type: ',
            fields: ['Nulled__c'],
          },
        ],
      },
      { id: b, success: true, errors: [] },
    ]);
    const rows = await conn.query<{ Id: string; Nulled__c: boolean }>(
      `SELECT Id, Nulled__c FROM Account WHERE Id IN ('${a}', '${b}') ORDER BY Id`,
    );
    expect(rows.records.map((r) => r.Nulled__c)).toEqual([true, true]);

    // A new record may not carry null either.
    const created = await call('POST', '/sobjects/Account', { Name: 'Null Flag ISD', Nulled__c: null });
    expect(created.status).toBe(400);
    expect(created.body).toEqual([expect.objectContaining({ errorCode: 'INVALID_TYPE_ON_FIELD_IN_RECORD' })]);
  });
});

describe('typed fields in sObject Collections', () => {
  it('answers a field that does not fit per record, and writes the others', async () => {
    const a = await newAccount();
    const b = await newAccount();
    const res = await call('PATCH', '/composite/sobjects', {
      allOrNone: false,
      records: [
        { attributes: { type: 'Account' }, id: a, Code__c: 'y'.repeat(11) },
        { attributes: { type: 'Account' }, id: b, Code__c: 'ok' },
      ],
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual([
      {
        success: false,
        errors: [
          {
            statusCode: 'STRING_TOO_LONG',
            message: expect.stringContaining('max length=10'),
            fields: ['Code__c'],
          },
        ],
      },
      { id: b, success: true, errors: [] },
    ]);
  });

  it('refuses the whole request, writing nothing, when a value is no value of its type', async () => {
    const a = await newAccount();
    const b = await newAccount();
    const res = await call('PATCH', '/composite/sobjects', {
      allOrNone: false,
      records: [
        { attributes: { type: 'Account' }, id: a, Code__c: 'written?' },
        { attributes: { type: 'Account' }, id: b, Seats__c: 'lots' },
      ],
    });
    expect(res.status).toBe(400);
    expect((res.body as { errorCode: string }[])[0]?.errorCode).toBe('JSON_PARSER_ERROR');
    const read = await call('GET', `/sobjects/Account/${a}?fields=Code__c`);
    expect((read.body as { Code__c: unknown }).Code__c).toBeNull();
  });
});

describe('SOQL date literals', () => {
  const query = (soql: string) => call('GET', `/query?q=${encodeURIComponent(soql)}`);

  it('filters a dateTime field on an unquoted literal and refuses the quoted form', async () => {
    await newAccount();
    const past = await query('SELECT Id FROM Account WHERE CreatedDate > 2024-01-01T00:00:00Z');
    expect(past.status).toBe(200);
    expect((past.body as { totalSize: number }).totalSize).toBeGreaterThan(0);
    const future = await query('SELECT Id FROM Account WHERE CreatedDate > 2999-01-01T00:00:00+02:00');
    expect((future.body as { totalSize: number }).totalSize).toBe(0);
    const quoted = await query("SELECT Id FROM Account WHERE CreatedDate > '2024-01-01T00:00:00Z'");
    expect(quoted.status).toBe(400);
    expect(quoted.body).toEqual([
      {
        errorCode: 'INVALID_FIELD',
        message:
          "value of filter criterion for field 'CreatedDate' must be of type dateTime and should not be enclosed in quotes",
      },
    ]);
    const dateOnly = await query('SELECT Id FROM Account WHERE CreatedDate > 2024-01-01');
    expect(dateOnly.status).toBe(400);
  });

  it('filters a date field on a date literal', async () => {
    const id = await newAccount();
    await call('PATCH', `/sobjects/Account/${id}`, { Opened__c: '2020-06-15' });
    const hit = await query('SELECT Id FROM Account WHERE Opened__c = 2020-06-15');
    expect((hit.body as { records: { Id: string }[] }).records.map((r) => r.Id)).toEqual([id]);
    const bad = await query('SELECT Id FROM Account WHERE Opened__c = 2020-13-01');
    expect((bad.body as { errorCode: string }[])[0]?.errorCode).toBe('MALFORMED_QUERY');
  });
});

describe('SOQL literals of the wrong type', () => {
  const query = (soql: string) => call('GET', `/query?q=${encodeURIComponent(soql)}`);
  const refusal = (field: string, type: string, quoted: boolean) => [
    {
      errorCode: 'INVALID_FIELD',
      message: `value of filter criterion for field '${field}' must be of type ${type} and should ${quoted ? '' : 'not '}be enclosed in quotes`,
    },
  ];

  it('answers 400, not 0 rows, to a quoted number or boolean, a number for text, and a bad id', async () => {
    sf.store.defineCustomField('Account', 'Active__c', { kind: 'checkbox' }, 'Active');
    const id = await newAccount();
    expect(await query("SELECT Id FROM Account WHERE Seats__c = '5'")).toMatchObject({
      status: 400,
      body: refusal('Seats__c', 'double', false),
    });
    expect(await query("SELECT Id FROM Account WHERE Active__c = 'true'")).toMatchObject({
      status: 400,
      body: refusal('Active__c', 'boolean', false),
    });
    expect(await query('SELECT Id FROM Account WHERE Code__c = 12')).toMatchObject({
      status: 400,
      body: refusal('Code__c', 'string', true),
    });
    expect(await query("SELECT Id FROM Account WHERE Id = 'abc'")).toMatchObject({
      status: 400,
      body: [{ errorCode: 'INVALID_QUERY_FILTER_OPERATOR', message: 'invalid ID field: abc' }],
    });
    expect(await query(`SELECT Id FROM Account WHERE Id IN ('abc', '${id}')`)).toMatchObject({
      status: 400,
      body: [{ errorCode: 'INVALID_QUERY_FILTER_OPERATOR', message: 'invalid ID field: abc' }],
    });
    const typed = await query(
      `SELECT Id FROM Account WHERE Id = '${id}' AND Active__c = false AND Seats__c = null`,
    );
    expect((typed.body as { totalSize: number }).totalSize).toBe(1);
  });

  it('matches a 15-character id, in = and in IN (...)', async () => {
    const id = await newAccount();
    for (const soql of [
      `SELECT Id FROM Account WHERE Id = '${id.slice(0, 15)}'`,
      `SELECT Id FROM Account WHERE Id IN ('${id.slice(0, 15)}')`,
    ]) {
      const res = await query(soql);
      expect((res.body as { records: { Id: string }[] }).records.map((r) => r.Id)).toEqual([id]);
    }
  });
});

describe('smaller rules', () => {
  it('keeps a custom DateTime in UTC with milliseconds, as Salesforce answers it', async () => {
    sf.store.defineCustomField('Account', 'Seen__c', { kind: 'datetime' }, 'Seen');
    const id = await newAccount();
    await call('PATCH', `/sobjects/Account/${id}`, { Seen__c: '2024-05-01T13:00:00+02:00' });
    const read = await call('GET', `/sobjects/Account/${id}?fields=Seen__c`);
    expect((read.body as { Seen__c: string }).Seen__c).toBe('2024-05-01T11:00:00.000+0000');
  });

  it('refuses a 256-character value of an unrestricted picklist', async () => {
    const id = await newAccount();
    const res = await call('PATCH', `/sobjects/Account/${id}`, { Industry: 'i'.repeat(256) });
    expect(res.status).toBe(400);
    expect((res.body as { errorCode: string; fields: string[] }[])[0]).toMatchObject({
      errorCode: 'STRING_TOO_LONG',
      fields: ['Industry'],
    });
    expect((await call('PATCH', `/sobjects/Account/${id}`, { Industry: 'i'.repeat(255) })).status).toBe(204);
  });

  it('takes only the Task Status and Priority values of the restricted picklists', async () => {
    const id = await newAccount();
    const bad = await call('POST', '/sobjects/Task', { WhatId: id, Status: 'Done', Priority: 'Normal' });
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual([
      {
        errorCode: 'INVALID_OR_NULL_FOR_RESTRICTED_PICKLIST',
        message: 'Status: bad value for restricted picklist field: Done',
        fields: ['Status'],
      },
    ]);
    const urgent = await call('POST', '/sobjects/Task', { WhatId: id, Priority: 'Urgent' });
    expect((urgent.body as { fields: string[] }[])[0]?.fields).toEqual(['Priority']);
    const ok = await call('POST', '/sobjects/Task', { WhatId: id, Status: 'Completed', Priority: 'High' });
    expect(ok.status).toBe(201);
  });

  it('refuses a whole collection update that names the same id twice (15 and 18 characters), writing none', async () => {
    const id = await newAccount();
    const other = await newAccount();
    const res = await call('PATCH', '/composite/sobjects', {
      allOrNone: false,
      records: [
        { attributes: { type: 'Account' }, id, Code__c: 'a' },
        { attributes: { type: 'Account' }, id: other, Code__c: 'b' },
        { attributes: { type: 'Account' }, id: id.slice(0, 15), Code__c: 'c' },
      ],
    });
    expect(res.status).toBe(400);
    expect(res.body).toEqual([
      { errorCode: 'DUPLICATE_VALUE', message: `Duplicate id specified: ${id.slice(0, 15)}`, fields: [] },
    ]);
    for (const written of [id, other]) {
      const read = await call('GET', `/sobjects/Account/${written}?fields=Code__c`);
      expect((read.body as { Code__c: unknown }).Code__c).toBeNull();
    }
  });
});

describe('Sforce-Limit-Info', () => {
  it('is on a 401, a 400 body that is no JSON, and an unknown resource', async () => {
    const unauthorized = await call('GET', '/sobjects/Account/001000000000000AAA', undefined, 'bad-token');
    expect(unauthorized.status).toBe(401);
    expect(unauthorized.headers.get('sforce-limit-info')).toMatch(/^api-usage=\d+\/15000$/);
    const id = await newAccount();
    const notJson = await call('PATCH', `/sobjects/Account/${id}`, '{"Name":');
    expect(notJson.status).toBe(400);
    expect(notJson.headers.get('sforce-limit-info')).toMatch(/^api-usage=\d+\/15000$/);
    const missing = await call('GET', '/no/such/resource');
    expect(missing.status).toBe(404);
    expect(missing.headers.get('sforce-limit-info')).toMatch(/^api-usage=\d+\/15000$/);
  });
});
