// The fuzz's route table and its requests to our API and admin pages (issue 45): every operation of
// our OpenAPI document, every admin route, each with path and query values and JSON bodies built from
// the documented property names, the attack strings (fuzz.ts) and the structures (fuzz-structures.ts).
// A request is a plan without credentials: fuzz-target.ts adds them when it sends, so a counterexample
// never prints a secret, and a signature is made at send time (a replayed seed is not "too old").
import fc from 'fast-check';
import { OPENAPI } from '../../src/api/openapi.ts';
import { BULLMQ_KEYS, crafted, cursorOf, hugeId, nastyJson, nastyString, sometimes } from './fuzz.ts';
import { deepJson, edgeDate, jsonText, type RawJson, wideJson } from './fuzz-structures.ts';

export type RouteKind =
  | 'api'
  | 'admin'
  | 'hubspot-signed'
  | 'salesforce-signed'
  | 'hubspot-webhook'
  | 'salesforce-outbound'
  | 'buyer-intel-webhook';

/** How the sender signs or authenticates a plan (credentials are looked up then, never generated). */
export type Auth =
  | { as: 'api-key' | 'admin' | 'none' }
  | { as: 'hubspot'; mode: SignMode }
  /** Salesforce's Outbound Messages carry the org's token in the URL (`?token=`). */
  | { as: 'outbound-token'; mode: SignMode }
  | { as: 'salesforce'; mode: SignMode; org: string; user: string; nonce: string | null }
  | {
      as: 'standard-webhooks';
      mode: SignMode | 'hmac' | 'both';
      id: string | null;
      timestamp: string | null;
    };

/** `valid` signs as the sender would; the others are what an attacker or a broken clock sends. */
export type SignMode = 'valid' | 'none' | 'wrong-secret' | 'stale' | 'future' | 'garbage';

export interface Plan {
  kind: RouteKind;
  /** The route as the table names it ("POST /api/refresh"), for the counts. */
  route: string;
  method: string;
  /** Path and query, percent-encoded as sent. */
  path: string;
  headers: Record<string, string>;
  body: string | undefined;
  auth: Auth;
}

/** The ids of the target's accounts and tenants: valid values make requests reach the deeper checks. */
export interface FuzzIds {
  companyId: string;
  portalId: string;
  orgId: string;
  sfAccountId: string;
}

export interface Operation {
  method: string;
  /** With {name} placeholders for path parameters. */
  path: string;
  query: string[];
  body: boolean;
}

type ParameterSchema = { type?: string; enum?: readonly unknown[]; format?: string };
type OpenApiOperation = {
  parameters?: readonly { name: string; in: string; schema?: ParameterSchema }[];
  requestBody?: unknown;
};

export const apiOperations = (): Operation[] =>
  Object.entries(OPENAPI.paths as unknown as Record<string, Record<string, OpenApiOperation>>).flatMap(
    ([path, ops]) =>
      Object.entries(ops).map(([method, op]) => ({
        method: method.toUpperCase(),
        path,
        query: (op.parameters ?? []).filter((p) => p.in === 'query').map((p) => p.name),
        body: op.requestBody !== undefined,
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
export const adminOperations = (): Operation[] => [
  { method: 'GET', path: '/admin', query: [], body: false },
  { method: 'GET', path: '/admin/api/recent', query: [], body: false },
  { method: 'GET', path: '/admin/review', query: [...REVIEW_QUERY, 'trail'], body: false },
  { method: 'GET', path: '/admin/api/review/outcome', query: ['crm', 'tenant', 'accountId'], body: false },
  {
    method: 'GET',
    path: '/admin/export/review.csv',
    query: REVIEW_QUERY.filter((q) => !['sort', 'after', 'limit'].includes(q)),
    body: false,
  },
  {
    method: 'GET',
    path: '/admin/export/history.csv',
    query: ['run', 'crm', 'accountId', 'tenant'],
    body: false,
  },
  {
    method: 'GET',
    path: '/admin/history/{crm}/{accountId}',
    query: ['tenant', 'limit', 'after'],
    body: false,
  },
  { method: 'GET', path: '/admin/runs/{id}', query: ['limit', 'after'], body: false },
  { method: 'GET', path: '/admin/recent', query: [], body: false },
  { method: 'GET', path: '/admin/runs', query: ['kind', 'after', 'from'], body: false },
  { method: 'GET', path: '/admin/api/runs/{id}/progress', query: [], body: false },
  { method: 'GET', path: '/admin/dashboard', query: [], body: false },
  { method: 'GET', path: '/admin/api/dashboard', query: [], body: false },
  { method: 'GET', path: '/admin/mapping', query: ['saved'], body: false },
  { method: 'GET', path: '/admin/api/mapping', query: [], body: false },
  ...['mapping', 'mapping/preview', 'mapping/revert'].map(
    (a): Operation => ({ method: 'POST', path: `/admin/api/${a}`, query: [], body: true }),
  ),
  { method: 'GET', path: '/admin/connections', query: [], body: false },
  { method: 'GET', path: '/admin/assets/chart.umd.min.js', query: [], body: false },
  { method: 'GET', path: '/admin/assets/dashboard.js', query: [], body: false },
  { method: 'POST', path: '/admin/api/runs/{id}/undo', query: [], body: true },
  ...['retry', 'confirm', 'review/confirm', 'review/reject', 'review/research', 'review/approve'].map(
    (a): Operation => ({ method: 'POST', path: `/admin/api/${a}`, query: [], body: true }),
  ),
];

/** Every property name the API document mentions: generated bodies use them, so they get past "unknown key". */
export function propertyNames(doc: unknown, out = new Set<string>()): string[] {
  if (Array.isArray(doc)) for (const d of doc) propertyNames(d, out);
  else if (doc && typeof doc === 'object') {
    for (const [k, v] of Object.entries(doc)) {
      if (k === 'properties' && v && typeof v === 'object') for (const name of Object.keys(v)) out.add(name);
      propertyNames(v, out);
    }
  }
  return [...out];
}

/**
 * Valid values of every parameter the API document names, by name: its enum, else a number or a date
 * for a number or a date-time. A request whose other values all fit reaches the check of the one
 * that does not (a cursor's date is checked only once sort, limit and the filters pass).
 */
export function documentedValues(): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const ops of Object.values(
    OPENAPI.paths as unknown as Record<string, Record<string, OpenApiOperation>>,
  ))
    for (const op of Object.values(ops))
      for (const p of op.parameters ?? []) {
        const schema = p.schema ?? {};
        const values = schema.enum
          ? schema.enum.map(String)
          : schema.type === 'number' || schema.type === 'integer'
            ? ['0', '0.5', '1', '50']
            : schema.format === 'date-time'
              ? ['2026-01-01T00:00:00Z']
              : [];
        if (values.length) out.set(p.name, [...new Set([...(out.get(p.name) ?? []), ...values])]);
      }
  return out;
}

/** Percent-encodes every byte of the string's UTF-8 (a lone surrogate goes as its replacement). */
export const encode = (s: string): string =>
  [...Buffer.from(s, 'utf8')]
    .map((b) =>
      /[A-Za-z0-9_-]/.test(String.fromCharCode(b))
        ? String.fromCharCode(b)
        : `%${b.toString(16).padStart(2, '0')}`,
    )
    .join('');

/** JSON values for body fields: nasty ones, and now and then a structure (deep, wide, a huge number). */
export const bodyValue: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 40, arbitrary: nastyJson },
  { weight: 1, arbitrary: deepJson },
  { weight: 1, arbitrary: wideJson },
);

/** A body: mostly JSON (documented fields, or anything), sometimes a structure alone or no JSON at all. */
export function jsonBody(fields: fc.Arbitrary<Record<string, unknown>>): fc.Arbitrary<string> {
  return fc.oneof(
    { weight: 16, arbitrary: fields.map(jsonText) },
    { weight: 2, arbitrary: nastyJson.map(jsonText) },
    { weight: 1, arbitrary: fc.oneof(deepJson, wideJson).map((r: RawJson) => r.text) },
    { weight: 1, arbitrary: nastyString },
  );
}

/**
 * Plans for `operations` of one route kind. `value(name)` gives the path, query and body values of a
 * parameter name (valid ones often enough that a request gets past the first check into the deeper
 * ones); `query` appends what the caller's scheme adds (HubSpot's portalId and userId).
 */
export function operationPlans(
  kind: RouteKind,
  operations: Operation[],
  ids: FuzzIds,
  auth: fc.Arbitrary<Auth>,
  extraQuery: fc.Arbitrary<[string, string][]> = fc.constant([]),
): fc.Arbitrary<Plan> {
  const names = propertyNames(OPENAPI);
  const date = fc.oneof(
    edgeDate,
    fc.date({ noInvalidDate: true }).map((d) => d.toISOString()),
  );
  const valid: Record<string, fc.Arbitrary<string>> = {
    crm: fc.constantFrom('hubspot', 'salesforce'),
    accountId: fc.oneof(fc.constantFrom(ids.companyId, ids.sfAccountId, '1', '001000000000001AAA'), hugeId),
    tenant: fc.oneof(fc.constantFrom(ids.portalId, ids.orgId, '1'), hugeId),
    limit: fc.oneof(fc.constantFrom('1', '50', '500'), fc.integer().map(String)),
    sort: fc.constantFrom('date', 'confidence'),
    direction: fc.constantFrom('asc', 'desc'),
    since: date,
    until: date,
    // Keyset cursors of odd keys: a date before 4713 BC in one answered 500.
    after: fc.oneof(crafted, fc.tuple(edgeDate, fc.constantFrom('1', '42')).map(cursorOf)),
    q: fc.constantFrom('Austin', 'City of', 'county'),
    id: fc.oneof(fc.constantFrom('1', 'hubspot.1.1.refresh.1', ...BULLMQ_KEYS), hugeId),
  };
  for (const [name, values] of documentedValues()) {
    const given = valid[name];
    const documented = fc.constantFrom(...values);
    valid[name] = given ? fc.oneof(given, documented) : documented;
  }
  // Mostly valid, so that a request often carries one bad value among good ones.
  const value = (name: string): fc.Arbitrary<string> => {
    const v = valid[name];
    return v ? fc.oneof({ weight: 3, arbitrary: v }, { weight: 2, arbitrary: nastyString }) : nastyString;
  };
  // A query parameter: sent or not, with a valid value and a nasty one to choose from.
  const slot = (n: string) =>
    fc.record({
      sent: fc.nat(99).map((p) => p < 40),
      good: valid[n] ?? fc.constant(undefined),
      any: value(n),
    });
  // Mixed: each value of its own. Clean: every sent value valid but one, so that a check behind
  // all the others (a cursor's date behind sort, limit and the filters) is reached.
  const queryOf = (names: string[]) =>
    fc
      .record({
        clean: fc.boolean(),
        focus: fc.nat(),
        slots: fc.tuple(...names.map(slot)),
        junk: sometimes(fc.tuple(nastyString, nastyString), 10),
      })
      .map(({ clean, focus, slots, junk }) => {
        const sent = names.flatMap((n, i) => (slots[i]?.sent ? [{ n, ...slots[i] }] : []));
        const bad = sent.length ? focus % sent.length : -1;
        const pairs = sent.flatMap(({ n, good, any }, i): [string, string][] => {
          if (!clean || i === bad) return [[n, any]];
          return good === undefined ? [] : [[n, good]];
        });
        return junk ? [...pairs, junk] : pairs;
      });
  // Every documented property in ~15% of bodies, so a body gets past "unknown key" into the values.
  const fields = fc
    .record(Object.fromEntries(names.map((n) => [n, sometimes(fc.oneof(value(n), bodyValue), 15)])))
    .map((o) => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)));
  const body = jsonBody(fields);
  const forOperation = (op: Operation): fc.Arbitrary<Plan> =>
    fc
      .record({
        params: fc.record(
          Object.fromEntries([...op.path.matchAll(/\{(\w+)\}/g)].map(([, n = '']) => [n, value(n)])),
        ),
        query: queryOf(op.query),
        extra: extraQuery,
        body: op.body ? body : op.method === 'GET' ? fc.constant(undefined) : sometimes(body, 5),
        auth,
      })
      .map(({ params, query, extra, body, auth }): Plan => {
        const path = op.path.replace(/\{(\w+)\}/g, (_m, name: string) => encode(params[name] ?? ''));
        const qs = [...query, ...extra].map(([k, v]) => `${encode(k)}=${encode(v)}`).join('&');
        return {
          kind,
          route: `${op.method} ${op.path}`,
          method: op.method,
          path: qs ? `${path}?${qs}` : path,
          headers: body === undefined ? {} : { 'content-type': 'application/json' },
          body,
          auth,
        };
      });
  return fc.oneof(...operations.map(forOperation));
}
