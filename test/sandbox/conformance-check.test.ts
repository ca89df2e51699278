// The conformance check cannot pass blind: fed a wrong answer of each kind (an error body of HubSpot's
// `*/*` errors, an OAuth token answer, a route no reference document has, a request the reference
// refuses but the emulator accepted, Salesforce's error array, query result, save results and its
// Sforce-Limit-Info header, a declared JSON body that is no JSON), it reports each; a right answer it
// does not; and a reported divergence fails the run (the suite's teardown throws and sets the exit code).
import { appendFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type ConformanceApi, divergences } from '../../emulators/shared/conformance.ts';
import setup from '../setup/conformance.ts';

const LIMIT = { 'sforce-limit-info': 'api-usage=1/15000' };
const check = (
  api: ConformanceApi,
  method: string,
  path: string,
  status: number,
  body: unknown,
  extra: { headers?: Record<string, unknown>; requestBody?: unknown; raw?: boolean } = {},
) =>
  divergences(api, {
    method,
    path,
    status,
    contentType: 'application/json;charset=UTF-8',
    body: extra.raw ? String(body) : JSON.stringify(body),
    headers: extra.headers ?? {},
    requestBody: extra.requestBody,
  });

const hubspotError = {
  status: 'error',
  message: 'Property values were not valid',
  correlationId: 'aeb5f871-7f07-4993-9211-075dc63e7cbf',
  category: 'VALIDATION_ERROR',
};
const record = (id: string) => ({
  attributes: { type: 'Account', url: `/services/data/v62.0/sobjects/Account/${id}` },
  Id: id,
  Name: 'Austin',
});
const ID = '001Dn000004F3a2AAC';

describe('the conformance check reports a wrong answer of each kind', () => {
  it('HubSpot error bodies (declared */*) on 400, 404, 429 and 500', async () => {
    for (const status of [400, 404, 429, 500]) {
      const lines = await check('hubspot', 'PATCH', '/crm/v3/objects/companies/123', status, { nope: 1 });
      expect(lines, `status ${status}`).toHaveLength(1);
      expect(lines[0]?.errors.join(' ')).toContain('required');
    }
    expect(await check('hubspot', 'PATCH', '/crm/v3/objects/companies/123', 400, hubspotError)).toEqual([]);
  });

  it('the OAuth token routes, v1 and v3', async () => {
    for (const path of ['/oauth/v1/token', '/oauth/v3/token']) {
      expect(await check('hubspot', 'POST', path, 200, { token: 'x' })).toHaveLength(1);
    }
  });

  it('a route no reference document has', async () => {
    const lines = await check('hubspot', 'GET', '/crm/v3/objects/tickets/1', 200, {});
    expect(lines[0]?.errors).toEqual(['no operation in the reference documents for this method and path']);
    expect(await check('salesforce', 'GET', '/services/data/v62.0/limits', 200, {})).toHaveLength(1);
  });

  it('a request the reference refuses that the emulator accepted (and not one it refused)', async () => {
    const answer = {
      status: 'COMPLETE',
      results: [],
      startedAt: '2026-01-01T00:00:00Z',
      completedAt: '2026-01-01T00:00:01Z',
    };
    const bad = { inputs: [{ properties: 'not an object' }] };
    const path = '/crm/v3/objects/companies/batch/update';
    const accepted = await check('hubspot', 'POST', path, 200, answer, { requestBody: bad });
    expect(accepted[0]?.errors.join(' ')).toContain('accepted a request the reference refuses');
    expect(await check('hubspot', 'POST', path, 400, hubspotError, { requestBody: bad })).toEqual([]);
  });

  it('Salesforce: an error that is no error array, a query result without done, save results without ids', async () => {
    const base = '/services/data/v62.0';
    expect(
      await check(
        'salesforce',
        'GET',
        `${base}/sobjects/Account/${ID}`,
        404,
        { message: 'x' },
        { headers: LIMIT },
      ),
    ).toHaveLength(1);
    expect(
      await check(
        'salesforce',
        'GET',
        `${base}/query`,
        200,
        { totalSize: 1, records: [record(ID)] },
        { headers: LIMIT },
      ),
    ).toHaveLength(1);
    expect(
      await check('salesforce', 'POST', `${base}/composite/sobjects`, 200, [{ success: true, errors: [] }], {
        headers: LIMIT,
        requestBody: { records: [{ attributes: { type: 'Account' }, Name: 'A' }] },
      }),
    ).toHaveLength(1);
    expect(
      await check('salesforce', 'POST', '/services/oauth2/token', 400, { error: 'invalid_grant' }),
    ).toHaveLength(1);
    // The right answers pass.
    expect(
      await check(
        'salesforce',
        'GET',
        `${base}/query`,
        200,
        { totalSize: 1, done: true, records: [record(ID)] },
        { headers: LIMIT },
      ),
    ).toEqual([]);
    expect(
      await check(
        'salesforce',
        'GET',
        `${base}/sobjects/Account/${ID}`,
        404,
        [{ errorCode: 'NOT_FOUND', message: 'x' }],
        { headers: LIMIT },
      ),
    ).toEqual([]);
  });

  it('Salesforce: a REST answer without Sforce-Limit-Info, or with a malformed one', async () => {
    const path = `/services/data/v62.0/sobjects/Account/${ID}`;
    const missing = await check('salesforce', 'GET', path, 200, record(ID));
    expect(missing[0]?.errors).toEqual(['required header Sforce-Limit-Info missing']);
    const malformed = await check('salesforce', 'GET', path, 200, record(ID), {
      headers: { 'sforce-limit-info': '5' },
    });
    expect(malformed).toHaveLength(1);
  });

  it('a declared JSON body that is no JSON, and Buyer Intelligence answers', async () => {
    const lines = await check('hubspot', 'GET', '/crm/v3/objects/companies/1', 200, '{"id":', { raw: true });
    expect(lines[0]?.errors[0]).toMatch(/^body is no JSON/);
    const bi = await check('buyer-intel', 'GET', '/buyer/11111111-1111-1111-1111-111111111111', 200, {
      nope: true,
    });
    expect(bi.length).toBeGreaterThan(0);
  });
});

describe('a divergence fails the run', () => {
  const saved = { file: process.env.EMULATOR_CONFORMANCE_FILE, exitCode: process.exitCode };
  afterEach(() => {
    process.env.EMULATOR_CONFORMANCE_FILE = saved.file;
    process.exitCode = saved.exitCode;
  });

  it('the suite teardown throws listing it and sets a failing exit code; with none it passes', () => {
    const dir = mkdtempSync(join(tmpdir(), 'conformance-self-'));
    try {
      const clean = setup();
      clean();
      expect(process.exitCode).toBe(saved.exitCode);
      const teardown = setup();
      const file = process.env.EMULATOR_CONFORMANCE_FILE ?? '';
      appendFileSync(
        file,
        `${JSON.stringify({ api: 'hubspot', method: 'GET', path: '/x', status: 200, errors: ['/ wrong'] })}\n`,
      );
      expect(() => teardown()).toThrow(/hubspot GET \/x → 200: \/ wrong/);
      expect(process.exitCode).toBe(1);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
