// The conformance check cannot be fooled: 24 kinds of wrong answers and wrongly accepted requests, each
// sent over real HTTP through the check's middleware, each reported. Most are the real emulators'
// answers (HubSpot, Salesforce, Buyer Intelligence) bent by a layer in front of them — a status swapped
// (400 → 404, 400 → 500, REQUEST_LIMIT_EXCEEDED 403 → 429, unknown buyer 404 → 400), a header dropped
// or malformed (X-HubSpot-RateLimit-*, Sforce-Limit-Info on a 204 sent with res.end, Retry-After), a body
// member dropped or mistyped — so the capture of `res.send`, `res.end` and `writeHead` is what is tested,
// not only the rules. The rest are stand-ins that accept what the vendor refuses (a form-encoded token
// request without its secret, a JSON body to a form endpoint, a write without its body). The same
// answers unbent pass, and every exchange is counted as checked for the run's coverage. Long for a file:
// the set-up of the bent emulators, then one table entry per kind.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import express, { type NextFunction, type Request, type Response } from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBuyerIntelSandbox } from '../../emulators/buyer-intel/app.ts';
import { BUYER_INTEL_REFERENCE } from '../../emulators/buyer-intel/reference.ts';
import { createHubSpotSandbox, type HubSpotSandbox } from '../../emulators/hubspot/app.ts';
import { HUBSPOT_REFERENCE } from '../../emulators/hubspot/reference.ts';
import { createSalesforceSandbox, type SalesforceSandbox } from '../../emulators/salesforce/app.ts';
import { SALESFORCE_REFERENCE } from '../../emulators/salesforce/reference.ts';
import {
  conformanceCheck,
  type ExchangeLine,
  exchangesFile,
  type Line,
} from '../../emulators/shared/conformance.ts';
import { type Listening, listen } from '../../src/service/listen.ts';

const dir = mkdtempSync(join(tmpdir(), 'conformance-capture-'));
const file = join(dir, 'divergences.jsonl');
const running: Listening[] = [];
const saved = process.env.EMULATOR_CONFORMANCE_FILE;

/** Whatever is created inside writes to this file's own conformance file, not the run's. */
function privately<T>(make: () => T): T {
  process.env.EMULATOR_CONFORMANCE_FILE = file;
  try {
    return make();
  } finally {
    process.env.EMULATOR_CONFORMANCE_FILE = saved;
  }
}

interface Bend {
  status?: (status: number) => number;
  dropHeaders?: string[];
  setHeaders?: Record<string, string>;
  body?: (body: Record<string, unknown>) => unknown;
  /** Sent instead of the body, as is. */
  raw?: string;
}

/** A layer in front of an emulator that bends its answer on the way out. */
function bend(b: Bend) {
  return (_req: Request, res: Response, next: NextFunction) => {
    const out = res as unknown as Record<'writeHead' | 'send', (...args: unknown[]) => unknown>;
    const { writeHead, send } = out;
    out.writeHead = function (this: Response, status: unknown, ...rest: unknown[]) {
      for (const h of b.dropHeaders ?? []) this.removeHeader(h);
      for (const [k, v] of Object.entries(b.setHeaders ?? {})) this.setHeader(k, v);
      return writeHead.call(this, b.status ? b.status(Number(status)) : status, ...rest);
    };
    const { body: reshape, raw } = b;
    if (reshape || raw !== undefined) {
      out.send = function (this: Response, body: unknown) {
        const text = Buffer.isBuffer(body) ? body.toString('utf8') : String(body);
        const bent = raw ?? JSON.stringify(reshape?.(JSON.parse(text)));
        return send.call(this, Buffer.from(bent, 'utf8'));
      };
    }
    next();
  };
}

let hubspot: HubSpotSandbox;
let salesforce: SalesforceSandbox;
let exhausted: SalesforceSandbox;
const urls: Record<string, string> = {};

async function serve(name: string, app: express.Express) {
  const listening = await listen(app);
  running.push(listening);
  urls[name] = listening.url;
}

/** An emulator behind a bend per path prefix `/<kind>/…`, which the emulator does not see. */
function bent(emulator: express.Express, bends: Record<string, Bend>): express.Express {
  const app = express();
  app.use((req, res, next) => {
    const kind = /^\/([A-Za-z0-9]+)(?=\/(crm|oauth|services|api)\/)/.exec(req.url)?.[1];
    const b = kind === undefined ? undefined : bends[kind];
    if (!b) return next();
    req.url = req.url.slice(String(kind).length + 1);
    bend(b)(req, res, next);
  });
  app.use(emulator);
  return app;
}

const REFERENCES = {
  hubspot: HUBSPOT_REFERENCE,
  salesforce: SALESFORCE_REFERENCE,
  'buyer-intel': BUYER_INTEL_REFERENCE,
};

/** A stand-in that answers what the vendor would refuse, behind the real check. */
function standIn(api: keyof typeof REFERENCES, routes: (app: express.Express) => void): express.Express {
  const app = express();
  app.use(privately(() => conformanceCheck(REFERENCES[api])));
  routes(app);
  return app;
}

const HUBSPOT_TOKEN_ANSWER = {
  token_type: 'bearer',
  refresh_token: 'r',
  access_token: 'a',
  expires_in: 1800,
};

let companyId = '';
let oauthToken = '';
let accountId = '';
const BUYER = '5a6b7c8d-0000-4000-8000-000000000001';

beforeAll(async () => {
  hubspot = privately(() => createHubSpotSandbox({ rateLimits: false }));
  const limited = privately(() => createHubSpotSandbox({ rateLimits: { tenSecondly: 1 } }));
  salesforce = privately(() => createSalesforceSandbox());
  exhausted = privately(() => createSalesforceSandbox({ dailyApiRequests: 1 }));
  const buyerIntel = privately(() => createBuyerIntelSandbox({ buyerCount: 20, rateLimit: false }));
  const throttled = privately(() =>
    createBuyerIntelSandbox({ buyerCount: 20, rateLimit: { ratePerSecond: 0.01, burst: 1 } }),
  );
  companyId = hubspot.store.createCompany({ name: 'Capture ISD' }).id;
  oauthToken = hubspot.auth.issueTokens().access_token;
  accountId = salesforce.store.create('Account', { Name: 'Capture County' }).id;
  const rateLimitDrop = ['X-HubSpot-RateLimit-Max', 'X-HubSpot-RateLimit-Remaining'];
  await serve(
    'hubspot',
    bent(hubspot.app, {
      '400as404': { status: (s) => (s === 400 ? 404 : s) },
      '400as500': { status: (s) => (s === 400 ? 500 : s) },
      '200as409': { status: (s) => (s === 200 ? 409 : s) },
      '415as422': { status: (s) => (s === 415 ? 422 : s) },
      noId: { body: ({ id: _id, ...rest }) => rest },
      archivedText: { body: (b) => ({ ...b, archived: 'no' }) },
      noLimits: { dropHeaders: rateLimitDrop },
      limitText: { setHeaders: { 'X-HubSpot-RateLimit-Remaining': 'plenty' } },
      dailyOnOauth: { setHeaders: { 'X-HubSpot-RateLimit-Daily': '250000' } },
      noOauthError: { body: ({ error: _e, error_description: _d, ...rest }) => rest },
      truncated: { raw: '{"id":' },
      scopesWithout: {
        status: () => 403,
        body: (b) => ({ ...b, category: 'MISSING_SCOPES', errors: [{ message: 'scopes' }] }),
      },
    }),
  );
  await serve('limited', bent(limited.app, { no429type: { body: ({ errorType: _t, ...rest }) => rest } }));
  await serve(
    'salesforce',
    bent(salesforce.app, {
      noLimitInfo: { dropHeaders: ['Sforce-Limit-Info'] },
      errorObject: { body: (b) => (Array.isArray(b) ? b[0] : b) },
      noDone: { body: ({ done: _d, ...rest }) => rest },
      '401as400': { status: (s) => (s === 401 ? 400 : s) },
    }),
  );
  await serve('exhausted', bent(exhausted.app, { '403as429': { status: (s) => (s === 403 ? 429 : s) } }));
  await serve('buyerIntel', bent(buyerIntel.app, { '404as400': { status: (s) => (s === 404 ? 400 : s) } }));
  await serve(
    'throttled',
    bent(throttled.app, { retryAfterText: { setHeaders: { 'Retry-After': 'soon' } } }),
  );
  await serve(
    'hubspotStandIn',
    standIn('hubspot', (app) => {
      app.post('/oauth/v1/token', express.urlencoded({ extended: false }), (_req, res) => {
        res.json(HUBSPOT_TOKEN_ANSWER);
      });
      app.post('/oauth/v3/token', express.json(), (_req, res) => {
        res.json({ ...HUBSPOT_TOKEN_ANSWER, token_use: 'access_token', hub_id: 1, user_id: 1, scopes: [] });
      });
      // A PATCH without its body, answered as if it were one (headers as HubSpot sends them).
      app.patch('/crm/v3/objects/companies/:id', (req, res) => {
        for (const h of ['Max', 'Remaining', 'Interval-Milliseconds', 'Daily', 'Daily-Remaining'])
          res.setHeader(`X-HubSpot-RateLimit-${h}`, '100');
        res.json({
          id: req.params.id,
          properties: {},
          createdAt: '2026-01-01T00:00:00Z',
          updatedAt: '2026-01-01T00:00:00Z',
          archived: false,
        });
      });
      // The answer written in pieces, then a bare end.
      app.get('/crm/v3/owners/:id', (_req, res) => {
        res.writeHead(200, { 'Content-Type': 'application/json' });
        res.write('{"id":"1","email":"a@b.c",');
        res.write('"type":"PERSON","archived":"no"}');
        res.end();
      });
    }),
  );
  await serve(
    'salesforceStandIn',
    standIn('salesforce', (app) => {
      app.post('/services/oauth2/token', express.urlencoded({ extended: false }), (_req, res) => {
        res.json({
          access_token: 'x',
          instance_url: 'http://127.0.0.1',
          id: 'http://127.0.0.1/id/1/2',
          token_type: 'Bearer',
          issued_at: '1',
          signature: 's',
        });
      });
      // A 204 whose headers are all given to writeHead (none set before): kept only if the check sets them.
      app.patch('/services/data/v62.0/sobjects/Account/:id', (req, res) => {
        res.writeHead(
          204,
          req.query.limit === undefined ? { 'X-Other': '1' } : { 'Sforce-Limit-Info': 'api-usage=1/15000' },
        );
        res.end();
      });
    }),
  );
});

afterAll(async () => {
  await Promise.all(running.map((r) => r.close()));
  hubspot?.webhooks.close();
  rmSync(dir, { recursive: true, force: true });
});

const readJsonLines = <T>(path: string): T[] => {
  try {
    return readFileSync(path, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as T);
  } catch {
    return [];
  }
};

/** Sends one request and returns the divergences the check wrote for its path. */
async function send(
  target: string,
  path: string,
  init: { method?: string; token?: string; json?: unknown; form?: Record<string, string>; raw?: string } = {},
): Promise<{ status: number; lines: Line[]; checked: ExchangeLine[] }> {
  const before = readJsonLines<Line>(file).length;
  const headers: Record<string, string> = {};
  if (init.token !== '') headers.authorization = `Bearer ${init.token ?? hubspot.auth.privateAppToken}`;
  let body: string | undefined;
  if (init.json !== undefined) {
    headers['content-type'] = 'application/json';
    body = JSON.stringify(init.json);
  } else if (init.form) {
    headers['content-type'] = 'application/x-www-form-urlencoded';
    body = new URLSearchParams(init.form).toString();
  } else if (init.raw !== undefined) {
    headers['content-type'] = 'text/plain';
    body = init.raw;
  }
  const res = await fetch(`${urls[target]}${path}`, { method: init.method ?? 'GET', headers, body });
  await res.arrayBuffer();
  const bare = path.split('?')[0]?.replace(/^\/[A-Za-z0-9]+(?=\/(crm|oauth|services|api)\/)/, '') ?? '';
  const lines = readJsonLines<Line>(file)
    .slice(before)
    .filter((l) => l.path === bare || (l as { error?: string }).error !== undefined);
  const checked = readJsonLines<ExchangeLine>(exchangesFile(file));
  return { status: res.status, lines, checked };
}

const sfToken = () => ({ token: salesforce.auth.issueAccessToken() });
const SF = '/services/data/v62.0';

/** The 24 kinds: where to send what, and what the report must say. */
const KINDS: [name: string, go: () => ReturnType<typeof send>, says: RegExp][] = [
  [
    'HubSpot: a 400 sent as 404',
    () =>
      send('hubspot', `/400as404/crm/v3/objects/companies/${companyId}`, {
        method: 'PATCH',
        json: { properties: { nope: 'x' } },
      }),
    /404 body is not the error documented for 404/,
  ],
  [
    'HubSpot: a 400 sent as 500',
    () =>
      send('hubspot', `/400as500/crm/v3/objects/companies/${companyId}`, {
        method: 'PATCH',
        json: { properties: { nope: 'x' } },
      }),
    /500 body is not the error documented for 500/,
  ],
  [
    'HubSpot: a 200 without a required member (id)',
    () => send('hubspot', `/noId/crm/v3/objects/companies/${companyId}`),
    /must have required property 'id'/,
  ],
  [
    'HubSpot: a member of the wrong type (archived: "no")',
    () => send('hubspot', `/archivedText/crm/v3/objects/companies/${companyId}`),
    /\/archived must be boolean/,
  ],
  [
    'HubSpot: a status the operation does not list, with a `default` (409 to a GET)',
    () => send('hubspot', `/200as409/crm/v3/objects/companies/${companyId}`),
    /status 409 is not documented for this operation \(only as the document's `default`/,
  ],
  [
    'HubSpot: a CRM answer without X-HubSpot-RateLimit-Max/-Remaining',
    () => send('hubspot', `/noLimits/crm/v3/objects/companies/${companyId}`),
    /documented header X-HubSpot-RateLimit-Max missing/,
  ],
  [
    'HubSpot: a 204 sent with res.end whose X-HubSpot-RateLimit-Remaining is no number',
    () =>
      send(
        'hubspot',
        `/limitText/crm/v3/objects/companies/${hubspot.store.createCompany({ name: 'Gone' }).id}`,
        { method: 'DELETE' },
      ),
    /header X-HubSpot-RateLimit-Remaining "plenty" does not match/,
  ],
  [
    'HubSpot: an OAuth-authorized call with the private apps’ daily headers',
    () => send('hubspot', `/dailyOnOauth/crm/v3/objects/companies/${companyId}`, { token: oauthToken }),
    /header X-HubSpot-RateLimit-Daily sent where the vendor sends none/,
  ],
  [
    'HubSpot: an OAuth v3 error without error/error_description',
    () =>
      send('hubspot', '/noOauthError/oauth/v3/token', {
        method: 'POST',
        form: { grant_type: 'refresh_token', client_id: 'wrong' },
      }),
    /400 body is not the error documented for 400/,
  ],
  [
    'HubSpot: a form-encoded v1 token request without client_secret accepted with 200',
    () =>
      send('hubspotStandIn', '/oauth/v1/token', {
        method: 'POST',
        form: { grant_type: 'refresh_token', client_id: 'c', refresh_token: 'r' },
      }),
    /accepted a request the reference refuses: \/ must have required property 'client_secret'/,
  ],
  [
    'HubSpot: a JSON body to the form-encoded v3 token endpoint accepted with 200',
    () =>
      send('hubspotStandIn', '/oauth/v3/token', { method: 'POST', json: { grant_type: 'refresh_token' } }),
    /accepted a request the reference refuses: a application\/json body; it takes application\/x-www-form-urlencoded/,
  ],
  [
    'HubSpot: a PATCH without its required body accepted with 200',
    () => send('hubspotStandIn', '/crm/v3/objects/companies/1', { method: 'PATCH' }),
    /no body; the operation requires one/,
  ],
  [
    'HubSpot: a 429 without errorType',
    async () => {
      await send('limited', `/crm/v3/objects/companies/${companyId}`);
      return send('limited', `/no429type/crm/v3/objects/companies/${companyId}`);
    },
    /429 body is not the error documented for 429/,
  ],
  [
    'HubSpot: a 403 MISSING_SCOPES without requiredScopes',
    () => send('hubspot', `/scopesWithout/crm/v3/objects/companies/${companyId}`),
    /403 body is not the error documented for 403/,
  ],
  [
    'HubSpot: a refused request answered with an undocumented status (415 sent as 422)',
    () => send('hubspot', '/415as422/crm/v3/objects/companies', { method: 'POST', raw: 'name=x' }),
    /status 422 is not documented for this operation/,
  ],
  [
    'HubSpot: a route no document has',
    () => send('hubspot', '/crm/v3/objects/tickets/1'),
    /no operation in the reference documents for this method and path/,
  ],
  [
    'HubSpot: a body declared JSON that is no JSON',
    () => send('hubspot', `/truncated/crm/v3/objects/companies/${companyId}`),
    /body is no JSON/,
  ],
  [
    'HubSpot: an answer written in pieces with a member of the wrong type',
    () => send('hubspotStandIn', '/crm/v3/owners/1'),
    /\/archived must be boolean/,
  ],
  [
    'Salesforce: REQUEST_LIMIT_EXCEEDED sent as 429',
    async () => {
      const token = exhausted.auth.issueAccessToken();
      await send('exhausted', `${SF}/query?q=${encodeURIComponent('SELECT Id FROM Account')}`, { token });
      return send('exhausted', `/403as429${SF}/query?q=${encodeURIComponent('SELECT Id FROM Account')}`, {
        token,
      });
    },
    /status 429 is not documented for this operation/,
  ],
  [
    'Salesforce: a 204 (res.end) without Sforce-Limit-Info',
    () =>
      send('salesforce', `/noLimitInfo${SF}/sobjects/Account/${accountId}`, {
        method: 'PATCH',
        json: { Name: 'X' },
        ...sfToken(),
      }),
    /required header Sforce-Limit-Info missing/,
  ],
  [
    'Salesforce: a 204 whose headers all went to writeHead, none of them Sforce-Limit-Info',
    () =>
      send('salesforceStandIn', `${SF}/sobjects/Account/${accountId}`, {
        method: 'PATCH',
        json: { Name: 'X' },
      }),
    /required header Sforce-Limit-Info missing/,
  ],
  [
    'Salesforce: an error that is no error array',
    () => send('salesforce', `/errorObject${SF}/sobjects/Account/001000000000000AAA`, sfToken()),
    /must be array/,
  ],
  [
    'Salesforce: INVALID_SESSION_ID sent as 400',
    () => send('salesforce', `/401as400${SF}/sobjects/Account/${accountId}`, { token: 'expired' }),
    /400 body is not the error documented for 400/,
  ],
  [
    'Salesforce: a query result without done',
    () =>
      send('salesforce', `/noDone${SF}/query?q=${encodeURIComponent('SELECT Id FROM Account')}`, sfToken()),
    /must have required property 'done'/,
  ],
  [
    'Salesforce: a token request without refresh_token accepted with 200',
    () =>
      send('salesforceStandIn', '/services/oauth2/token', {
        method: 'POST',
        form: { grant_type: 'refresh_token', client_id: 'c' },
      }),
    /accepted a request the reference refuses/,
  ],
  [
    'Buyer Intelligence: an unknown buyer (404) sent as 400',
    () => send('buyerIntel', `/404as400/api/external/buyer/${BUYER}/attributes`, { token: 'sandbox-token' }),
    /400 body is not the error documented for 400/,
  ],
  [
    'Buyer Intelligence: a 429 whose Retry-After is neither seconds nor a date',
    async () => {
      await send('throttled', `/api/external/buyer/${BUYER}/attributes`, { token: 'sandbox-token' });
      return send('throttled', `/retryAfterText/api/external/buyer/${BUYER}/attributes`, {
        token: 'sandbox-token',
      });
    },
    /header Retry-After "soon" does not match/,
  ],
];

describe('the conformance check reports each of 24 kinds of wrong answers and requests, over HTTP', () => {
  it('has 24 kinds or more', () => {
    expect(KINDS.length).toBeGreaterThanOrEqual(24);
  });
  it.each(KINDS)('%s', async (_name, go, says) => {
    const { lines } = await go();
    expect(lines.flatMap((l) => l.errors).join('\n')).toMatch(says);
  });
});

describe('the same answers unbent pass, and every one is counted as checked', () => {
  it('the emulators’ own answers to the same requests diverge in nothing', async () => {
    const right = [
      await send('hubspot', `/crm/v3/objects/companies/${companyId}`, {
        method: 'PATCH',
        json: { properties: { nope: 'x' } },
      }),
      await send('hubspot', `/crm/v3/objects/companies/${companyId}`),
      await send('hubspot', `/crm/v3/objects/companies/${companyId}`, { token: oauthToken }),
      await send('hubspot', `/crm/v3/objects/companies/${hubspot.store.createCompany({ name: 'Gone' }).id}`, {
        method: 'DELETE',
      }),
      await send('hubspot', '/oauth/v3/token', {
        method: 'POST',
        form: { grant_type: 'refresh_token', client_id: 'wrong' },
      }),
      await send('hubspot', '/oauth/v1/token', {
        method: 'POST',
        form: { grant_type: 'refresh_token', client_id: 'wrong', client_secret: 'x' },
      }),
      await send('hubspot', '/crm/v3/objects/companies', { method: 'POST', raw: 'name=x' }),
      await send('salesforce', `${SF}/sobjects/Account/${accountId}`, {
        method: 'PATCH',
        json: { Name: 'Y' },
        ...sfToken(),
      }),
      await send('salesforce', `${SF}/sobjects/Account/001000000000000AAA`, sfToken()),
      await send('salesforce', `${SF}/sobjects/Account/${accountId}`, { token: 'expired' }),
      await send('salesforce', `${SF}/query?q=${encodeURIComponent('SELECT Id FROM Account')}`, sfToken()),
      await send('salesforceStandIn', `${SF}/sobjects/Account/${accountId}?limit=1`, {
        method: 'PATCH',
        json: { Name: 'X' },
      }),
      await send('buyerIntel', `/api/external/buyer/${BUYER}/attributes`, { token: 'sandbox-token' }),
      await send('throttled', `/api/external/buyer/${BUYER}/attributes`, { token: 'sandbox-token' }),
    ];
    expect(right.map((r) => r.status)).toEqual([
      400, 200, 200, 204, 400, 400, 415, 204, 404, 401, 200, 204, 404, 429,
    ]);
    expect(right.flatMap((r) => r.lines)).toEqual([]);
  });

  it('every exchange above left a line, and every answer of them was checked', () => {
    const lines = readJsonLines<ExchangeLine>(exchangesFile(file));
    // The 24 kinds (four of them two requests) and the 14 right answers.
    expect(lines.length).toBeGreaterThanOrEqual(KINDS.length + 14);
    expect(lines.filter((l) => l.answer !== 'checked')).toEqual([]);
  });
});
