// Conformance mode (tests only): with EMULATOR_CONFORMANCE_FILE set (test/setup/conformance.ts sets it for
// the whole suite; a test that starts an emulator process passes it on), the HubSpot, Buyer Intelligence
// and Salesforce emulators check every answer they send against the reference documents in
// test/fixtures/reference/ (conformance-spec.ts) and append each divergence to that file as one JSON line;
// the suite's teardown fails the run listing them. Checked: the body of every answer, errors included, of
// a documented status (else `default`) whatever its declared media type; a declared JSON body that is no
// JSON; the headers the document marks required; the JSON body of every request the emulator accepted
// (a 2xx to a request the document refuses is a divergence too); and any route the documents do not have.
// Not checked: answers of the control plane (/__sandbox), deliberately broken ones (injected faults),
// non-JSON answers of operations that declare no body. ALLOWLIST: the only excused divergences, each
// with its reason and as narrow as it.
import { appendFileSync } from 'node:fs';
import type { NextFunction, Request, Response } from 'express';
import { type ConformanceApi, type ErrorLike, referenceFor } from './conformance-spec.ts';

export type { ConformanceApi } from './conformance-spec.ts';

interface Where {
  route: string;
  status: number;
  part: 'response' | 'request';
}

/** Divergences where the emulator follows the vendor's real answers, not its spec. Narrow by design. */
export const ALLOWLIST: {
  api: ConformanceApi;
  why: string;
  matches: (e: ErrorLike, where: Where) => boolean;
}[] = [
  {
    api: 'hubspot',
    why: 'StandardError requires `errors` and `links`, but HubSpot\'s documented multi-status answer ("Using object APIs" guide) sends neither',
    matches: (e, w) =>
      w.status === 207 &&
      e.keyword === 'required' &&
      /^\/errors\/\d+$/.test(e.instancePath) &&
      ['errors', 'links'].includes(String(e.params.missingProperty)),
  },
  {
    api: 'hubspot',
    why: 'search returns requested properties without a value as null (the SDK types them string | null); the spec says string',
    matches: (e, w) =>
      w.part === 'response' &&
      w.route.endsWith('/search') &&
      e.keyword === 'type' &&
      /^\/results\/\d+\/properties\/[^/]+$/.test(e.instancePath) &&
      e.data === null,
  },
  {
    api: 'hubspot',
    why: 'unlabelled association types come with label: null (HubSpot answers); the spec says string',
    matches: (e, w) =>
      w.route.startsWith('/crm/v4/') &&
      e.keyword === 'type' &&
      /\/associationTypes\/\d+\/label$/.test(e.instancePath) &&
      e.data === null,
  },
  {
    api: 'hubspot',
    why: 'the documented 429 body (usage guidelines) has errorType/policyName and no category, which the Error schema requires',
    matches: (e, w) =>
      w.status === 429 &&
      e.keyword === 'required' &&
      e.instancePath === '' &&
      e.params.missingProperty === 'category',
  },
  {
    api: 'hubspot',
    why: 'the Companies and Notes guides create records without `associations` (HubSpot accepts it absent); SimplePublicObjectInputForCreate marks it required',
    matches: (e, w) =>
      w.part === 'request' &&
      /^\/crm\/v3\/objects\/[a-z]+(\/batch\/create)?$/.test(w.route) &&
      e.keyword === 'required' &&
      /^(\/inputs\/\d+)?$/.test(e.instancePath) &&
      e.params.missingProperty === 'associations',
  },
  {
    api: 'hubspot',
    why: 'the CRM search guide makes every member of a search request optional (no filter: all records; limit 10 by default); PublicObjectSearchRequest marks after, filterGroups, limit, properties and sorts required',
    matches: (e, w) =>
      w.part === 'request' &&
      w.route.endsWith('/search') &&
      e.keyword === 'required' &&
      e.instancePath === '' &&
      ['after', 'filterGroups', 'limit', 'properties', 'sorts'].includes(String(e.params.missingProperty)),
  },
  {
    api: 'hubspot',
    why: 'the CRM search guide sorts with objects {propertyName, direction}; PublicObjectSearchRequest types sorts as strings',
    matches: (e, w) =>
      w.part === 'request' &&
      w.route.endsWith('/search') &&
      e.keyword === 'type' &&
      /^\/sorts\/\d+$/.test(e.instancePath) &&
      typeof e.data === 'object' &&
      e.data !== null,
  },
  {
    api: 'buyer-intel',
    why: 'BridgeRowColumnValueResponse.status is typed ["string", "null"] but its enum lists no null: a column not processed yet answers status null, which the type allows',
    matches: (e) =>
      e.keyword === 'enum' && /\/columns\/[^/]+\/status$/.test(e.instancePath) && e.data === null,
  },
];

/** Routes outside the reference documents that are not REST answers of theirs, each with its reason. */
export const UNDOCUMENTED_ROUTES: { api: ConformanceApi; path: RegExp; why: string }[] = [
  {
    api: 'buyer-intel',
    path: /^\/api\/external\/buyer\/(schema|search)$/,
    why: 'getBuyerSchema and searchBuyersByCriteria: named by the provider contract (buyer-intelligence-api.md), shapes "not shown" there and absent from the published OpenAPI; test/buyer-intel/client-operations.test.ts covers them',
  },
  {
    api: 'salesforce',
    path: /^\/cometd\//,
    why: 'Streaming API (CometD/Bayeux): not a REST resource; its messages are checked by test/sandbox/salesforce-streaming.test.ts',
  },
  {
    api: 'salesforce',
    path: /^\/services\/Soap\//,
    why: 'the Metadata API answers SOAP XML, checked by test/sandbox/salesforce-metadata.test.ts',
  },
];

/** What a documented answer to a resource that does not exist looks like, per API (all others: reported). */
const UNKNOWN_RESOURCE: Partial<Record<ConformanceApi, { why: string; answers: (body: string) => boolean }>> =
  {
    salesforce: {
      why: 'REST guide, "Status Codes and Error Responses": 404 NOT_FOUND "The requested resource does not exist"',
      answers: (body) => {
        try {
          const parsed = JSON.parse(body) as unknown;
          return (
            Array.isArray(parsed) &&
            parsed.length === 1 &&
            (parsed[0] as { errorCode?: unknown }).errorCode === 'NOT_FOUND' &&
            typeof (parsed[0] as { message?: unknown }).message === 'string'
          );
        } catch {
          return false;
        }
      },
    },
  };

interface Line {
  api: ConformanceApi;
  method: string;
  path: string;
  route?: string;
  status: number;
  errors: string[];
}

const describeErrors = (errors: ErrorLike[]) =>
  errors.slice(0, 5).map((e) => `${e.instancePath || '/'} ${e.message ?? e.keyword}`);

/** The divergences of one exchange (empty: it conforms). Exported for the check's own test. */
export async function divergences(
  api: ConformanceApi,
  exchange: {
    method: string;
    path: string;
    status: number;
    contentType: string;
    body: string | undefined;
    headers: Record<string, unknown>;
    requestBody: unknown;
  },
): Promise<Line[]> {
  const { method, path, status } = exchange;
  const lines: Line[] = [];
  const report = (errors: string[], route?: string) =>
    lines.push({ api, method, path, ...(route ? { route } : {}), status, errors });
  if (UNDOCUMENTED_ROUTES.some((u) => u.api === api && u.path.test(path))) return lines;
  const lookup = await referenceFor(api);
  const found = lookup(method.toLowerCase(), path);
  if (!found) {
    const fallback = UNKNOWN_RESOURCE[api];
    if (status === 404 && fallback && exchange.body !== undefined && fallback.answers(exchange.body))
      return lines;
    report(['no operation in the reference documents for this method and path']);
    return lines;
  }
  const excused = (errors: ErrorLike[], part: Where['part']) =>
    errors.filter(
      (e) => !ALLOWLIST.some((a) => a.api === api && a.matches(e, { route: found.route, status, part })),
    );

  const response = found.response(status);
  if (!response.declared) report([`status ${status} is not documented for this operation`], found.route);
  for (const h of response.headers) {
    const value = exchange.headers[h.name.toLowerCase()];
    if (value === undefined) report([`required header ${h.name} missing`], found.route);
    else if (h.pattern && !h.pattern.test(String(value)))
      report([`header ${h.name} "${String(value)}" does not match ${h.pattern}`], found.route);
  }
  if (response.validate && exchange.body !== undefined) {
    let data: unknown;
    let parsed = true;
    try {
      data = JSON.parse(exchange.body);
    } catch {
      parsed = false;
    }
    if (!parsed) report([`body is no JSON (${exchange.contentType || 'no content type'})`], found.route);
    else if (!response.validate(data)) {
      const errors = excused(response.validate.errors ?? [], 'response');
      if (errors.length) report(describeErrors(errors), found.route);
    }
  }
  const request = status < 400 ? found.request() : null;
  if (request && exchange.requestBody !== undefined && !request(exchange.requestBody)) {
    const errors = excused(request.errors ?? [], 'request');
    if (errors.length)
      report(
        describeErrors(errors).map((e) => `accepted a request the reference refuses: ${e}`),
        found.route,
      );
  }
  return lines;
}

/**
 * Middleware that checks every answer (and the request it accepted) against the API's reference
 * documents, when conformance mode is on (EMULATOR_CONFORMANCE_FILE); a no-op otherwise.
 */
export function conformanceCheck(api: ConformanceApi) {
  const file = process.env.EMULATOR_CONFORMANCE_FILE;
  if (!file) return (_req: Request, _res: Response, next: NextFunction) => next();
  void referenceFor(api);
  return (req: Request, res: Response, next: NextFunction) => {
    const send = res.send.bind(res);
    res.send = (body?: unknown) => {
      const path = req.originalUrl.split('?')[0] ?? '';
      if (!path.startsWith('/__sandbox') && !res.locals.injectedFault) {
        const text = Buffer.isBuffer(body)
          ? body.toString('utf8')
          : typeof body === 'string'
            ? body
            : undefined;
        const contentType = String(res.getHeader('content-type') ?? '');
        const isJson = req.is('application/json') !== false && req.is('application/json') !== null;
        void divergences(api, {
          method: req.method,
          path,
          status: res.statusCode,
          contentType,
          // A non-JSON answer of an operation that declares none (a blob, a SOAP envelope) is not checked.
          body:
            text !== undefined && (contentType.includes('json') || res.statusCode >= 400) ? text : undefined,
          headers: Object.fromEntries(Object.entries(res.getHeaders()).map(([k, v]) => [k.toLowerCase(), v])),
          requestBody: isJson && req.body !== undefined ? req.body : undefined,
        })
          .then((lines) => {
            for (const line of lines) appendFileSync(file, `${JSON.stringify(line)}\n`);
          })
          .catch((err: unknown) => appendFileSync(file, `${JSON.stringify({ api, error: String(err) })}\n`));
      }
      return send(body as Parameters<typeof send>[0]);
    };
    next();
  };
}
