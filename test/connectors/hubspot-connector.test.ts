// The HubSpot connector over real HTTP against the HubSpot emulator, with the real @hubspot/api-client:
// reads, batch writes (200, 207, refused properties), notes and their dedupe keys read back from the CRM,
// idempotent field setup, and how HubSpot's failures come out (404, 401, 429, 5xx, timeouts) — never
// with the token in a message. Call counts come from the emulator's own stats.
import { randomUUID } from 'node:crypto';
import { type AddressInfo, createServer } from 'node:net';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createHubSpotConnector,
  type HubSpotCallEvent,
  type HubSpotConnectorOptions,
  HubSpotRequestError,
  HubSpotTransientError,
} from '../../connectors/hubspot/connector.ts';
import { extractNoteKeys, NOTE_BODY_LIMIT, renderNoteHtml } from '../../connectors/hubspot/note-html.ts';
import { readBudget } from '../../connectors/limits.ts';
import { crmOf } from '../../connectors/registry.ts';
import {
  AccountNotFoundError,
  CrmAuthError,
  type CrmConnector,
  CrmRateLimitError,
  type FieldDefinition,
  type NoteDraft,
} from '../../connectors/types.ts';
import type { HubSpotSandboxOptions } from '../../emulators/hubspot/app.ts';
import { type RunningHubSpotSandbox, startHubSpotSandbox } from '../../emulators/hubspot/server.ts';
import { DEFAULT_MAPPING } from '../../src/map/default-mapping.ts';
import { idFieldDefinitions } from '../../src/map/field-definitions.ts';

const sandboxes: RunningHubSpotSandbox[] = [];
async function start(options: HubSpotSandboxOptions = {}): Promise<RunningHubSpotSandbox> {
  const sandbox = await startHubSpotSandbox(options);
  sandboxes.push(sandbox);
  return sandbox;
}
afterAll(async () => {
  await Promise.all(sandboxes.map((s) => s.close()));
});

function connectorFor(
  sandbox: RunningHubSpotSandbox,
  extra: Partial<HubSpotConnectorOptions> = {},
): CrmConnector {
  return createHubSpotConnector({
    accessToken: sandbox.accessToken,
    basePath: sandbox.url,
    portalId: String(sandbox.portalId),
    ...extra,
  });
}

/** A URL on which nothing listens any more. */
async function closedPortUrl(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}`;
}

/** The error a promise rejects with. */
async function failure(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise;
  } catch (err) {
    if (err instanceof Error) return err;
    throw new Error(`rejected with a non-Error: ${String(err)}`);
  }
  throw new Error('expected the call to fail');
}

const fields: FieldDefinition[] = [
  { name: 'bi_population', label: 'Population', type: 'number', description: 'Residents' },
  { name: 'bi_buyer_name', label: 'Buyer name', type: 'string', description: 'Matched buyer' },
  { name: 'bi_summary', label: 'Summary', type: 'text', description: 'About the buyer' },
  { name: 'bi_fiscal_year_end', label: 'Fiscal year end', type: 'date', description: 'FYE' },
  { name: 'bi_synced_at', label: 'Synced at', type: 'datetime', description: 'Last sync' },
  {
    name: 'bi_buyer_type',
    label: 'Buyer type',
    type: 'enumeration',
    description: 'Kind of buyer',
    options: [
      { value: 'city', label: 'City' },
      { value: 'county', label: 'County' },
    ],
  },
  { name: 'bi_has_rfp', label: 'Open RFP', type: 'bool', description: 'Has an open RFP' },
  { name: 'bi_website', label: 'Buyer website', type: 'url', description: 'Official site' },
];

describe('accounts', () => {
  let sandbox: RunningHubSpotSandbox;
  let connector: CrmConnector;
  beforeAll(async () => {
    sandbox = await start();
    connector = connectorFor(sandbox);
    await connector.ensureFields(fields);
  });

  it('has the HubSpot identity and batch sizes', () => {
    expect(connector.kind).toBe('hubspot');
    expect(connector.tenant).toBe(String(sandbox.portalId));
    expect(connector.maxUpdateBatch).toBe(100);
    expect(connector.maxNoteBatch).toBe(100);
  });

  it('reads a company with the requested fields; empty values are null', async () => {
    const company = sandbox.store.createCompany({
      name: 'City of Austin',
      state: 'TX',
      city: 'Austin',
      zip: '78701',
      address: '301 W 2nd St',
      domain: 'austintexas.gov',
      bi_population: '961855',
      bi_buyer_name: '',
    });
    const snapshot = await connector.getAccount(company.id, ['bi_population', 'bi_buyer_name', 'bi_summary']);
    expect(snapshot).toEqual({
      id: company.id,
      name: 'City of Austin',
      state: 'TX',
      city: 'Austin',
      // The address and the company's email domain are evidence for matching.
      zip: '78701',
      street: '301 W 2nd St',
      emailDomains: ['austintexas.gov'],
      website: 'austintexas.gov',
      fields: { bi_population: '961855', bi_buyer_name: null, bi_summary: null },
    });

    const withWebsite = sandbox.store.createCompany({
      name: 'Travis County',
      domain: 'traviscountytx.gov',
      website: 'https://www.traviscountytx.gov',
    });
    const read = await connector.getAccount(withWebsite.id, []);
    expect(read).toMatchObject({
      website: 'https://www.traviscountytx.gov',
      state: null,
      city: null,
      fields: {},
    });
  });

  it('throws AccountNotFoundError for an unknown company', async () => {
    const err = await failure(connector.getAccount('99999999999', ['bi_population']));
    expect(err).toBeInstanceOf(AccountNotFoundError);
    expect((err as AccountNotFoundError).accountId).toBe('99999999999');
  });

  it('writes 100 companies in one call; null clears a value', async () => {
    const ids = Array.from(
      { length: 100 },
      (_, i) => sandbox.store.createCompany({ name: `Town ${i}`, bi_summary: 'old' }).id,
    );
    const before = sandbox.stats.count('crm.companies.batchApi.update');
    const results = await connector.updateAccounts(
      ids.map((id, i) => ({
        accountId: id,
        fields: {
          bi_population: String(1000 + i),
          bi_buyer_type: i % 2 ? 'city' : 'county',
          bi_summary: null,
        },
      })),
    );
    expect(sandbox.stats.count('crm.companies.batchApi.update') - before).toBe(1);
    expect(results).toEqual(ids.map((id) => ({ accountId: id, ok: true })));
    expect(sandbox.store.valueOf('companies', ids[7] ?? '', 'bi_population')).toBe('1007');
    expect(sandbox.store.valueOf('companies', ids[7] ?? '', 'bi_buyer_type')).toBe('city');
    expect(sandbox.store.valueOf('companies', ids[7] ?? '', 'bi_summary')).toBeUndefined();
  });

  it('reports a deleted company as a permanent failure and writes the others (207)', async () => {
    const a = sandbox.store.createCompany({ name: 'Round Rock' }).id;
    const b = sandbox.store.createCompany({ name: 'Pflugerville' }).id;
    const gone = '77777777777';
    const calls: HubSpotCallEvent[] = [];
    const observed = connectorFor(sandbox, { onCall: (e) => calls.push(e) });
    const results = await observed.updateAccounts([
      { accountId: a, fields: { bi_population: '119468' } },
      { accountId: gone, fields: { bi_population: '1' } },
      { accountId: b, fields: { bi_population: '65191' } },
    ]);
    expect(calls).toEqual([
      { operation: 'crm.companies.batchApi.update', status: 207, durationMs: expect.any(Number) },
    ]);
    expect(results[0]).toEqual({ accountId: a, ok: true });
    expect(results[2]).toEqual({ accountId: b, ok: true });
    expect(results[1]).toMatchObject({ accountId: gone, ok: false, error: { status: 404, permanent: true } });
    expect(sandbox.store.valueOf('companies', a, 'bi_population')).toBe('119468');
    expect(sandbox.store.valueOf('companies', b, 'bi_population')).toBe('65191');
  });

  it('fails a record with an unknown property permanently, naming it, and writes the rest', async () => {
    const a = sandbox.store.createCompany({ name: 'Cedar Park' }).id;
    const b = sandbox.store.createCompany({ name: 'Leander' }).id;
    const results = await connector.updateAccounts([
      { accountId: a, fields: { bi_population: '77595', bi_not_a_field: 'x' } },
      { accountId: b, fields: { bi_population: '59202' } },
    ]);
    expect(results[0]).toMatchObject({ accountId: a, ok: false, error: { status: 400, permanent: true } });
    const message = results[0]?.ok === false ? results[0].error.message : '';
    expect(message).toContain('bi_not_a_field');
    expect(message).toContain('PROPERTY_DOESNT_EXIST');
    expect(results[1]).toEqual({ accountId: b, ok: true });
    expect(sandbox.store.valueOf('companies', b, 'bi_population')).toBe('59202');
    expect(sandbox.store.valueOf('companies', a, 'bi_population')).toBeUndefined();
  });

  it('fails every record that carries an unknown property permanently, naming it', async () => {
    const ids = [
      sandbox.store.createCompany({ name: 'Manor' }).id,
      sandbox.store.createCompany({ name: 'Elgin' }).id,
    ];
    const results = await connector.updateAccounts(
      ids.map((id) => ({ accountId: id, fields: { bi_nope: '1' } })),
    );
    for (const result of results) {
      expect(result).toMatchObject({ ok: false, error: { permanent: true } });
      expect(result.ok === false && result.error.message).toContain('bi_nope');
    }
  });

  it('rejects an invalid enumeration value permanently and merges two updates of one company', async () => {
    const id = sandbox.store.createCompany({ name: 'Bastrop' }).id;
    const before = sandbox.stats.count('crm.companies.batchApi.update');
    const results = await connector.updateAccounts([
      { accountId: id, fields: { bi_population: '9688' } },
      { accountId: id, fields: { bi_buyer_name: 'City of Bastrop' } },
    ]);
    expect(sandbox.stats.count('crm.companies.batchApi.update') - before).toBe(1);
    expect(results).toEqual([
      { accountId: id, ok: true },
      { accountId: id, ok: true },
    ]);
    expect(sandbox.store.valueOf('companies', id, 'bi_population')).toBe('9688');
    expect(sandbox.store.valueOf('companies', id, 'bi_buyer_name')).toBe('City of Bastrop');

    const [bad] = await connector.updateAccounts([{ accountId: id, fields: { bi_buyer_type: 'galaxy' } }]);
    expect(bad).toMatchObject({ ok: false, error: { permanent: true } });
    expect(bad?.ok === false && bad.error.message).toContain('bi_buyer_type');
  });

  it('fails a whole-batch refusal without attribution retryably, and a batch of one permanently', async () => {
    const a = sandbox.store.createCompany({ name: 'Hutto' }).id;
    const b = sandbox.store.createCompany({ name: 'Taylor' }).id;
    sandbox.faults.inject({ kind: 'status', status: 400, match: 'crm.companies.batchApi.update', times: 2 });
    const two = await connector.updateAccounts([
      { accountId: a, fields: { bi_population: '1' } },
      { accountId: b, fields: { bi_population: '2' } },
    ]);
    for (const result of two)
      expect(result).toMatchObject({ ok: false, error: { status: 400, permanent: false } });
    const [one] = await connector.updateAccounts([{ accountId: a, fields: { bi_population: '1' } }]);
    expect(one).toMatchObject({ ok: false, error: { status: 400, permanent: true } });
  });

  it('refuses more than maxUpdateBatch updates without calling HubSpot', async () => {
    const updates = Array.from({ length: 101 }, (_, i) => ({ accountId: String(i), fields: {} }));
    await expect(connector.updateAccounts(updates)).rejects.toThrow(RangeError);
    expect(await connector.updateAccounts([])).toEqual([]);
  });
});

describe('account ids', () => {
  it('reads our id properties, once setup made them, as text with leading zeros', async () => {
    const sandbox = await start();
    const connector = connectorFor(sandbox);
    expect(connector.idFields).toEqual([
      { kind: 'nces', name: 'buyer_intel_match_nces_id', ours: true },
      { kind: 'ipeds', name: 'buyer_intel_match_ipeds_id', ours: true },
      { kind: 'census', name: 'buyer_intel_match_census_id', ours: true },
      { kind: 'buyer', name: 'buyer_intel_match_buyer_id', ours: true },
    ]);
    const company = sandbox.store.createCompany({ name: 'LAUSD', state: 'CA' });
    // Before setup: HubSpot refuses a value for a property it does not have; a read just lacks it.
    const refused = await connector.updateAccounts([
      { accountId: company.id, fields: { buyer_intel_match_nces_id: '0602316' } },
    ]);
    expect(refused[0]).toMatchObject({ ok: false, error: { permanent: true } });
    expect((await connector.getAccount(company.id, [])).ids).toBeUndefined();

    const { definitions, problems } = idFieldDefinitions(connector.idFields ?? [], DEFAULT_MAPPING);
    expect(problems).toEqual([]);
    const made = await connector.ensureFields(definitions);
    expect(made.created).toEqual(connector.idFields?.map((f) => f.name));
    expect(sandbox.store.property('companies', 'buyer_intel_match_nces_id')).toMatchObject({
      type: 'string',
      fieldType: 'text',
    });
    const written = await connector.updateAccounts([
      {
        accountId: company.id,
        fields: { buyer_intel_match_nces_id: '0602316', buyer_intel_match_census_id: ' ' },
      },
    ]);
    expect(written).toEqual([{ accountId: company.id, ok: true }]);
    expect((await connector.getAccount(company.id, [])).ids).toEqual({ nces: '0602316' });
    const page = await connector.listAccounts([]);
    expect(page.accounts.find((a) => a.id === company.id)?.ids).toEqual({ nces: '0602316' });
  });

  it('reads the properties HUBSPOT_ID_PROPERTIES names instead, none of them ours to create', async () => {
    const sandbox = await start();
    const connector = connectorFor(sandbox, { idProperties: { ipeds: 'unitid' } });
    expect(connector.idFields).toEqual([{ kind: 'ipeds', name: 'unitid', ours: false }]);
    expect(idFieldDefinitions(connector.idFields ?? [], DEFAULT_MAPPING).definitions).toEqual([]);
    await connector.ensureFields([{ name: 'unitid', label: 'UNITID', type: 'string', description: 'IPEDS' }]);
    const company = sandbox.store.createCompany({ name: 'UT Austin', unitid: '228778' });
    expect((await connector.getAccount(company.id, [])).ids).toEqual({ ipeds: '228778' });
  });
});

describe('notes', () => {
  let sandbox: RunningHubSpotSandbox;
  let connector: CrmConnector;
  beforeAll(async () => {
    sandbox = await start();
    connector = connectorFor(sandbox);
  });

  const draft = (accountId: string, key: string, extra: Partial<NoteDraft> = {}): NoteDraft => ({
    accountId,
    dedupeKey: key,
    title: `RFP: Fleet <vehicles> & "parts" ${key}`,
    body: 'Due Date: 2026-10-01\nLink: https://bids.example.gov/rfp/42?x=1&y=2.',
    occurredAt: '2026-09-15T12:00:00Z',
    ...extra,
  });

  it('creates notes in one call, linked to their companies, and reads their keys back from HubSpot', async () => {
    const austin = sandbox.store.createCompany({ name: 'Austin' }).id;
    const dallas = sandbox.store.createCompany({ name: 'Dallas' }).id;
    const drafts = [draft(austin, 'bi-1-a'), draft(dallas, 'bi-2-b'), draft(austin, 'bi-1-c')];

    const before = sandbox.stats.count('crm.objects.notes.batchApi.create');
    const results = await connector.createNotes(drafts);
    expect(sandbox.stats.count('crm.objects.notes.batchApi.create') - before).toBe(1);
    expect(results.map((r) => r.dedupeKey)).toEqual(['bi-1-a', 'bi-2-b', 'bi-1-c']);
    for (const result of results)
      expect(result).toMatchObject({ ok: true, noteId: expect.stringMatching(/^\d+$/) });

    // Visible from the company, with the right body and timestamp.
    const austinNotes = sandbox.store.notesOf(austin);
    expect(austinNotes.map((n) => n.id).sort()).toEqual(
      [results[0], results[2]].map((r) => (r?.ok ? r.noteId : '')).sort(),
    );
    const first = sandbox.store.get('notes', results[0]?.ok ? results[0].noteId : '');
    const body = first?.values.get('hs_note_body') ?? '';
    expect(body).toContain('<strong>RFP: Fleet &lt;vehicles&gt; &amp; &quot;parts&quot; bi-1-a</strong>');
    expect(body).toContain('Due Date: 2026-10-01<br>');
    expect(body).toContain(
      '<a href="https://bids.example.gov/rfp/42?x=1&amp;y=2" target="_blank" rel="noopener noreferrer">',
    );
    expect(body).toContain('data-buyer-intel-key="bi-1-a"');
    expect(first?.values.get('hs_timestamp')).toBe('2026-09-15T12:00:00.000Z');
    expect(sandbox.store.notesOf(dallas)).toHaveLength(1);

    const reads = sandbox.stats.count('crm.objects.notes.batchApi.read');
    const pages = sandbox.stats.count('crm.associations.v4.basicApi.getPage');
    expect(await connector.existingNoteKeys(austin)).toEqual(new Set(['bi-1-a', 'bi-1-c']));
    expect(sandbox.stats.count('crm.associations.v4.basicApi.getPage') - pages).toBe(1);
    expect(sandbox.stats.count('crm.objects.notes.batchApi.read') - reads).toBe(1);
    expect(await connector.existingNoteKeys(dallas)).toEqual(new Set(['bi-2-b']));
  });

  it('finds keys on a company with more than 500 notes (association pages, reads of 100)', async () => {
    const company = sandbox.store.createCompany({ name: 'Houston' }).id;
    for (let i = 0; i < 520; i++) {
      const key = `bi-9-${i}`;
      sandbox.store.createNote(
        {
          hs_timestamp: '2026-01-01T00:00:00Z',
          hs_note_body: renderNoteHtml({ title: 't', body: '', dedupeKey: key }),
        },
        [company],
      );
    }
    // A person's note without a marker, and an edited one whose attribute was stripped.
    sandbox.store.createNote(
      { hs_timestamp: '2026-01-01T00:00:00Z', hs_note_body: '<p>Called the clerk</p>' },
      [company],
    );
    sandbox.store.createNote(
      {
        hs_timestamp: '2026-01-01T00:00:00Z',
        hs_note_body: '<p>x</p><span>buyer-intel-key:bi-9-edited</span>',
      },
      [company],
    );
    const pages = sandbox.stats.count('crm.associations.v4.basicApi.getPage');
    const reads = sandbox.stats.count('crm.objects.notes.batchApi.read');
    const keys = await connector.existingNoteKeys(company);
    expect(keys.size).toBe(521);
    expect(keys.has('bi-9-0') && keys.has('bi-9-519') && keys.has('bi-9-edited')).toBe(true);
    expect(sandbox.stats.count('crm.associations.v4.basicApi.getPage') - pages).toBe(2);
    expect(sandbox.stats.count('crm.objects.notes.batchApi.read') - reads).toBe(6);
  });

  it('reads the keys of many companies in one association call and 100 notes per read, paging per company', async () => {
    const big = sandbox.store.createCompany({ name: 'Houston' }).id;
    const small = sandbox.store.createCompany({ name: 'Katy' }).id;
    const bare = sandbox.store.createCompany({ name: 'Sugar Land' }).id;
    const note = (key: string, companies: string[]) =>
      sandbox.store.createNote(
        {
          hs_timestamp: '2026-01-01T00:00:00Z',
          hs_note_body: renderNoteHtml({ title: 't', body: '', dedupeKey: key }),
        },
        companies,
      );
    for (let i = 0; i < 505; i++) note(`bi-10-${i}`, [big]);
    note('bi-10-shared', [big, small]);
    const pages = sandbox.stats.count('crm.associations.v4.batchApi.getPage');
    const single = sandbox.stats.count('crm.associations.v4.basicApi.getPage');
    const reads = sandbox.stats.count('crm.objects.notes.batchApi.read');
    const keys = await connector.existingNoteKeysOf([big, small, bare, '99999999999', 'x']);
    expect(keys.get(big)?.length).toBe(506);
    expect(keys.get(small)).toEqual(['bi-10-shared']);
    expect(keys.get(bare)).toEqual([]);
    expect(keys.get('99999999999')).toEqual([]);
    expect(keys.get('x')).toEqual([]);
    // 506 associations of one company: its second page in a second call (and one for the companies'
    // tasks, where follow-ups carry their keys: none here, so no task read); 506 notes in 6 reads.
    expect(sandbox.stats.count('crm.associations.v4.batchApi.getPage') - pages).toBe(3);
    expect(sandbox.stats.count('crm.objects.tasks.batchApi.read')).toBe(0);
    expect(sandbox.stats.count('crm.associations.v4.basicApi.getPage')).toBe(single);
    expect(sandbox.stats.count('crm.objects.notes.batchApi.read') - reads).toBe(6);
  });

  it('has no keys for a company without notes', async () => {
    const company = sandbox.store.createCompany({ name: 'Waco' }).id;
    const reads = sandbox.stats.count('crm.objects.notes.batchApi.read');
    expect(await connector.existingNoteKeys(company)).toEqual(new Set());
    expect(sandbox.stats.count('crm.objects.notes.batchApi.read')).toBe(reads);
  });

  it('fails a note for a deleted company permanently and creates the others', async () => {
    const el = sandbox.store.createCompany({ name: 'El Paso' }).id;
    const results = await connector.createNotes([
      draft(el, 'bi-3-a'),
      draft('88888888888', 'bi-3-b'),
      draft(el, 'bi-3-c'),
    ]);
    expect(results[0]).toMatchObject({ dedupeKey: 'bi-3-a', ok: true });
    expect(results[2]).toMatchObject({ dedupeKey: 'bi-3-c', ok: true });
    expect(results[1]).toMatchObject({ dedupeKey: 'bi-3-b', ok: false, error: { permanent: true } });
    expect(results[1]?.ok === false && results[1].error.message).toContain('88888888888');
    expect(await connector.existingNoteKeys(el)).toEqual(new Set(['bi-3-a', 'bi-3-c']));
  });

  it('fails a note for a company archived in HubSpot permanently and creates the others', async () => {
    const live = sandbox.store.createCompany({ name: 'Lubbock' }).id;
    const gone = sandbox.store.createCompany({ name: 'Gone' }).id;
    sandbox.store.archive('companies', gone);
    const results = await connector.createNotes([draft(live, 'bi-7-a'), draft(gone, 'bi-7-b')]);
    expect(results[0]).toMatchObject({ dedupeKey: 'bi-7-a', ok: true });
    expect(results[1]).toMatchObject({ dedupeKey: 'bi-7-b', ok: false, error: { permanent: true } });
    expect(results[1]?.ok === false && results[1].error.message).toContain(gone);
    expect(sandbox.store.notesOf(live)).toHaveLength(1);
  });

  it('reports a refused note batch per note', async () => {
    const company = sandbox.store.createCompany({ name: 'Frisco' }).id;
    sandbox.faults.inject({ kind: 'status', status: 400, match: 'crm.objects.notes.batchApi.create' });
    const results = await connector.createNotes([draft(company, 'bi-6-a'), draft(company, 'bi-6-b')]);
    expect(results).toEqual([
      { dedupeKey: 'bi-6-a', ok: false, error: expect.objectContaining({ status: 400, permanent: false }) },
      { dedupeKey: 'bi-6-b', ok: false, error: expect.objectContaining({ status: 400, permanent: false }) },
    ]);
    expect(sandbox.store.notesOf(company)).toHaveLength(0);
  });

  it('creates one note for a key given twice for one company', async () => {
    const company = sandbox.store.createCompany({ name: 'Plano' }).id;
    const results = await connector.createNotes([draft(company, 'bi-4-a'), draft(company, 'bi-4-a')]);
    expect(results).toHaveLength(2);
    expect(results[0]).toEqual(results[1]);
    expect(sandbox.store.notesOf(company)).toHaveLength(1);
  });

  it('keeps a huge note under HubSpot’s body limit, marker included', () => {
    const html = renderNoteHtml({
      title: 'Big',
      body: `${'&'.repeat(40_000)}\n${'x'.repeat(40_000)}`,
      dedupeKey: 'bi-5-a',
    });
    expect(html.length).toBeLessThanOrEqual(NOTE_BODY_LIMIT);
    expect(extractNoteKeys(html)).toEqual(['bi-5-a']);
  });
});

describe('fields', () => {
  it('creates the group and the missing properties with HubSpot types, and nothing the second time', async () => {
    const sandbox = await start();
    const connector = connectorFor(sandbox);
    const first = await connector.ensureFields(fields);
    expect(first).toEqual({ created: fields.map((f) => f.name), existing: [] });
    expect(sandbox.store.group('companies', 'buyer_intel')).toMatchObject({ label: 'Buyer Intelligence' });

    const types = Object.fromEntries(
      fields.map((f) => {
        const p = sandbox.store.property('companies', f.name);
        return [f.name, `${p?.groupName}:${p?.type}/${p?.fieldType}`];
      }),
    );
    expect(types).toEqual({
      bi_population: 'buyer_intel:number/number',
      bi_buyer_name: 'buyer_intel:string/text',
      bi_summary: 'buyer_intel:string/textarea',
      bi_fiscal_year_end: 'buyer_intel:date/date',
      bi_synced_at: 'buyer_intel:datetime/date',
      bi_buyer_type: 'buyer_intel:enumeration/select',
      bi_has_rfp: 'buyer_intel:bool/booleancheckbox',
      bi_website: 'buyer_intel:string/text',
    });
    expect(sandbox.store.property('companies', 'bi_buyer_type')?.options.map((o) => o.value)).toEqual([
      'city',
      'county',
    ]);
    expect(sandbox.store.property('companies', 'bi_has_rfp')?.options.map((o) => o.value)).toEqual([
      'true',
      'false',
    ]);
    expect(sandbox.store.property('companies', 'bi_population')?.description).toBe('Residents');

    const creates = sandbox.stats.count('crm.properties.coreApi.create');
    const second = await connector.ensureFields(fields);
    expect(second).toEqual({ created: [], existing: fields.map((f) => f.name) });
    expect(sandbox.stats.count('crm.properties.coreApi.create')).toBe(creates);
    expect(sandbox.stats.count('crm.properties.coreApi.getAll')).toBe(2);
    expect(sandbox.stats.count('crm.properties.groupsApi.create', 409)).toBe(1);
  });

  it('uses the configured group and counts HubSpot’s own properties as existing', async () => {
    const sandbox = await start();
    const connector = connectorFor(sandbox, { propertyGroup: { name: 'gov_intel', label: 'Gov Intel' } });
    const result = await connector.ensureFields([
      { name: 'name', label: 'Name', type: 'string', description: '' },
      { name: 'gi_score', label: 'Score', type: 'number', description: '' },
    ]);
    expect(result).toEqual({ created: ['gi_score'], existing: ['name'] });
    expect(sandbox.store.property('companies', 'gi_score')?.groupName).toBe('gov_intel');
  });
});

describe('failures', () => {
  it('answers a 429 with CrmRateLimitError and a wait from HubSpot’s window', async () => {
    const sandbox = await start({ rateLimits: { tenSecondly: 2 } });
    const connector = connectorFor(sandbox);
    const id = sandbox.store.createCompany({ name: 'Temple' }).id;
    await connector.getAccount(id, []);
    await connector.getAccount(id, []);
    const err = await failure(connector.getAccount(id, []));
    expect(err).toBeInstanceOf(CrmRateLimitError);
    expect((err as CrmRateLimitError).retryAfterMs).toBe(10_000);
    expect((err as CrmRateLimitError).policy).toBe('TEN_SECONDLY_ROLLING');
    expect(err.message).not.toContain(sandbox.accessToken);
  });

  it('waits until midnight UTC after the DAILY limit', async () => {
    const sandbox = await start({ rateLimits: { daily: 1 } });
    const connector = connectorFor(sandbox);
    const id = sandbox.store.createCompany({ name: 'Killeen' }).id;
    await connector.getAccount(id, []);
    const err = await failure(connector.updateAccounts([{ accountId: id, fields: { name: 'x' } }]));
    expect(err).toBeInstanceOf(CrmRateLimitError);
    const now = new Date();
    const midnight = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1);
    expect((err as CrmRateLimitError).policy).toBe('DAILY');
    expect(Math.abs(Date.now() + (err as CrmRateLimitError).retryAfterMs - midnight)).toBeLessThan(5_000);
  });

  it('answers an expired or unknown token with CrmAuthError, without the token in the message', async () => {
    const sandbox = await start();
    const tokens = sandbox.auth.issueTokens();
    const connector = createHubSpotConnector({
      accessToken: tokens.access_token,
      basePath: sandbox.url,
      portalId: String(sandbox.portalId),
    });
    const id = sandbox.store.createCompany({ name: 'Abilene' }).id;
    expect((await connector.getAccount(id, [])).name).toBe('Abilene');

    sandbox.auth.expire(tokens.access_token);
    const calls: (() => Promise<unknown>)[] = [
      () => connector.getAccount(id, []),
      () => connector.updateAccounts([{ accountId: id, fields: { name: 'x' } }]),
      () =>
        connector.createNotes([
          { accountId: id, dedupeKey: 'k', title: 't', body: 'b', occurredAt: new Date().toISOString() },
        ]),
      () => connector.existingNoteKeys(id),
      () => connector.ensureFields(fields),
    ];
    for (const call of calls) {
      const err = await failure(call());
      expect(err).toBeInstanceOf(CrmAuthError);
      expect((err as CrmAuthError).status).toBe(401);
      expect(err.message).toContain('EXPIRED_AUTHENTICATION');
      expect(err.message).toContain('check HUBSPOT_ACCESS_TOKEN');
      expect(err.message).not.toContain(tokens.access_token);
      expect(JSON.stringify(err)).not.toContain(tokens.access_token);
    }

    const unknown = connectorFor(sandbox, { accessToken: 'pat-na1-not-a-real-token-0000' });
    const err = await failure(unknown.getAccount(id, []));
    expect(err).toBeInstanceOf(CrmAuthError);
    expect(err.message).not.toContain('pat-na1-not-a-real-token-0000');
  });

  it('marks 5xx, timeouts and network failures retryable', async () => {
    const sandbox = await start();
    const calls: HubSpotCallEvent[] = [];
    const connector = connectorFor(sandbox, { fetchTimeoutMs: 200, onCall: (e) => calls.push(e) });
    const id = sandbox.store.createCompany({ name: 'Tyler' }).id;

    sandbox.faults.inject({ kind: 'status', status: 503, match: 'crm.companies.batchApi.update' });
    const unavailable = await failure(connector.updateAccounts([{ accountId: id, fields: { name: 'x' } }]));
    expect(unavailable).toBeInstanceOf(HubSpotTransientError);
    expect(unavailable).toMatchObject({ permanent: false, status: 503 });

    sandbox.faults.inject({ kind: 'status', status: 423, match: 'crm.companies.basicApi.getById' });
    expect(await failure(connector.getAccount(id, []))).toMatchObject({
      permanent: false,
      retryAfterMs: 2_000,
    });

    sandbox.faults.inject({ kind: 'delay', ms: 1_000, match: 'crm.companies.basicApi.getById' });
    const slow = await failure(connector.getAccount(id, []));
    expect(slow).toBeInstanceOf(HubSpotTransientError);
    expect(slow.message).toContain('200 ms');

    const url = await closedPortUrl();
    const offline = createHubSpotConnector({
      accessToken: sandbox.accessToken,
      basePath: url,
      portalId: '1',
      onCall: (e) => calls.push(e),
    });
    const network = await failure(offline.getAccount(id, []));
    expect(network).toBeInstanceOf(HubSpotTransientError);
    expect(network.message).not.toContain(sandbox.accessToken);

    expect(calls.map((c) => c.status)).toEqual([503, 423, 'network', 'network']);
  });

  it('turns other refusals into a non-retryable HubSpotRequestError', async () => {
    const sandbox = await start();
    const connector = connectorFor(sandbox);
    const err = await failure(
      connector.ensureFields([{ name: 'Bad Name!', label: 'Bad', type: 'string', description: '' }]),
    );
    expect(err).toBeInstanceOf(HubSpotRequestError);
    expect(err).toMatchObject({ permanent: true, status: 400 });
    // HubSpot's correlationId is the id its support asks for.
    expect((err as HubSpotRequestError).requestId).toMatch(/\S/);
    expect(err.message).toContain(`correlationId ${(err as HubSpotRequestError).requestId}`);
    expect(err.message).toContain('Bad Name!');
  });
});

describe('registry', () => {
  it('builds a HubSpot connector by kind, keeping the portal’s limits in Redis, and refuses unknown kinds', async () => {
    const sandbox = await start();
    const redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
    const prefix = `test-hs-registry-${randomUUID().slice(0, 8)}`;
    try {
      const runtime = { redis, prefix, recordCall: () => {}, log: console };
      const { connections } = crmOf('hubspot').connect(
        {
          app: { clientSecret: 'secret', basePath: sandbox.url },
          portal: { portalId: String(sandbox.portalId), accessToken: sandbox.accessToken },
        },
        runtime,
      );
      const connector = connections[0]?.connector;
      expect(connector?.kind).toBe('hubspot');
      const id = sandbox.store.createCompany({ name: 'Lubbock' }).id;
      expect((await connector?.getAccount(id, []))?.name).toBe('Lubbock');
      const state = await readBudget(redis, prefix, 'hubspot', String(sandbox.portalId));
      expect(state.window).toMatchObject({ max: 190, intervalMs: 10_000 });
      expect(state.daily?.limit).toBeGreaterThan(0);
      expect(() => crmOf('nope')).toThrow(/unknown CRM "nope"/);
    } finally {
      const keys = await redis.keys(`${prefix}:*`);
      if (keys.length) await redis.del(...keys);
      redis.disconnect();
    }
  });
});
