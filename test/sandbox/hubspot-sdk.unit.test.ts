// The unmodified @hubspot/api-client against the HubSpot sandbox over real HTTP: the calls the product
// makes, the errors it must handle (400, 401, 404, 409, 429) and the 207 partial failure of batch update.
import { Client } from '@hubspot/api-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HubSpotSandboxOptions } from '../../emulators/hubspot/app.ts';
import { type RunningHubSpotSandbox, startHubSpotSandbox } from '../../emulators/hubspot/server.ts';

interface ApiError {
  code: number;
  body: Record<string, unknown>;
  headers: Record<string, string>;
}

/** The ApiException a call rejects with (each SDK module has its own class; all carry code/body/headers). */
async function apiError(call: Promise<unknown>): Promise<ApiError> {
  try {
    await call;
  } catch (err) {
    const e = err as Partial<ApiError>;
    if (typeof e.code === 'number') return { code: e.code, body: e.body ?? {}, headers: e.headers ?? {} };
    throw err;
  }
  throw new Error('expected the call to fail');
}

const clientFor = (sandbox: RunningHubSpotSandbox, accessToken = sandbox.accessToken) =>
  new Client({ accessToken, basePath: sandbox.url, numberOfApiCallRetries: 0 });

const sandboxes: RunningHubSpotSandbox[] = [];
async function start(options: HubSpotSandboxOptions = {}): Promise<RunningHubSpotSandbox> {
  const sandbox = await startHubSpotSandbox(options);
  sandboxes.push(sandbox);
  return sandbox;
}
afterAll(async () => {
  await Promise.all(sandboxes.map((s) => s.close()));
});

const noteAt = (body: string) => ({ hs_timestamp: new Date().toISOString(), hs_note_body: body });
const toCompany = (companyId: string) => [
  {
    to: { id: companyId },
    types: [{ associationCategory: 'HUBSPOT_DEFINED' as never, associationTypeId: 190 }],
  },
];

describe('companies', () => {
  let sandbox: RunningHubSpotSandbox;
  let hubspot: Client;
  beforeAll(async () => {
    sandbox = await start();
    hubspot = clientFor(sandbox);
  });

  it('creates, reads and updates a company', async () => {
    const created = await hubspot.crm.companies.basicApi.create({
      properties: {
        name: 'Travis County',
        domain: 'traviscountytx.gov',
        industry: 'GOVERNMENT_ADMINISTRATION',
      },
      associations: [],
    });
    expect(created.id).toMatch(/^\d{10,}$/);
    expect(created.createdAt).toBeInstanceOf(Date);
    expect(created.properties).toMatchObject({
      name: 'Travis County',
      domain: 'traviscountytx.gov',
      hs_object_id: created.id,
    });
    expect(created.properties.createdate).toBe(created.createdAt.toISOString());

    const read = await hubspot.crm.companies.basicApi.getById(created.id, ['name', 'domain', 'city']);
    // A requested property without a value is left out, as on HubSpot's GET.
    expect(Object.keys(read.properties).sort()).toEqual([
      'createdate',
      'domain',
      'hs_lastmodifieddate',
      'hs_object_id',
      'name',
    ]);

    const updated = await hubspot.crm.companies.basicApi.update(created.id, {
      properties: { city: 'Austin', domain: '' },
    });
    expect(updated.properties).toMatchObject({ city: 'Austin', domain: '' });
    expect(updated.updatedAt.getTime()).toBeGreaterThanOrEqual(created.updatedAt.getTime());

    const after = await hubspot.crm.companies.basicApi.getById(created.id, ['city', 'domain'], ['city']);
    expect(after.properties.city).toBe('Austin');
    expect(after.properties.domain).toBeUndefined();
    expect(after.propertiesWithHistory?.city?.[0]).toMatchObject({
      value: 'Austin',
      sourceType: 'INTEGRATION',
      sourceId: String(sandbox.auth.privateAppId),
    });
  });

  it('rejects an unknown property with a 400 naming it', async () => {
    const company = sandbox.store.createCompany({ name: 'Hays County' });
    const err = await apiError(
      hubspot.crm.companies.basicApi.update(company.id, { properties: { foo: 'x', name: 'Hays' } }),
    );
    expect(err.code).toBe(400);
    expect(err.body).toMatchObject({ status: 'error', category: 'VALIDATION_ERROR' });
    expect(String(err.body.message)).toContain('Property values were not valid');
    expect(String(err.body.message)).toContain('Property \\"foo\\" does not exist');
    expect(err.body.errors).toEqual([
      {
        message: 'Property "foo" does not exist',
        code: 'PROPERTY_DOESNT_EXIST',
        context: { propertyName: ['foo'] },
      },
    ]);
    expect(err.body.correlationId).toBe(err.headers['x-hubspot-correlation-id']);
    // Nothing was written.
    expect(sandbox.store.getCompany(company.id)?.values.get('name')).toBe('Hays County');
  });

  it('rejects a value outside an enumeration', async () => {
    const company = sandbox.store.createCompany({ name: 'Bastrop County' });
    const err = await apiError(
      hubspot.crm.companies.basicApi.update(company.id, { properties: { industry: 'Government' } }),
    );
    expect(err.code).toBe(400);
    expect(String(err.body.message)).toContain('INVALID_OPTION');
  });

  it('answers 404 for an unknown id', async () => {
    const err = await apiError(hubspot.crm.companies.basicApi.getById('99999999999'));
    expect(err.code).toBe(404);
    expect(err.body).toMatchObject({ status: 'error', category: 'OBJECT_NOT_FOUND' });
  });

  it('archives a company: gone from reads and writes, still readable with archived=true', async () => {
    const { id } = await hubspot.crm.companies.basicApi.create({
      properties: { name: 'Lubbock County' },
      associations: [],
    });
    await hubspot.crm.companies.basicApi.archive(id);
    expect((await apiError(hubspot.crm.companies.basicApi.getById(id))).code).toBe(404);
    const archived = await hubspot.crm.companies.basicApi.getById(id, undefined, undefined, undefined, true);
    expect(archived.archived).toBe(true);
    expect(
      (await apiError(hubspot.crm.companies.basicApi.update(id, { properties: { name: 'x' } }))).code,
    ).toBe(404);
    const batch = await hubspot.crm.companies.batchApi.update({
      inputs: [{ id, properties: { name: 'x' } }],
    });
    expect(batch).toMatchObject({
      numErrors: 1,
      errors: [{ category: 'OBJECT_NOT_FOUND', context: { ids: [id] } }],
    });
  });

  it('batch-updates, and returns a 207 partial failure without throwing', async () => {
    const a = sandbox.store.createCompany({ name: 'City of Round Rock' });
    const b = sandbox.store.createCompany({ name: 'City of Pflugerville' });

    const ok = await hubspot.crm.companies.batchApi.update({
      inputs: [
        { id: a.id, properties: { city: 'Round Rock' } },
        { id: b.id, properties: { city: 'Pflugerville' } },
      ],
    });
    expect(ok.status).toBe('COMPLETE');
    expect(ok.results.map((r) => r.id).sort()).toEqual([a.id, b.id].sort());
    expect('numErrors' in ok).toBe(false);

    const missing = '88888888888';
    const partial = await hubspot.crm.companies.batchApi.update({
      inputs: [
        { id: a.id, properties: { state: 'TX' } },
        { id: missing, properties: { state: 'TX' } },
      ],
    });
    // The SDK resolves with BatchResponseSimplePublicObjectWithErrors for a 207.
    expect(partial.status).toBe('COMPLETE');
    expect(partial.results.map((r) => r.id)).toEqual([a.id]);
    expect(partial).toMatchObject({
      numErrors: 1,
      errors: [{ status: 'error', category: 'OBJECT_NOT_FOUND', context: { ids: [missing] } }],
    });
    expect(sandbox.store.getCompany(a.id)?.values.get('state')).toBe('TX');
  });

  it('rejects batches over 100 inputs', async () => {
    const inputs = Array.from({ length: 101 }, (_, i) => ({ id: String(i + 1), properties: { city: 'x' } }));
    const err = await apiError(hubspot.crm.companies.batchApi.update({ inputs }));
    expect(err.code).toBe(400);
    expect(err.body.category).toBe('VALIDATION_ERROR');
  });

  it('batch-reads, with a 207 for ids that do not exist', async () => {
    const a = sandbox.store.createCompany({ name: 'Williamson County', domain: 'wilco.org' });
    const read = await hubspot.crm.companies.batchApi.read({
      inputs: [{ id: a.id }, { id: '77777777777' }],
      properties: ['domain'],
      propertiesWithHistory: [],
    });
    expect(read.results[0]?.properties.domain).toBe('wilco.org');
    expect(read).toMatchObject({ numErrors: 1, errors: [{ category: 'OBJECT_NOT_FOUND' }] });
  });

  it('pages through the company list with after', async () => {
    const seen: string[] = [];
    let after: string | undefined;
    do {
      const page = await hubspot.crm.companies.basicApi.getPage(3, after, ['name']);
      seen.push(...page.results.map((r) => r.id));
      after = page.paging?.next?.after;
      if (after) expect(page.paging?.next?.link).toContain(`after=${after}`);
    } while (after);
    // Live companies only: the one archived above is in the recycle bin, listed with archived=true.
    const live = sandbox.store.companies().filter((c) => !c.archived);
    expect(live.length).toBeLessThan(sandbox.store.companies().length);
    expect(seen).toEqual(live.map((c) => c.id));
    const bin = await hubspot.crm.companies.basicApi.getPage(100, undefined, ['name'], [], [], true);
    expect(bin.results.map((r) => r.id)).toEqual(
      sandbox.store
        .companies()
        .filter((c) => c.archived)
        .map((c) => c.id),
    );
  });
});

describe('search', () => {
  let sandbox: RunningHubSpotSandbox;
  let hubspot: Client;
  beforeAll(async () => {
    // These tests are about search semantics; the 5-per-second limit has its own test below.
    sandbox = await start({ rateLimits: { search: false } });
    hubspot = clientFor(sandbox);
    for (let i = 1; i <= 25; i++) {
      sandbox.store.createCompany({
        name: `School District ${String(i).padStart(2, '0')}`,
        domain: `isd${i}.k12.tx.us`,
        numberofemployees: String(i * 100),
      });
    }
    sandbox.store.createCompany({ name: 'Capital Metro', domain: 'capmetro.org', numberofemployees: '1800' });
  });

  it('pages through more than two pages with after, with the total', async () => {
    const names: string[] = [];
    let after: string | undefined;
    let pages = 0;
    do {
      const page = await hubspot.crm.companies.searchApi.doSearch({
        query: 'district',
        sorts: [{ propertyName: 'name', direction: 'ASCENDING' } as never],
        properties: ['name', 'domain'],
        limit: 10,
        ...(after ? { after } : {}),
      });
      pages++;
      expect(page.total).toBe(25);
      names.push(...page.results.map((r) => String(r.properties.name)));
      after = page.paging?.next?.after;
    } while (after);
    expect(pages).toBe(3);
    expect(names).toHaveLength(25);
    expect(names).toEqual([...names].sort());
  });

  it('filters with operators', async () => {
    const between = await hubspot.crm.companies.searchApi.doSearch({
      filterGroups: [
        {
          filters: [
            {
              propertyName: 'numberofemployees',
              operator: 'BETWEEN' as never,
              value: '1000',
              highValue: '1500',
            },
          ],
        },
        { filters: [{ propertyName: 'domain', operator: 'EQ' as never, value: 'CAPMETRO.ORG' }] },
      ],
      properties: ['name', 'numberofemployees'],
      limit: 100,
    });
    expect(between.total).toBe(7);
    const token = await hubspot.crm.companies.searchApi.doSearch({
      filterGroups: [
        { filters: [{ propertyName: 'domain', operator: 'CONTAINS_TOKEN' as never, value: '*.k12.tx.us' }] },
      ],
      limit: 1,
    });
    expect(token.total).toBe(25);
    expect(token.paging?.next?.after).toBe('1');
  });

  it('refuses to page past 10,000 results and more than 5 filter groups', async () => {
    const tooFar = await apiError(hubspot.crm.companies.searchApi.doSearch({ after: '10000', limit: 10 }));
    expect(tooFar.code).toBe(400);
    const group = { filters: [{ propertyName: 'name', operator: 'HAS_PROPERTY' as never }] };
    const tooMany = await apiError(
      hubspot.crm.companies.searchApi.doSearch({ filterGroups: Array.from({ length: 6 }, () => group) }),
    );
    expect(tooMany.code).toBe(400);
  });
});

describe('notes and associations', () => {
  let sandbox: RunningHubSpotSandbox;
  let hubspot: Client;
  beforeAll(async () => {
    sandbox = await start();
    hubspot = clientFor(sandbox);
  });

  it('creates notes associated with a company and reads them back from the company side', async () => {
    const company = await hubspot.crm.companies.basicApi.create({ properties: { name: 'Austin ISD' } });
    const note = await hubspot.crm.objects.notes.basicApi.create({
      properties: noteAt('<p>Board approved the 2027 bond.</p>'),
      associations: toCompany(company.id),
    });
    expect(note.properties.hs_note_body).toBe('<p>Board approved the 2027 bond.</p>');

    const batch = await hubspot.crm.objects.notes.batchApi.create({
      inputs: [
        { properties: noteAt('RFP published'), associations: toCompany(company.id) },
        { properties: noteAt('Budget hearing'), associations: toCompany(company.id) },
      ],
    });
    expect(batch.status).toBe('COMPLETE');
    expect(batch.results).toHaveLength(2);

    const fromCompany = await hubspot.crm.associations.v4.basicApi.getPage('companies', company.id, 'notes');
    const ids = [note.id, ...batch.results.map((r) => r.id)];
    expect(fromCompany.results.map((r) => String(r.toObjectId)).sort()).toEqual(ids.sort());
    for (const r of fromCompany.results) {
      expect(r.associationTypes).toEqual([{ category: 'HUBSPOT_DEFINED', typeId: 189, label: null }]);
    }
    const fromNote = await hubspot.crm.associations.v4.basicApi.getPage('notes', note.id, 'companies');
    expect(fromNote.results.map((r) => [String(r.toObjectId), r.associationTypes[0]?.typeId])).toEqual([
      [company.id, 190],
    ]);

    const withAssociations = await hubspot.crm.companies.basicApi.getById(company.id, undefined, undefined, [
      'notes',
    ]);
    expect(withAssociations.associations?.notes?.results).toHaveLength(3);
    expect(withAssociations.associations?.notes?.results[0]?.type).toBe('company_to_note');
  });

  it('associates through v4 (labelled and default)', async () => {
    const company = sandbox.store.createCompany({ name: 'Leander ISD' });
    const a = sandbox.store.createNote(noteAt('a'));
    const b = sandbox.store.createNote(noteAt('b'));
    const labelled = await hubspot.crm.associations.v4.basicApi.create(
      'notes',
      a.id,
      'companies',
      company.id,
      [{ associationCategory: 'HUBSPOT_DEFINED' as never, associationTypeId: 190 }],
    );
    expect(labelled).toMatchObject({ fromObjectTypeId: '0-46', toObjectTypeId: '0-2', labels: [] });
    const byDefault = await hubspot.crm.associations.v4.basicApi.createDefault(
      'companies',
      company.id,
      'notes',
      b.id,
    );
    expect(byDefault.status).toBe('COMPLETE');
    expect(sandbox.store.notesOf(company.id).map((n) => n.id)).toEqual([a.id, b.id]);
  });

  it('requires hs_timestamp and existing companies', async () => {
    const noTimestamp = await apiError(
      hubspot.crm.objects.notes.basicApi.create({ properties: { hs_note_body: 'x' } }),
    );
    expect(noTimestamp.code).toBe(400);
    const unknownCompany = await apiError(
      hubspot.crm.objects.notes.basicApi.create({
        properties: noteAt('x'),
        associations: toCompany('12345678901'),
      }),
    );
    expect(unknownCompany.code).toBe(400);
    expect(unknownCompany.body).toMatchObject({
      message: 'One or more associations are invalid',
      category: 'VALIDATION_ERROR',
      context: { INVALID_OBJECT_IDS: ['COMPANY=12345678901 is not valid'] },
    });
  });

  it('searches notes', async () => {
    const company = sandbox.store.createCompany({ name: 'Manor ISD' });
    sandbox.store.createNote(noteAt('Superintendent search opened'), [company.id]);
    const found = await hubspot.crm.objects.notes.searchApi.doSearch({
      filterGroups: [
        {
          filters: [
            { propertyName: 'hs_note_body', operator: 'CONTAINS_TOKEN' as never, value: 'superintendent' },
          ],
        },
      ],
      properties: ['hs_note_body'],
    });
    expect(found.total).toBe(1);
    expect(found.results[0]?.properties.hs_note_body).toBe('Superintendent search opened');
  });
});

describe('properties', () => {
  it('creates groups and properties; a second create is a 409', async () => {
    const sandbox = await start();
    const hubspot = clientFor(sandbox);
    const group = await hubspot.crm.properties.groupsApi.create('companies', {
      name: 'buyer_intelligence',
      label: 'Buyer intelligence',
    });
    expect(group).toMatchObject({ name: 'buyer_intelligence', label: 'Buyer intelligence', archived: false });
    const definition = {
      name: 'bi_population',
      label: 'Population',
      type: 'number' as never,
      fieldType: 'number' as never,
      groupName: 'buyer_intelligence',
    };
    const property = await hubspot.crm.properties.coreApi.create('companies', definition);
    expect(property).toMatchObject({ name: 'bi_population', type: 'number', fieldType: 'number' });
    expect(property.createdAt).toBeInstanceOf(Date);

    const again = await apiError(hubspot.crm.properties.coreApi.create('companies', definition));
    expect(again.code).toBe(409);
    expect(again.body.category).toBe('OBJECT_ALREADY_EXISTS');
    const groupAgain = await apiError(
      hubspot.crm.properties.groupsApi.create('companies', { name: 'buyer_intelligence', label: 'x' }),
    );
    expect(groupAgain.code).toBe(409);

    expect((await hubspot.crm.properties.coreApi.getByName('companies', 'bi_population')).label).toBe(
      'Population',
    );
    const all = await hubspot.crm.properties.coreApi.getAll('companies');
    expect(all.results.map((p) => p.name)).toEqual(
      expect.arrayContaining(['name', 'domain', 'bi_population']),
    );
    const groups = await hubspot.crm.properties.groupsApi.getAll('companies');
    expect(groups.results.map((g) => g.name)).toContain('buyer_intelligence');

    // The new property can now be written.
    const company = await hubspot.crm.companies.basicApi.create({
      properties: { name: 'Del Valle', bi_population: '12000' },
    });
    expect(company.properties.bi_population).toBe('12000');
    const notANumber = await apiError(
      hubspot.crm.companies.basicApi.update(company.id, { properties: { bi_population: 'many' } }),
    );
    expect(notANumber.code).toBe(400);
  });
});

describe('OAuth', () => {
  it('exchanges a code, refreshes, and answers 401 for expired and unknown tokens', async () => {
    const sandbox = await start();
    const anonymous = new Client({ basePath: sandbox.url, numberOfApiCallRetries: 0 });
    const redirectUri = 'https://app.example.com/oauth/callback';
    const code = sandbox.auth.issueAuthorizationCode(redirectUri);
    const tokens = await anonymous.oauth.tokensApi.create(
      'authorization_code',
      code,
      redirectUri,
      sandbox.clientId,
      sandbox.clientSecret,
    );
    expect(tokens).toMatchObject({ tokenType: 'bearer', expiresIn: 1800 });
    expect(tokens.accessToken).toBeTruthy();
    expect(tokens.refreshToken).toBeTruthy();

    const hubspot = clientFor(sandbox, tokens.accessToken);
    await hubspot.crm.companies.basicApi.create({ properties: { name: 'Lago Vista' } });

    const reused = await apiError(
      anonymous.oauth.tokensApi.create(
        'authorization_code',
        code,
        redirectUri,
        sandbox.clientId,
        sandbox.clientSecret,
      ),
    );
    expect(reused.code).toBe(400);
    expect(reused.body.status).toBe('BAD_AUTH_CODE');

    const refreshed = await anonymous.oauth.tokensApi.create(
      'refresh_token',
      undefined,
      undefined,
      sandbox.clientId,
      sandbox.clientSecret,
      tokens.refreshToken,
    );
    expect(refreshed.accessToken).not.toBe(tokens.accessToken);
    expect(refreshed.refreshToken).toBe(tokens.refreshToken);

    const badRefresh = await apiError(
      anonymous.oauth.tokensApi.create(
        'refresh_token',
        undefined,
        undefined,
        sandbox.clientId,
        sandbox.clientSecret,
        'nope',
      ),
    );
    expect(badRefresh.code).toBe(400);
    expect(badRefresh.body).toMatchObject({
      status: 'BAD_REFRESH_TOKEN',
      message: 'missing or invalid refresh token',
    });
    const badClient = await apiError(
      anonymous.oauth.tokensApi.create(
        'refresh_token',
        undefined,
        undefined,
        'wrong',
        sandbox.clientSecret,
        'nope',
      ),
    );
    expect(badClient.body.status).toBe('BAD_CLIENT_ID');

    sandbox.auth.expire(tokens.accessToken);
    const expired = await apiError(hubspot.crm.companies.basicApi.getPage());
    expect(expired.code).toBe(401);
    expect(expired.body).toMatchObject({ status: 'error', category: 'EXPIRED_AUTHENTICATION' });
    // The refreshed token still works.
    await clientFor(sandbox, refreshed.accessToken).crm.companies.basicApi.getPage();

    const unknown = await apiError(clientFor(sandbox, 'not-a-token').crm.companies.basicApi.getPage());
    expect(unknown.code).toBe(401);
    expect(unknown.body).toMatchObject({ category: 'INVALID_AUTHENTICATION' });
    expect(String(unknown.body.message)).toMatch(/^Authentication credentials not found/);
  });
});

describe('rate limits and faults', () => {
  it('answers 429 past the ten-second window, with the rate headers', async () => {
    const sandbox = await start({ rateLimits: { tenSecondly: 3 } });
    const hubspot = clientFor(sandbox);
    const res = await fetch(`${sandbox.url}/crm/v3/objects/companies`, {
      headers: { Authorization: `Bearer ${sandbox.accessToken}` },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-hubspot-ratelimit-max')).toBe('3');
    expect(res.headers.get('x-hubspot-ratelimit-remaining')).toBe('2');
    expect(res.headers.get('x-hubspot-ratelimit-interval-milliseconds')).toBe('10000');
    expect(res.headers.get('x-hubspot-ratelimit-daily')).toBe('625000');
    expect(res.headers.get('x-hubspot-ratelimit-daily-remaining')).toBe('624999');
    await hubspot.crm.companies.basicApi.getPage();
    await hubspot.crm.companies.basicApi.getPage();
    const limited = await apiError(hubspot.crm.companies.basicApi.getPage());
    expect(limited.code).toBe(429);
    expect(limited.body).toMatchObject({
      status: 'error',
      message: 'You have reached your ten_secondly_rolling limit.',
      errorType: 'RATE_LIMIT',
      policyName: 'TEN_SECONDLY_ROLLING',
    });
    expect(limited.headers['x-hubspot-ratelimit-remaining']).toBe('0');
    expect(limited.headers['retry-after']).toBeUndefined();
  });

  it('answers 429 DAILY past the daily limit, and limits search per second', async () => {
    const sandbox = await start({ rateLimits: { daily: 2, search: { requests: 1, windowMs: 60_000 } } });
    const hubspot = clientFor(sandbox);
    await hubspot.crm.companies.searchApi.doSearch({});
    const search = await apiError(hubspot.crm.companies.searchApi.doSearch({}));
    expect(search.code).toBe(429);
    expect(search.body.policyName).toBe('SECONDLY');
    expect(search.headers['x-hubspot-ratelimit-max']).toBeUndefined();
    const daily = await apiError(hubspot.crm.companies.basicApi.getPage());
    expect(daily.code).toBe(429);
    expect(daily.body).toMatchObject({ policyName: 'DAILY', message: 'You have reached your daily limit.' });
  });

  it('renders injected faults the HubSpot way and counts calls', async () => {
    const sandbox = await start();
    const hubspot = clientFor(sandbox);
    const company = sandbox.store.createCompany({ name: 'Kyle' });
    sandbox.faults.inject({ kind: 'status', status: 429, match: 'crm.companies.basicApi.getById' });
    sandbox.faults.inject({ kind: 'status', status: 502, match: 'crm.companies.basicApi.getById' });
    expect((await apiError(hubspot.crm.companies.basicApi.getById(company.id))).body.policyName).toBe(
      'TEN_SECONDLY_ROLLING',
    );
    expect((await apiError(hubspot.crm.companies.basicApi.getById(company.id))).code).toBe(502);
    expect((await hubspot.crm.companies.basicApi.getById(company.id)).id).toBe(company.id);
    expect(sandbox.stats.count('crm.companies.basicApi.getById')).toBe(3);
    expect(sandbox.stats.count('crm.companies.basicApi.getById', 200)).toBe(1);
  });
});

describe('sandbox control plane (/__sandbox, not part of HubSpot)', () => {
  it('runs the consent step, expires tokens, edits as a person, and reports stats', async () => {
    const sandbox = await start();
    const redirectUri = 'http://localhost:3000/oauth/callback';
    const consent = await fetch(
      `${sandbox.url}/__sandbox/oauth/authorize?client_id=${sandbox.clientId}&redirect_uri=${encodeURIComponent(redirectUri)}&state=xyz`,
      { redirect: 'manual' },
    );
    expect(consent.status).toBe(302);
    const location = new URL(String(consent.headers.get('location')));
    expect(location.searchParams.get('state')).toBe('xyz');
    const anonymous = new Client({ basePath: sandbox.url, numberOfApiCallRetries: 0 });
    const tokens = await anonymous.oauth.tokensApi.create(
      'authorization_code',
      String(location.searchParams.get('code')),
      redirectUri,
      sandbox.clientId,
      sandbox.clientSecret,
    );
    const hubspot = clientFor(sandbox, tokens.accessToken);

    const created = await fetch(`${sandbox.url}/__sandbox/ui/companies`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ properties: { name: 'Made in the UI' } }),
    });
    expect(created.status).toBe(201);
    const { id } = (await created.json()) as { id: string };
    const read = await hubspot.crm.companies.basicApi.getById(id, undefined, ['name']);
    expect(read.propertiesWithHistory?.name?.[0]).toMatchObject({
      sourceType: 'CRM_UI',
      updatedByUserId: sandbox.store.userId,
    });

    const expired = await fetch(`${sandbox.url}/__sandbox/tokens/expire`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ token: tokens.accessToken }),
    });
    expect(await expired.json()).toEqual({ expired: 1 });
    expect((await apiError(hubspot.crm.companies.basicApi.getById(id))).code).toBe(401);

    const stats = (await (await fetch(`${sandbox.url}/__sandbox/stats`)).json()) as {
      byOperation: Record<string, Record<string, number>>;
    };
    expect(stats.byOperation['crm.companies.basicApi.getById']).toEqual({ 200: 1, 401: 1 });
    expect(stats.byOperation['oauth.tokensApi.create']).toEqual({ 200: 1 });
  });
});
