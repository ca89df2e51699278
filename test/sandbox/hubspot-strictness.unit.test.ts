// The HubSpot sandbox refuses, over real HTTP, what HubSpot refuses: a write input without its required
// `properties` (update, create, batch update), a string value past 65,536 characters, a non-string value
// with leading or trailing whitespace; and association ids come back as the strings the v4 spec declares.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningHubSpotSandbox, startHubSpotSandbox } from '../../emulators/hubspot/server.ts';

let hs: RunningHubSpotSandbox;
beforeAll(async () => {
  hs = await startHubSpotSandbox();
});
afterAll(() => hs.close());

async function call(method: string, path: string, body?: unknown) {
  const res = await fetch(`${hs.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${hs.accessToken}`, 'content-type': 'application/json' },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const text = await res.text();
  return { status: res.status, body: (text ? JSON.parse(text) : undefined) as Record<string, unknown> };
}

async function company(): Promise<string> {
  const res = await call('POST', '/crm/v3/objects/companies', { properties: { name: 'Strict ISD' } });
  expect(res.status).toBe(201);
  return String(res.body.id);
}

describe('required members of a write', () => {
  it('answers 400 VALIDATION_ERROR to an update, a create and a batch update without properties', async () => {
    const id = await company();
    const update = await call('PATCH', `/crm/v3/objects/companies/${id}`, {});
    expect(update.status).toBe(400);
    expect(update.body).toMatchObject({
      status: 'error',
      category: 'VALIDATION_ERROR',
      message: expect.stringContaining(
        'Cannot build SimplePublicObjectInput, some of required attributes are not set [properties]',
      ),
    });
    const create = await call('POST', '/crm/v3/objects/companies', { associations: [] });
    expect(create.status).toBe(400);
    expect(create.body.category).toBe('VALIDATION_ERROR');
    const batch = await call('POST', '/crm/v3/objects/companies/batch/update', { inputs: [{ id }] });
    expect(batch.status).toBe(400);
    expect(String(batch.body.message)).toContain('[properties]');
    // Empty properties are a valid (no-op) update.
    expect((await call('PATCH', `/crm/v3/objects/companies/${id}`, { properties: {} })).status).toBe(200);
  });
});

describe('property values', () => {
  it('refuses a string value past 65,536 characters and keeps one of exactly that length', async () => {
    const id = await company();
    const tooLong = await call('PATCH', `/crm/v3/objects/companies/${id}`, {
      properties: { description: 'd'.repeat(70_000) },
    });
    expect(tooLong.status).toBe(400);
    expect(tooLong.body.category).toBe('VALIDATION_ERROR');
    expect(String(tooLong.body.message)).toContain('MAX_LENGTH_EXCEEDED');
    const fits = await call('PATCH', `/crm/v3/objects/companies/${id}`, {
      properties: { description: 'd'.repeat(65_536) },
    });
    expect(fits.status).toBe(200);
  });

  it('refuses a date that does not exist and a datetime that is no ISO 8601', async () => {
    const made = await call('POST', '/crm/v3/properties/companies', {
      name: 'strict_opened',
      label: 'Opened',
      type: 'date',
      fieldType: 'date',
      groupName: 'companyinformation',
    });
    expect(made.status).toBe(201);
    const id = await company();
    const feb30 = await call('PATCH', `/crm/v3/objects/companies/${id}`, {
      properties: { strict_opened: '2024-02-30' },
    });
    expect(feb30.status).toBe(400);
    expect(String(feb30.body.message)).toContain('INVALID_DATE');
    const feb29 = await call('PATCH', `/crm/v3/objects/companies/${id}`, {
      properties: { strict_opened: '2024-02-29' },
    });
    expect((feb29.body.properties as Record<string, string>).strict_opened).toBe('2024-02-29');
    const note = (hs_timestamp: string) =>
      call('POST', '/crm/v3/objects/notes', { properties: { hs_timestamp, hs_note_body: 'x' } });
    const spaced = await note('2024-05-01 13:00:00');
    expect(spaced.status).toBe(400);
    expect(String(spaced.body.message)).toContain('INVALID_DATE');
    const iso = await note('2024-05-01T13:00:00+0200');
    expect(iso.status).toBe(201);
    expect((iso.body.properties as Record<string, string>).hs_timestamp).toBe('2024-05-01T11:00:00.000Z');
  });

  it('refuses a number with surrounding whitespace', async () => {
    const id = await company();
    const res = await call('PATCH', `/crm/v3/objects/companies/${id}`, {
      properties: { numberofemployees: ' 12' },
    });
    expect(res.status).toBe(400);
    expect(String(res.body.message)).toContain('LEADING_TRAILING_WHITESPACE');
  });
});

describe('association ids', () => {
  it('are strings in the v4 list and in the labelled create answer', async () => {
    const id = await company();
    const note = await call('POST', '/crm/v3/objects/notes', {
      properties: { hs_timestamp: new Date().toISOString(), hs_note_body: 'hello' },
    });
    const noteId = String(note.body.id);
    const created = await call('PUT', `/crm/v4/objects/notes/${noteId}/associations/companies/${id}`, [
      { associationCategory: 'HUBSPOT_DEFINED', associationTypeId: 190 },
    ]);
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ fromObjectId: noteId, toObjectId: id });
    const list = await call('GET', `/crm/v4/objects/companies/${id}/associations/notes`);
    expect(list.body.results).toEqual([expect.objectContaining({ toObjectId: noteId })]);
  });
});

describe('an archived company as association target', () => {
  it('is refused like an unknown id: note create, notes batch create and both v4 PUT forms', async () => {
    const live = await company();
    const gone = await company();
    expect((await call('DELETE', `/crm/v3/objects/companies/${gone}`)).status).toBe(204);
    const note = (to: string) => ({
      properties: { hs_timestamp: '2026-03-04T15:00:00Z', hs_note_body: 'x' },
      associations: [
        { to: { id: to }, types: [{ associationCategory: 'HUBSPOT_DEFINED', associationTypeId: 190 }] },
      ],
    });
    const invalid = {
      status: 'error',
      category: 'VALIDATION_ERROR',
      message: 'One or more associations are invalid',
      context: { INVALID_OBJECT_IDS: [`COMPANY=${gone} is not valid`] },
    };
    const single = await call('POST', '/crm/v3/objects/notes', note(gone));
    expect(single).toMatchObject({ status: 400, body: invalid });
    const batch = await call('POST', '/crm/v3/objects/notes/batch/create', {
      inputs: [note(live), note(gone)],
    });
    expect(batch).toMatchObject({ status: 400, body: invalid });
    const made = await call('POST', '/crm/v3/objects/notes', note(live));
    expect(made.status).toBe(201);
    const noteId = String(made.body.id);
    const byDefault = await call(
      'PUT',
      `/crm/v4/objects/notes/${noteId}/associations/default/companies/${gone}`,
    );
    expect(byDefault).toMatchObject({ status: 400, body: invalid });
    const labelled = await call('PUT', `/crm/v4/objects/notes/${noteId}/associations/companies/${gone}`, [
      { associationCategory: 'HUBSPOT_DEFINED', associationTypeId: 190 },
    ]);
    expect(labelled).toMatchObject({ status: 400, body: invalid });
    // Nothing was written for the archived company; the live one has its one note.
    const list = await call('GET', `/crm/v4/objects/companies/${live}/associations/notes`);
    expect((list.body.results as unknown[]).length).toBe(1);
  });
});
