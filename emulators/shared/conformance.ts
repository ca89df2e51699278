// Conformance mode (tests only): with EMULATOR_CONFORMANCE_FILE set (test/setup/conformance.ts sets it for
// the whole suite), the HubSpot and Buyer Intelligence emulators validate every JSON answer they send
// against the official OpenAPI documents in test/fixtures/reference/ (looked up by method, path template
// and status, else `default`) and append each divergence to that file as one JSON line; the suite's
// teardown fails the run listing them. Ajv (a devDependency) is loaded only in this mode, so the
// emulators' image (production dependencies only) never needs it. An answer whose operation or status
// declares no JSON schema is not checked. ALLOWLIST: the only excused divergences, each with its reason.
import { appendFileSync, readFileSync } from 'node:fs';
import type { NextFunction, Request, Response } from 'express';

export type ConformanceApi = 'hubspot' | 'buyer-intel';

interface ErrorLike {
  keyword: string;
  instancePath: string;
  params: Record<string, unknown>;
  data?: unknown;
  message?: string;
}

/** Divergences where the emulator follows HubSpot's real answers, not its spec. Narrow by design. */
export const ALLOWLIST: { api: ConformanceApi; why: string; matches: (e: ErrorLike) => boolean }[] = [
  {
    api: 'hubspot',
    why: 'StandardError requires `errors` and `links`, but HubSpot\'s documented multi-status answer ("Using object APIs" guide) sends neither',
    matches: (e) =>
      e.keyword === 'required' &&
      /^\/errors\/\d+$/.test(e.instancePath) &&
      ['errors', 'links'].includes(String(e.params.missingProperty)),
  },
  {
    api: 'hubspot',
    why: 'search returns requested properties without a value as null (the SDK types them string | null); the spec says string',
    matches: (e) =>
      e.keyword === 'type' && /^\/results\/\d+\/properties\/[^/]+$/.test(e.instancePath) && e.data === null,
  },
  {
    api: 'hubspot',
    why: 'unlabelled association types come with label: null (HubSpot answers); the spec says string',
    matches: (e) =>
      e.keyword === 'type' && /\/associationTypes\/\d+\/label$/.test(e.instancePath) && e.data === null,
  },
  {
    api: 'hubspot',
    why: 'the documented 429 body (usage guidelines) has errorType/policyName and no category, which the Error schema requires',
    matches: (e) =>
      e.keyword === 'required' && e.instancePath === '' && e.params.missingProperty === 'category',
  },
  {
    api: 'buyer-intel',
    why: 'BridgeRowColumnValueResponse.status is typed ["string", "null"] but its enum lists no null: a column not processed yet answers status null, which the type allows',
    matches: (e) =>
      e.keyword === 'enum' && /\/columns\/[^/]+\/status$/.test(e.instancePath) && e.data === null,
  },
];

const SPEC_FILES: Record<ConformanceApi, string[]> = {
  hubspot: [
    'hubspot-openapi/companies-v3.json',
    'hubspot-openapi/notes-v3.json',
    'hubspot-openapi/properties-v3.json',
    'hubspot-openapi/associations-v4.json',
    'hubspot-openapi/oauth-v3.json',
  ],
  'buyer-intel': ['buyer-intelligence-openapi.json'],
};

type Responses = Record<string, { $ref?: string; content?: Record<string, unknown> }>;
interface Spec {
  paths: Record<string, Record<string, { responses?: Responses }>>;
  components?: { responses?: Responses };
}
type Validate = ((data: unknown) => boolean) & { errors?: ErrorLike[] | null };
interface Route {
  spec: string;
  template: string;
  regex: RegExp;
  methods: Record<string, { responses?: Responses }>;
}

const pointerEscape = (s: string) => s.replaceAll('~', '~0').replaceAll('/', '~1');

// Compiling a spec's validators is the costly part: once per process and API, shared by every emulator
// the tests start.
const validators = new Map<ConformanceApi, ReturnType<typeof buildValidator>>();
function validatorFor(api: ConformanceApi): ReturnType<typeof buildValidator> {
  let lookup = validators.get(api);
  if (!lookup) {
    lookup = buildValidator(api);
    validators.set(api, lookup);
  }
  return lookup;
}

async function buildValidator(api: ConformanceApi) {
  const { Ajv } = await import('ajv');
  const formats = (await import('ajv-formats')).default as unknown as { default?: (a: unknown) => void };
  const ajv = new Ajv({ strict: false, allErrors: true, verbose: true });
  (formats.default ?? (formats as unknown as (a: unknown) => void))(ajv);
  ajv.addFormat('int32', { type: 'number', validate: (n: number) => Number.isInteger(n) });
  ajv.addFormat('int64', { type: 'number', validate: (n: number) => Number.isSafeInteger(n) });
  const routes: Route[] = [];
  const specs = new Map<string, Spec>();
  for (const file of SPEC_FILES[api]) {
    const spec = JSON.parse(
      readFileSync(new URL(`../../test/fixtures/reference/${file}`, import.meta.url), 'utf8'),
    ) as Spec & { openapi?: string };
    // OpenAPI 3.1 schemas are JSON Schema 2020-12; Ajv's default draft reads the parts used here alike.
    ajv.addSchema(spec as object, file);
    specs.set(file, spec);
    for (const [template, methods] of Object.entries(spec.paths)) {
      const pattern = template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '[^/]+');
      routes.push({ spec: file, template, regex: new RegExp(`^${pattern}$`), methods });
    }
  }
  // A literal segment beats a parameter: /batch/read is not /{companyId}.
  routes.sort((a, b) => (a.template.match(/\{/g)?.length ?? 0) - (b.template.match(/\{/g)?.length ?? 0));
  const compiled = new Map<string, Validate | null>();
  return (method: string, path: string, status: number): { route: string; validate: Validate } | null => {
    const route = routes.find((r) => r.regex.test(path) && r.methods[method]);
    const op = route?.methods[method];
    if (!route || !op?.responses) return null;
    const key = op.responses[String(status)] ? String(status) : op.responses.default ? 'default' : undefined;
    if (!key) return null;
    const id = `${route.spec}|${route.template}|${method}|${key}`;
    if (!compiled.has(id)) {
      let response = op.responses[key];
      let pointer = `${route.spec}#/paths/${pointerEscape(route.template)}/${method}/responses/${key}`;
      if (response?.$ref) {
        const name = response.$ref.split('/').pop() ?? '';
        response = specs.get(route.spec)?.components?.responses?.[name];
        pointer = `${route.spec}#/components/responses/${name}`;
      }
      const mediaType = Object.keys(response?.content ?? {}).find((m) => m.includes('json'));
      const hasSchema = mediaType && (response?.content?.[mediaType] as { schema?: unknown })?.schema;
      compiled.set(
        id,
        hasSchema
          ? (ajv.compile({ $ref: `${pointer}/content/${pointerEscape(mediaType)}/schema` }) as Validate)
          : null,
      );
    }
    const validate = compiled.get(id);
    return validate ? { route: `${route.template}`, validate } : null;
  };
}

/**
 * Middleware that checks every JSON answer against the API's reference documents, when conformance mode
 * is on (EMULATOR_CONFORMANCE_FILE); a no-op otherwise.
 */
export function conformanceCheck(api: ConformanceApi) {
  const file = process.env.EMULATOR_CONFORMANCE_FILE;
  if (!file) return (_req: Request, _res: Response, next: NextFunction) => next();
  const ready = validatorFor(api);
  return (req: Request, res: Response, next: NextFunction) => {
    const send = res.send.bind(res);
    res.send = (body?: unknown) => {
      const status = res.statusCode;
      const type = String(res.getHeader('content-type') ?? '');
      const text = Buffer.isBuffer(body)
        ? body.toString('utf8')
        : typeof body === 'string'
          ? body
          : undefined;
      const path = req.originalUrl.split('?')[0] ?? '';
      if (
        text !== undefined &&
        type.includes('json') &&
        !path.startsWith('/__sandbox') &&
        !res.locals.injectedFault
      ) {
        void ready
          .then((lookup) => {
            const found = lookup(req.method.toLowerCase(), path, status);
            if (!found) return;
            let data: unknown;
            try {
              data = JSON.parse(text);
            } catch {
              return; // a deliberately malformed answer (fault injection) is not a schema question
            }
            if (found.validate(data)) return;
            const errors = (found.validate.errors ?? []).filter(
              (e) => !ALLOWLIST.some((a) => a.api === api && a.matches(e)),
            );
            if (errors.length === 0) return;
            const line = {
              api,
              method: req.method,
              path,
              route: found.route,
              status,
              errors: errors.slice(0, 5).map((e) => `${e.instancePath || '/'} ${e.message ?? e.keyword}`),
            };
            appendFileSync(file, `${JSON.stringify(line)}\n`);
          })
          .catch((err: unknown) => {
            appendFileSync(file, `${JSON.stringify({ api, error: String(err) })}\n`);
          });
      }
      return send(body as Parameters<typeof send>[0]);
    };
    next();
  };
}
