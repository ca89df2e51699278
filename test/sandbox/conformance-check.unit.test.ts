// The conformance check's rules, exchange by exchange (conformance-capture.unit.test.ts sends its 24 kinds
// over HTTP): the documented answers pass — every error a vendor documents for a status, HubSpot's 403
// MISSING_SCOPES on every CRM operation of its documents, the OAuth errors, Salesforce's error array —
// and their swapped or malformed twins do not; a refused request is judged by its status, not its body;
// and the suite's teardown fails the run on a divergence or on an answer it could not check, printing
// the coverage per API.
import { appendFileSync, readFileSync } from 'node:fs';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { BUYER_INTEL_REFERENCE } from '../../emulators/buyer-intel/reference.ts';
import { HUBSPOT_REFERENCE } from '../../emulators/hubspot/reference.ts';
import { SALESFORCE_REFERENCE } from '../../emulators/salesforce/reference.ts';
import {
  type ConformanceApi,
  divergences,
  type ExchangeLine,
  exchangesFile,
  registerReference,
} from '../../emulators/shared/conformance.ts';
import setup, { referenceProblems } from '../setup/conformance.ts';

const PRIVATE_APP = 'Bearer pat-na1-sandbox';
const HUBSPOT_LIMITS = {
  'x-hubspot-ratelimit-max': '190',
  'x-hubspot-ratelimit-remaining': '189',
  'x-hubspot-ratelimit-interval-milliseconds': '10000',
  'x-hubspot-ratelimit-daily': '625000',
  'x-hubspot-ratelimit-daily-remaining': '624999',
};
const LIMIT = { 'sforce-limit-info': 'api-usage=1/15000' };
const HEADERS: Record<string, Record<string, string>> = {
  hubspot: HUBSPOT_LIMITS,
  salesforce: LIMIT,
  'buyer-intel': {},
};
// The documents each API is checked against, as its emulator registers them when its app mounts the check.
for (const reference of [HUBSPOT_REFERENCE, SALESFORCE_REFERENCE, BUYER_INTEL_REFERENCE])
  registerReference(reference);

const check = (
  api: ConformanceApi,
  method: string,
  path: string,
  status: number,
  body: unknown,
  extra: {
    headers?: Record<string, unknown>;
    requestBody?: unknown;
    raw?: boolean;
    form?: boolean;
  } = {},
) =>
  divergences(api, {
    method,
    path,
    status,
    contentType: 'application/json;charset=UTF-8',
    body: body === undefined ? undefined : extra.raw ? String(body) : JSON.stringify(body),
    headers: extra.headers ?? HEADERS[api] ?? {},
    requestBody: extra.requestBody,
    request: {
      hasBody: extra.requestBody !== undefined,
      contentType: extra.form ? 'application/x-www-form-urlencoded' : 'application/json',
      authorization: PRIVATE_APP,
    },
  });
const errorsOf = (lines: { errors: string[] }[]) => lines.flatMap((l) => l.errors).join('\n');

const hubspotError = (category: string, rest: Record<string, unknown> = {}) => ({
  status: 'error',
  message: 'Property values were not valid',
  correlationId: 'aeb5f871-7f07-4993-9211-075dc63e7cbf',
  category,
  ...rest,
});
/** The body crm-facts.md documents (and the HubSpot emulator's missingScopes sends). */
const MISSING_SCOPES = {
  status: 'error',
  message:
    "This app hasn't been granted all required scopes to make this call. Read more about required scopes here: https://developers.hubspot.com/scopes.",
  correlationId: 'aeb5f871-7f07-4993-9211-075dc63e7cbf',
  errors: [
    {
      message: 'One or more of the following scopes are required.',
      context: { requiredScopes: ['crm.objects.companies.read'] },
    },
  ],
  links: { scopes: 'https://developers.hubspot.com/scopes' },
  category: 'MISSING_SCOPES',
};
const record = (id: string) => ({
  attributes: { type: 'Account', url: `/services/data/v62.0/sobjects/Account/${id}` },
  Id: id,
  Name: 'Austin',
});
const ID = '001Dn000004F3a2AAC';
const COMPANY = '/crm/v3/objects/companies/123';

describe('the errors the vendors document pass; their swapped twins do not', () => {
  it('HubSpot: each documented error of its status, and not of another', async () => {
    const right: [number, unknown][] = [
      [400, hubspotError('VALIDATION_ERROR')],
      [401, hubspotError('INVALID_AUTHENTICATION')],
      [403, MISSING_SCOPES],
      [404, hubspotError('OBJECT_NOT_FOUND')],
      [
        429,
        {
          status: 'error',
          message: 'You have reached your ten_secondly_rolling limit.',
          errorType: 'RATE_LIMIT',
          correlationId: 'aeb5f871-7f07-4993-9211-075dc63e7cbf',
          policyName: 'TEN_SECONDLY_ROLLING',
        },
      ],
      [500, hubspotError('INTERNAL_ERROR')],
      [423, hubspotError('LOCKED')],
    ];
    for (const [status, body] of right)
      expect(await check('hubspot', 'PATCH', COMPANY, status, body), `status ${status}`).toEqual([]);
    // A 400's body under another status, and a body that is no HubSpot error at all.
    for (const status of [401, 403, 404, 429, 500])
      expect(
        errorsOf(await check('hubspot', 'PATCH', COMPANY, status, hubspotError('VALIDATION_ERROR'))),
      ).toMatch(`the ${status} body is not the error documented for ${status}`);
    expect(errorsOf(await check('hubspot', 'PATCH', COMPANY, 400, { nope: 1 }))).toMatch(/required/);
    // 404 only where the path names something; 409 only for a property's or group's create.
    expect(
      errorsOf(
        await check('hubspot', 'POST', '/crm/v3/objects/companies', 404, hubspotError('OBJECT_NOT_FOUND')),
      ),
    ).toMatch(/status 404 is not documented/);
    expect(
      errorsOf(await check('hubspot', 'PATCH', COMPANY, 409, hubspotError('OBJECT_ALREADY_EXISTS'))),
    ).toMatch(/status 409 is not documented/);
  });

  it('HubSpot: 403 MISSING_SCOPES passes on every CRM operation of the documents (and HubSpot’s Error schema)', async () => {
    const files = ['companies-v3', 'notes-v3', 'tasks-v3', 'properties-v3', 'associations-v4', 'owners-v3'];
    let operations = 0;
    for (const name of files) {
      const spec = JSON.parse(
        readFileSync(new URL(`../fixtures/reference/hubspot-openapi/${name}.json`, import.meta.url), 'utf8'),
      ) as { paths: Record<string, Record<string, unknown>> };
      for (const [template, methods] of Object.entries(spec.paths)) {
        const path = template
          .replace(/\{objectType\}|\{fromObjectType\}|\{toObjectType\}/g, 'companies')
          .replace(/\{[^}]+\}/g, '7');
        for (const method of Object.keys(methods).filter((m) =>
          ['get', 'post', 'put', 'patch', 'delete'].includes(m),
        )) {
          operations++;
          expect(await check('hubspot', method, path, 403, MISSING_SCOPES), `${method} ${template}`).toEqual(
            [],
          );
        }
      }
    }
    expect(operations).toBe(59);
    const { errors: _e, ...noScopes } = MISSING_SCOPES;
    expect(errorsOf(await check('hubspot', 'GET', COMPANY, 403, noScopes))).toMatch(
      /403 body is not the error/,
    );
  });

  it('HubSpot OAuth: the v1 and v3 errors (status, message, error, error_description) pass; one without them does not', async () => {
    const oauth = {
      status: 'BAD_REFRESH_TOKEN',
      message: 'missing or invalid refresh token',
      correlationId: 'aeb5f871-7f07-4993-9211-075dc63e7cbf',
      error: 'invalid_grant',
      error_description: 'missing or invalid refresh token',
    };
    for (const path of ['/oauth/v1/token', '/oauth/v3/token', '/oauth/v3/token/introspect']) {
      expect(await check('hubspot', 'POST', path, 400, oauth, { headers: {} }), path).toEqual([]);
      expect(
        errorsOf(await check('hubspot', 'POST', path, 400, { ...oauth, error: 'nope' }, { headers: {} })),
      ).toMatch(/400 body is not the error documented/);
      expect(await check('hubspot', 'POST', path, 200, { token: 'x' }, { headers: {} })).not.toEqual([]);
    }
    // The retired v1 endpoint answers as an unknown route does; no other OAuth route has a 404.
    const gone = { status: 'error', message: 'resource not found', correlationId: oauth.correlationId };
    expect(await check('hubspot', 'POST', '/oauth/v1/token', 404, gone, { headers: {} })).toEqual([]);
    expect(errorsOf(await check('hubspot', 'POST', '/oauth/v3/token', 404, gone, { headers: {} }))).toMatch(
      /status 404 is not documented/,
    );
  });

  it('Salesforce: errorCodes with their status; REQUEST_LIMIT_EXCEEDED is a 403, never a 429', async () => {
    const path = `/services/data/v62.0/sobjects/Account/${ID}`;
    const sf = (errorCode: string) => [{ message: 'x', errorCode }];
    const right: [number, string][] = [
      [400, 'MALFORMED_ID'],
      [400, 'UNABLE_TO_LOCK_ROW'],
      [401, 'INVALID_SESSION_ID'],
      [403, 'REQUEST_LIMIT_EXCEEDED'],
      [404, 'NOT_FOUND'],
      [500, 'UNKNOWN_EXCEPTION'],
      [503, 'SERVER_UNAVAILABLE'],
    ];
    for (const [status, code] of right)
      expect(await check('salesforce', 'GET', path, status, sf(code)), `${status} ${code}`).toEqual([]);
    expect(errorsOf(await check('salesforce', 'GET', path, 429, sf('REQUEST_LIMIT_EXCEEDED')))).toMatch(
      /status 429 is not documented/,
    );
    for (const [status, code] of [
      [400, 'UNKNOWN_EXCEPTION'],
      [400, 'INVALID_SESSION_ID'],
      [403, 'NOT_FOUND'],
      [500, 'MALFORMED_ID'],
    ] as const)
      expect(errorsOf(await check('salesforce', 'GET', path, status, sf(code))), `${status} ${code}`).toMatch(
        `the ${status} body is not the error documented`,
      );
    // A refusal without Sforce-Limit-Info (every REST answer carries it).
    expect(errorsOf(await check('salesforce', 'GET', path, 404, sf('NOT_FOUND'), { headers: {} }))).toMatch(
      /documented header Sforce-Limit-Info missing/,
    );
  });

  it('Buyer Intelligence: each status with the code of its meaning; 413 is none of its statuses', async () => {
    const path = '/api/external/buyer/11111111-1111-1111-1111-111111111111/attributes';
    const bi = (status: number, code: string) => ({ status, error: 'x', code, message: 'x', requestId: 'r' });
    for (const [status, code] of [
      [400, 'request.attribute.unknown'],
      [401, 'auth.token.invalid'],
      [403, 'access.bridge.denied'],
      [404, 'resource.buyer.not_found'],
      [415, 'request.media_type.unsupported'],
      [429, 'rate_limit.exceeded'],
      [500, 'server.error'],
    ] as const)
      expect(await check('buyer-intel', 'GET', path, status, bi(status, code)), `${status}`).toEqual([]);
    expect(
      errorsOf(await check('buyer-intel', 'GET', path, 400, bi(400, 'resource.buyer.not_found'))),
    ).toMatch(/400 body is not the error documented/);
    expect(errorsOf(await check('buyer-intel', 'GET', path, 413, bi(413, 'request.body.too_large')))).toMatch(
      /status 413 is not documented/,
    );
    expect(
      errorsOf(
        await check('buyer-intel', 'GET', path, 429, bi(429, 'rate_limit.exceeded'), {
          headers: { 'retry-after': 'soon' },
        }),
      ),
    ).toMatch(/Retry-After "soon" does not match/);
  });
});

describe('requests', () => {
  const answer = {
    status: 'COMPLETE',
    results: [],
    startedAt: '2026-01-01T00:00:00Z',
    completedAt: '2026-01-01T00:00:01Z',
  };
  const bad = { inputs: [{ properties: 'not an object' }] };
  const path = '/crm/v3/objects/companies/batch/update';

  it('an accepted request the reference refuses is reported; a refused one is judged by its status alone', async () => {
    expect(errorsOf(await check('hubspot', 'POST', path, 200, answer, { requestBody: bad }))).toMatch(
      /accepted a request the reference refuses/,
    );
    expect(
      await check('hubspot', 'POST', path, 400, hubspotError('VALIDATION_ERROR'), { requestBody: bad }),
    ).toEqual([]);
    expect(
      errorsOf(
        await check('hubspot', 'POST', path, 418, hubspotError('VALIDATION_ERROR'), { requestBody: bad }),
      ),
    ).toMatch(/status 418 is not documented/);
  });

  it('form-encoded token requests are validated like JSON ones', async () => {
    const token = { token_type: 'bearer', refresh_token: 'r', access_token: 'a', expires_in: 1800 };
    const form = (requestBody: Record<string, string>) =>
      check('hubspot', 'POST', '/oauth/v1/token', 200, token, { headers: {}, requestBody, form: true });
    expect(
      await form({ grant_type: 'refresh_token', client_id: 'c', client_secret: 's', refresh_token: 'r' }),
    ).toEqual([]);
    expect(errorsOf(await form({ grant_type: 'password', client_id: 'c', client_secret: 's' }))).toMatch(
      /accepted a request the reference refuses: \/grant_type must be equal to one of the allowed values/,
    );
  });
});

describe('answers', () => {
  it('a route no document has, unless it is the documented unknown-resource answer', async () => {
    expect(errorsOf(await check('hubspot', 'GET', '/crm/v3/objects/tickets/1', 200, {}))).toBe(
      'no operation in the reference documents for this method and path',
    );
    expect(await check('salesforce', 'GET', '/services/data/v62.0/limits', 200, {})).toHaveLength(1);
    expect(
      await check('salesforce', 'GET', '/services/data/v62.0/limits', 404, [
        { errorCode: 'NOT_FOUND', message: 'The requested resource does not exist' },
      ]),
    ).toEqual([]);
  });

  it('Salesforce: a query result without done, save results without ids; the right ones pass', async () => {
    const base = '/services/data/v62.0';
    expect(
      await check('salesforce', 'GET', `${base}/query`, 200, { totalSize: 1, records: [record(ID)] }),
    ).toHaveLength(1);
    expect(
      await check('salesforce', 'POST', `${base}/composite/sobjects`, 200, [{ success: true, errors: [] }], {
        requestBody: { records: [{ attributes: { type: 'Account' }, Name: 'A' }] },
      }),
    ).toHaveLength(1);
    expect(
      await check('salesforce', 'GET', `${base}/query`, 200, {
        totalSize: 1,
        done: true,
        records: [record(ID)],
      }),
    ).toEqual([]);
    const malformed = await check('salesforce', 'GET', `${base}/sobjects/Account/${ID}`, 200, record(ID), {
      headers: { 'sforce-limit-info': '5' },
    });
    expect(errorsOf(malformed)).toMatch(/header Sforce-Limit-Info "5" does not match/);
  });

  it('a declared JSON body that is no JSON, a 204 with a body, a 200 without one', async () => {
    expect(errorsOf(await check('hubspot', 'GET', COMPANY, 200, '{"id":', { raw: true }))).toMatch(
      /^body is no JSON/,
    );
    expect(errorsOf(await check('hubspot', 'DELETE', COMPANY, 204, { id: '1' }))).toMatch(
      /a 204 answer with a body/,
    );
    expect(errorsOf(await check('hubspot', 'GET', COMPANY, 200, undefined))).toMatch(
      /no body; the reference declares/,
    );
  });
});

describe('the suite teardown', () => {
  const saved = { file: process.env.EMULATOR_CONFORMANCE_FILE, exitCode: process.exitCode };
  afterEach(() => {
    process.env.EMULATOR_CONFORMANCE_FILE = saved.file;
    process.exitCode = saved.exitCode;
    vi.restoreAllMocks();
  });
  const exchange = (answer: string, request = 'none'): ExchangeLine => ({
    api: 'hubspot',
    method: 'GET',
    route: '/crm/v3/objects/companies/{companyId}',
    status: 200,
    answer,
    request,
  });
  const addExchange = (line: ExchangeLine) =>
    appendFileSync(exchangesFile(process.env.EMULATOR_CONFORMANCE_FILE ?? ''), `${JSON.stringify(line)}\n`);

  it('passes with nothing to report, printing the coverage per API', () => {
    const printed = vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
    const teardown = setup();
    addExchange(exchange('checked', 'body'));
    addExchange(exchange('excluded: an injected fault', 'excluded: an injected fault'));
    teardown();
    expect(process.exitCode).toBe(saved.exitCode);
    expect(printed.mock.calls.join('')).toContain(
      'hubspot: 2 answers seen, 1 validated (100.0 % of 1 in scope)',
    );
    // Every registered emulator's API is in the report, reached in this run or not.
    expect(printed.mock.calls.join('')).toContain('salesforce: no answers in this run');
  });

  it('finds every registered emulator’s reference documents, and names one that is missing or unsourced', () => {
    expect(referenceProblems()).toEqual([]);
    expect(
      referenceProblems([{ api: 'newcrm', documents: ['newcrm.json', 'hubspot-openapi/companies-v3.json'] }]),
    ).toEqual(['newcrm: its reference document newcrm.json is not in test/fixtures/reference/']);
    expect(referenceProblems([{ api: 'newcrm', documents: ['SOURCES.md'] }])).toEqual([
      'newcrm: SOURCES.md has no row in SOURCES.md',
    ]);
  });

  it('throws listing a divergence, and sets a failing exit code', () => {
    const teardown = setup();
    appendFileSync(
      process.env.EMULATOR_CONFORMANCE_FILE ?? '',
      `${JSON.stringify({ api: 'hubspot', method: 'GET', path: '/x', status: 200, errors: ['/ wrong'] })}\n`,
    );
    expect(() => teardown()).toThrow(/hubspot GET \/x → 200: \/ wrong/);
    expect(process.exitCode).toBe(1);
  });

  it('throws when an answer went unchecked (below 100 %)', () => {
    vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
    const teardown = setup();
    addExchange(exchange('checked'));
    addExchange(exchange('unchecked: the check failed'));
    expect(() => teardown()).toThrow(/could not validate \(1; below 100 %\)/);
    expect(process.exitCode).toBe(1);
  });
});
