// No input answers 5xx: the attacks of issue 27 (NULs and lone surrogates in searches, states and
// reasons, crafted keyset cursors, BullMQ's own key names as job ids) each get a 4xx naming the
// problem, and then a seeded fast-check property sends thousands of generated requests over every
// route of our OpenAPI document and every admin route, asserting each answer is below 500; a failure
// shrinks to a minimal request. Real HTTP, real Redis, the HubSpot and provider emulators; no worker
// runs (queued jobs stay queued and are removed after).
import { randomBytes, randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningBuyerIntelSandbox } from '../../emulators/buyer-intel/server.ts';
import { type RunningHubSpotSandbox, startHubSpotSandbox } from '../../emulators/hubspot/server.ts';
import { sandboxSettings } from '../../emulators/settings.ts';
import { OPENAPI } from '../../src/api/openapi.ts';
import type { Service } from '../../src/service/runtime.ts';
import { startSandbox } from '../helpers/buyer-intel-sandbox.ts';
import { BULLMQ_KEYS, cursorOf, hugeId, nastyJson, nastyString, sometimes } from '../helpers/fuzz.ts';
import { closeService, createTestService } from '../helpers/service.ts';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const prefix = `test-no500-${randomUUID().slice(0, 8)}`;
const API_KEY = `key-${randomBytes(16).toString('hex')}`;
const ADMIN = { username: 'ops', password: randomBytes(12).toString('hex') };
/** ≥ 10,000 generated requests by default (FUZZ_RUNS to change; FUZZ_SEED + FUZZ_PATH replay a failure). */
const RUNS = Number(process.env.FUZZ_RUNS ?? 10_000);
const SEED = Number(process.env.FUZZ_SEED ?? 27);
const REPLAY_PATH = process.env.FUZZ_PATH;

let bi: RunningBuyerIntelSandbox;
let hs: RunningHubSpotSandbox;
let service: Service;
let base: string;
let companyId: string;

beforeAll(async () => {
  [bi, hs] = await Promise.all([startSandbox(), startHubSpotSandbox()]);
  service = await createTestService({
    ...sandboxSettings({ buyerIntel: bi, hubspot: hs }, { redisUrl: REDIS_URL, prefix }),
    api: { apiKeys: [API_KEY] },
    admin: ADMIN,
  });
  base = (await service.startHttp(0, '127.0.0.1')).url;
  companyId = hs.store.createCompany({ name: 'City of Austin', state: 'TX' }, { source: 'CRM_UI' }).id;
}, 60_000);
afterAll(async () => {
  await closeService(service, REDIS_URL, prefix);
  await Promise.all([bi?.close(), hs?.close()]);
});

const withKey = { authorization: `Bearer ${API_KEY}` };
const asAdmin = {
  authorization: `Basic ${Buffer.from(`${ADMIN.username}:${ADMIN.password}`).toString('base64')}`,
  'sec-fetch-site': 'same-origin',
};

/** Percent-encodes every byte of the string's UTF-8 (a lone surrogate goes as its replacement). */
const encode = (s: string) =>
  [...Buffer.from(s, 'utf8')]
    .map((b) =>
      /[A-Za-z0-9_-]/.test(String.fromCharCode(b))
        ? String.fromCharCode(b)
        : `%${b.toString(16).padStart(2, '0')}`,
    )
    .join('');

async function send(method: string, path: string, headers: Record<string, string>, body?: string) {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body }),
  });
  const text = await res.text();
  return { status: res.status, text };
}

describe('the attacks that answered 500', () => {
  it('refuses a NUL in a review search or state, on the API and the admin page', async () => {
    // A date JavaScript reads (year 12345) that PostgreSQL does not.
    expect((await send('GET', '/api/review?until=%2512345', withKey)).status).toBe(400);
    for (const query of ['q=a%00b', 'state=%00', 'buyerType=x%00']) {
      const api = await send('GET', `/api/review?${query}`, withKey);
      expect(api.status, query).toBe(400);
      expect(api.text).toContain('NUL');
      const page = await send('GET', `/admin/review?${query}`, asAdmin);
      expect(page.status, query).toBe(400);
    }
  });

  it('refuses a NUL or a lone surrogate in a reject reason or a re-search name', async () => {
    for (const reason of ['\u0000', 'private\ud800', '\udc00']) {
      const body = JSON.stringify({ reason });
      const res = await send('POST', `/api/accounts/hubspot/${companyId}/reject`, withKey, body);
      expect(res.status, JSON.stringify(reason)).toBe(400);
      expect(res.text).toMatch(/NUL|surrogate/);
      const admin = await send(
        'POST',
        '/admin/api/review/reject',
        asAdmin,
        JSON.stringify({ crm: 'hubspot', tenant: String(hs.portalId), accountId: companyId, reason }),
      );
      expect(admin.status, JSON.stringify(reason)).toBe(400);
    }
    const research = JSON.stringify({ name: 'Austin\u0000' });
    expect(
      (await send('POST', `/api/accounts/hubspot/${companyId}/research`, withKey, research)).status,
    ).toBe(400);
  });

  it('refuses crafted keyset cursors: a 19-digit id, a date that is none, a key of the wrong type', async () => {
    const cursors = [
      `after=${cursorOf([0.5, '9999999999999999999'])}`,
      `sort=date&after=${cursorOf(['not a date', '1'])}`,
      `sort=date&after=${cursorOf(['2026-13-45T00:00:00Z', '1'])}`,
      `after=${cursorOf(['0.5', '1'])}`,
      // Dates Date.parse takes and PostgreSQL's timestamps do not (before 4713 BC, after 294276 AD).
      `sort=date&after=${cursorOf(['-004714-01-01T00:00:00.000Z', '1'])}`,
      `sort=date&after=${cursorOf(['+275000-01-01T00:00:00.000Z', '1'])}`,
    ];
    for (const query of cursors) {
      const res = await send('GET', `/api/review?${query}`, withKey);
      expect(res.status, query).toBe(400);
      expect(res.text).toContain('after');
      expect((await send('GET', `/admin/review?${query}`, asAdmin)).status, query).toBe(400);
    }
  });

  it('refuses a body nested 10,000 levels deep (20 kB, under the size cap) with a 400, on every API POST', async () => {
    const deep = `${'['.repeat(10_000)}${']'.repeat(10_000)}`;
    for (const path of [
      '/api/refresh',
      `/api/accounts/hubspot/${companyId}/research`,
      '/api/review/approve',
    ]) {
      for (const headers of [withKey, {}]) {
        const res = await send('POST', path, headers, deep);
        expect(res.status, path).toBeLessThan(500);
        if (headers === withKey)
          expect([res.status, res.text], path).toEqual([400, expect.stringContaining('deeper than 32')]);
      }
    }
    // The admin API's own cap is 16 kB: 5,000 levels fit under it.
    const admin = await send('POST', '/admin/api/retry', asAdmin, `${'['.repeat(5_000)}${']'.repeat(5_000)}`);
    expect([admin.status, admin.text]).toEqual([400, expect.stringContaining('deeper than 32')]);
  });

  it("answers 404 for BullMQ's own key names used as job ids", async () => {
    for (const id of BULLMQ_KEYS) {
      const res = await send('GET', `/api/jobs/${id}`, withKey);
      expect(res.status, id).toBe(404);
    }
  });
});

// ---- the fuzz ----

interface Operation {
  method: string;
  /** With {name} placeholders for path parameters. */
  path: string;
  query: string[];
  body: boolean;
  /** Who calls: the credentials are looked up when sending, so a counterexample never prints them. */
  as: 'api' | 'admin';
}

type OpenApiOperation = { parameters?: readonly { name: string; in: string }[]; requestBody?: unknown };

const apiOperations = (): Operation[] =>
  Object.entries(OPENAPI.paths as unknown as Record<string, Record<string, OpenApiOperation>>).flatMap(
    ([path, ops]) =>
      Object.entries(ops).map(([method, op]) => ({
        method: method.toUpperCase(),
        path,
        query: (op.parameters ?? []).filter((p) => p.in === 'query').map((p) => p.name),
        body: op.requestBody !== undefined,
        as: 'api',
      })),
  );

const REVIEW_QUERY = [
  'cohort',
  'crm',
  'tenant',
  'state',
  'buyerType',
  'minConfidence',
  'q',
  'sort',
  'after',
  'limit',
];
const adminOperations = (): Operation[] => [
  { method: 'GET', path: '/admin', query: [], body: false, as: 'admin' },
  { method: 'GET', path: '/admin/api/recent', query: [], body: false, as: 'admin' },
  { method: 'GET', path: '/admin/review', query: REVIEW_QUERY, body: false, as: 'admin' },
  {
    method: 'GET',
    path: '/admin/history/{crm}/{accountId}',
    query: ['tenant', 'limit', 'after'],
    body: false,
    as: 'admin',
  },
  { method: 'GET', path: '/admin/runs/{id}', query: ['limit', 'after'], body: false, as: 'admin' },
  ...['retry', 'confirm', 'review/confirm', 'review/reject', 'review/research', 'review/approve'].map(
    (a): Operation => ({
      method: 'POST',
      path: `/admin/api/${a}`,
      query: [],
      body: true,
      as: 'admin',
    }),
  ),
];

/** Every property name the API document mentions: generated bodies use them, so they get past "unknown key". */
function propertyNames(doc: unknown, out = new Set<string>()): string[] {
  if (Array.isArray(doc)) for (const d of doc) propertyNames(d, out);
  else if (doc && typeof doc === 'object') {
    for (const [k, v] of Object.entries(doc)) {
      if (k === 'properties' && v && typeof v === 'object') for (const name of Object.keys(v)) out.add(name);
      propertyNames(v, out);
    }
  }
  return [...out];
}

interface Generated {
  op: Operation;
  params: Record<string, string>;
  query: [string, string][];
  body: string | undefined;
}

const defined = <T>(x: T | undefined): x is T => x !== undefined;

function requestArbitrary(operations: Operation[]): fc.Arbitrary<Generated> {
  const names = propertyNames(OPENAPI);
  const date = fc.date({ noInvalidDate: true }).map((d) => d.toISOString());
  // Valid values often enough that a request gets past the first check into the deeper ones.
  const valid: Record<string, fc.Arbitrary<string>> = {
    crm: fc.constantFrom('hubspot', 'salesforce'),
    accountId: fc.oneof(fc.constantFrom(companyId, '1', '001000000000001AAA'), hugeId),
    tenant: fc.oneof(fc.constantFrom(String(hs.portalId), '1'), hugeId),
    limit: fc.oneof(fc.constantFrom('1', '50', '500'), fc.integer().map(String)),
    sort: fc.constantFrom('date', 'confidence'),
    direction: fc.constantFrom('asc', 'desc'),
    since: date,
    until: date,
    id: fc.oneof(fc.constantFrom('1', 'hubspot.1.1.refresh.1', ...BULLMQ_KEYS), hugeId),
  };
  const value = (name: string): fc.Arbitrary<string> => {
    const v = valid[name];
    return v ? fc.oneof(v, nastyString) : nastyString;
  };
  const pair = (n: string) => value(n).map((v): [string, string] => [n, v]);
  // Every documented property in ~15% of bodies, so a body gets past "unknown key" into the values.
  const fields = fc
    .record(Object.fromEntries(names.map((n) => [n, sometimes(fc.oneof(value(n), nastyJson), 15)])))
    .map((o) => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)));
  const json = fc.oneof({ weight: 9, arbitrary: fields }, { weight: 1, arbitrary: nastyJson });
  const body = fc.oneof(
    { weight: 19, arbitrary: json.map((j) => JSON.stringify(j)) },
    { weight: 1, arbitrary: nastyString },
  );
  const forOperation = (op: Operation): fc.Arbitrary<Generated> =>
    fc.record({
      op: fc.constant(op),
      params: fc.record(
        Object.fromEntries([...op.path.matchAll(/\{(\w+)\}/g)].map(([, n = '']) => [n, value(n)])),
      ),
      query: fc
        .tuple(
          ...op.query.map((n) => sometimes(pair(n), 40)),
          sometimes(fc.tuple(nastyString, nastyString), 10),
        )
        .map((pairs) => pairs.filter(defined)),
      body: op.body ? body : op.method === 'GET' ? fc.constant(undefined) : sometimes(body, 5),
    });
  return fc.oneof(...operations.map(forOperation));
}

describe('fuzz: every API route and admin route', () => {
  it(`answers every one of ${RUNS} generated requests below 500`, async () => {
    const operations = [...apiOperations(), ...adminOperations()];
    expect(operations.length).toBeGreaterThan(20);
    const statuses = new Map<number, number>();
    // A failure reports its seed and path: FUZZ_SEED and FUZZ_PATH replay it (shrunk) without the rest.
    await fc.assert(
      fc.asyncProperty(requestArbitrary(operations), async ({ op, params, query, body }) => {
        const path = op.path.replace(/\{(\w+)\}/g, (_m, name: string) => encode(params[name] ?? ''));
        const qs = query.map(([k, v]) => `${encode(k)}=${encode(v)}`).join('&');
        const res = await send(
          op.method,
          qs ? `${path}?${qs}` : path,
          op.as === 'api' ? withKey : asAdmin,
          body,
        );
        statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
        if (res.status >= 500)
          throw new Error(`${op.method} ${path}?${qs} → ${res.status} ${res.text.slice(0, 300)}`);
      }),
      { seed: SEED, numRuns: RUNS, ...(REPLAY_PATH ? { path: REPLAY_PATH } : {}) },
    );
    // The fuzz reached past authentication and validation: some requests were answered 2xx.
    const ok = [...statuses].filter(([s]) => s < 300).reduce((n, [, c]) => n + c, 0);
    expect(ok).toBeGreaterThan(RUNS / 100);
    const sent = [...statuses.values()].reduce((n, c) => n + c, 0);
    expect(sent).toBeGreaterThanOrEqual(RUNS);
  }, 600_000);
});
