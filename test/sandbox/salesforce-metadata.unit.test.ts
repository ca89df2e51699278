// The Metadata API (SOAP) of the Salesforce sandbox through the unmodified jsforce 3 over real HTTP:
// `conn.metadata.upsert('CustomField', …)` creates fields (created, then not created on a re-run),
// refuses invalid components item by item, makes the field writable through REST, refreshes an expired
// session on the SOAP fault, and `conn.metadata.read` gives the component back.
import { Connection } from 'jsforce';
import { afterAll, describe, expect, it } from 'vitest';
import { decodeXmlText, parseSoap } from '../../emulators/salesforce/metadata.ts';
import { type RunningSalesforceSandbox, startSalesforceSandbox } from '../../emulators/salesforce/server.ts';

const sandboxes: RunningSalesforceSandbox[] = [];
async function start(): Promise<RunningSalesforceSandbox> {
  const sandbox = await startSalesforceSandbox();
  sandboxes.push(sandbox);
  return sandbox;
}
afterAll(async () => {
  await Promise.all(sandboxes.map((s) => s.close()));
});

const connect = (
  sf: RunningSalesforceSandbox,
  accessToken = sf.accessToken,
  refreshToken = sf.refreshToken,
) =>
  new Connection({
    instanceUrl: sf.url,
    accessToken,
    refreshToken,
    oauth2: { clientId: sf.clientId, clientSecret: sf.clientSecret, loginUrl: sf.url },
    version: '62.0',
  });

interface UpsertResult {
  created: boolean;
  fullName: string;
  success: boolean;
  errors: { statusCode: string; message: string }[];
}

const fields = [
  {
    fullName: 'Account.BuyerIntel_Population__c',
    label: 'Population',
    type: 'Number',
    precision: 18,
    scale: 2,
  },
  { fullName: 'Account.BuyerIntel_Status__c', label: 'Status & state', type: 'Text', length: 255 },
  { fullName: 'Task.BuyerIntel_Key__c', label: 'Buyer Intel Key', type: 'Text', length: 255 },
];

const upsert = async (conn: Connection, metadata: object[]) =>
  (await conn.metadata.upsert('CustomField', metadata as never)) as unknown as UpsertResult[];

describe('upsertMetadata of CustomField', () => {
  it('creates the fields, then reports them as existing on a re-run', async () => {
    const sf = await start();
    const conn = connect(sf);
    const first = await upsert(conn, fields);
    expect(first).toEqual(
      fields.map((f) => ({ created: true, fullName: f.fullName, success: true, errors: [] })),
    );
    expect(sf.store.fields('Account')).toContain('BuyerIntel_Population__c');
    expect(sf.store.fields('Task')).toContain('BuyerIntel_Key__c');
    const second = await upsert(conn, fields);
    expect(second.map((r) => [r.created, r.success])).toEqual(fields.map(() => [false, true]));
    expect(sf.stats.count('metadata.upsertMetadata')).toBe(2);
  });

  it('refuses invalid components one by one and still saves the valid ones of the call', async () => {
    const sf = await start();
    const conn = connect(sf);
    const results = await upsert(conn, [
      { fullName: 'Account.Bad__Name__c', label: 'Bad', type: 'Text', length: 10 },
      { fullName: 'Account.BuyerIntel_Ok__c', label: 'Ok', type: 'Checkbox', defaultValue: 'false' },
      { fullName: 'Opportunity.BuyerIntel_X__c', label: 'X', type: 'Text', length: 10 },
      { fullName: 'Account.BuyerIntel_Long__c', label: 'Long', type: 'Text', length: 256 },
      { fullName: 'Account.BuyerIntel_Big__c', label: 'Big', type: 'Number', precision: 19, scale: 0 },
      { fullName: 'Account.BuyerIntel_Kind__c', label: 'Kind', type: 'Currencyish' },
      { fullName: `Account.${'A'.repeat(41)}__c`, label: 'Too long', type: 'Text', length: 10 },
      { fullName: 'Account.1Digit__c', label: 'Digit', type: 'Text', length: 10 },
    ]);
    expect(results.map((r) => r.success)).toEqual([false, true, false, false, false, false, false, false]);
    expect(results[1]).toMatchObject({ created: true, fullName: 'Account.BuyerIntel_Ok__c' });
    for (const r of results.filter((x) => !x.success)) {
      expect(r.created).toBe(false);
      expect(r.errors.length).toBeGreaterThan(0);
      expect(r.errors[0]?.statusCode).toMatch(/^[A-Z_]+$/);
      expect(r.errors[0]?.message).not.toBe('');
    }
    expect(results[2]?.errors[0]?.statusCode).toBe('INVALID_CROSS_REFERENCE_KEY');
    expect(results[3]?.errors[0]?.message).toContain('255');
    expect(sf.store.fields('Account')).toContain('BuyerIntel_Ok__c');
    expect(sf.store.fields('Account')).not.toContain('Bad__Name__c');
  });

  it('a created field is writable through REST', async () => {
    const sf = await start();
    const conn = connect(sf);
    const account = sf.store.create('Account', { Name: 'Austin ISD' });
    await expect(
      conn.sobject('Account').update({ Id: account.id, BuyerIntel_Status__c: 'enriched' }),
    ).rejects.toMatchObject({ errorCode: expect.stringMatching(/^INVALID_FIELD/) });
    await upsert(conn, fields);
    const saved = await conn.sobject('Account').update({ Id: account.id, BuyerIntel_Status__c: 'enriched' });
    expect(saved).toMatchObject({ success: true });
    expect(sf.store.find('Account', account.id).values.get('BuyerIntel_Status__c')).toBe('enriched');
  });

  it('takes a custom field on ContentVersion, not on ContentNote or ContentDocumentLink', async () => {
    const sf = await start();
    const conn = connect(sf);
    const key = (object: string) => ({
      fullName: `${object}.BuyerIntel_Key__c`,
      label: 'Buyer Intel Key',
      type: 'Text',
      length: 255,
    });
    const results = await upsert(conn, [
      key('ContentVersion'),
      key('ContentNote'),
      key('ContentDocumentLink'),
    ]);
    expect(results.map((r) => r.success)).toEqual([true, false, false]);
    expect(results[1]?.errors[0]?.statusCode).toBe('INVALID_CROSS_REFERENCE_KEY');
    expect(sf.store.fields('ContentVersion')).toContain('BuyerIntel_Key__c');
    expect(sf.store.fields('ContentNote')).not.toContain('BuyerIntel_Key__c');
  });

  it('reads a component back as it was saved (entities decoded)', async () => {
    const sf = await start();
    const conn = connect(sf);
    await upsert(conn, fields);
    const read = (await conn.metadata.read('CustomField', ['Account.BuyerIntel_Status__c'])) as unknown as {
      fullName: string;
      label: string;
      length: string;
    }[];
    expect(read).toHaveLength(1);
    expect(read[0]).toMatchObject({
      fullName: 'Account.BuyerIntel_Status__c',
      label: 'Status & state',
      type: 'Text',
    });
  });
});

describe('sessions', () => {
  it('an expired session: jsforce refreshes on the INVALID_SESSION_ID fault and the call succeeds', async () => {
    const sf = await start();
    const conn = connect(sf);
    const refreshed: string[] = [];
    conn.on('refresh', (token: string) => refreshed.push(token));
    sf.auth.expire();
    const results = await upsert(conn, fields.slice(0, 1));
    expect(results[0]).toMatchObject({ success: true, created: true });
    expect(refreshed).toHaveLength(1);
    expect(sf.stats.count('metadata.upsertMetadata')).toBe(2);
  });

  it('without a way to refresh, the fault is a clear INVALID_SESSION_ID error (HTTP 500, SOAP fault)', async () => {
    const sf = await start();
    const conn = new Connection({ instanceUrl: sf.url, accessToken: 'nope', version: '62.0' });
    await expect(upsert(conn, fields)).rejects.toMatchObject({
      errorCode: 'sf:INVALID_SESSION_ID',
      message: 'INVALID_SESSION_ID: Invalid Session ID found in SessionHeader: Illegal Session',
    });
    const res = await fetch(`${sf.url}/services/Soap/m/62.0`, {
      method: 'POST',
      headers: { 'Content-Type': 'text/xml' },
      body: '<?xml version="1.0"?><soapenv:Envelope xmlns:soapenv="http://schemas.xmlsoap.org/soap/envelope/"><soapenv:Body><upsertMetadata xmlns="http://soap.sforce.com/2006/04/metadata"/></soapenv:Body></soapenv:Envelope>',
    });
    expect(res.status).toBe(500);
    expect(res.headers.get('content-type')).toMatch(/^text\/xml/);
    expect(await res.text()).toContain('<faultcode>sf:INVALID_SESSION_ID</faultcode>');
  });
});

describe('XML handling', () => {
  it('refuses a DOCTYPE and decodes only the predefined entities', async () => {
    expect(() => parseSoap('<!DOCTYPE x [<!ENTITY a "b">]><x>&a;</x>')).toThrow(/DOCTYPE/);
    expect(decodeXmlText('a &amp; b &lt;c&gt; &#65;&#x42; &a;')).toBe('a & b <c> AB &a;');
    const sf = await start();
    const res = await fetch(`${sf.url}/services/Soap/m/62.0`, {
      method: 'POST',
      headers: { 'Content-Type': 'text/xml' },
      body: '<?xml version="1.0"?><!DOCTYPE x [<!ENTITY a "b">]><x>&a;</x>',
    });
    expect(res.status).toBe(500);
    expect(await res.text()).toContain('<faultcode>soapenv:Client</faultcode>');
  });
});
