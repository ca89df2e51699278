// The reference documents the conformance check (conformance.ts) validates against, compiled once per
// process and API: for a method and path, the documented operation; for it, the response schema of a
// status (else `default`) under whatever media type the document declares it (HubSpot declares its error
// bodies as `*/*`), the headers it marks required, and the JSON request body schema. Ajv (a
// devDependency) is loaded only here, so the emulators' image never needs it.
import { readFileSync } from 'node:fs';

export type ConformanceApi = 'hubspot' | 'buyer-intel' | 'salesforce';

export interface ErrorLike {
  keyword: string;
  instancePath: string;
  params: Record<string, unknown>;
  data?: unknown;
  message?: string;
}

export type Validate = ((data: unknown) => boolean) & { errors?: ErrorLike[] | null };

/** Files under test/fixtures/reference/ (SOURCES.md says where each comes from). */
const SPEC_FILES: Record<ConformanceApi, string[]> = {
  hubspot: [
    'hubspot-openapi/companies-v3.json',
    'hubspot-openapi/notes-v3.json',
    'hubspot-openapi/tasks-v3.json',
    'hubspot-openapi/properties-v3.json',
    'hubspot-openapi/associations-v4.json',
    'hubspot-openapi/oauth-v3.json',
    'hubspot-openapi/owners-v3.json',
    'hubspot-oauth-v1.json',
  ],
  'buyer-intel': ['buyer-intelligence-openapi.json'],
  salesforce: ['salesforce/rest-shapes.json'],
};

type Media = Record<string, { schema?: unknown }>;
interface Response {
  $ref?: string;
  content?: Media;
  headers?: Record<string, { $ref?: string; required?: boolean; schema?: { pattern?: string } }>;
}
interface Operation {
  responses?: Record<string, Response>;
  requestBody?: { content?: Media };
}
interface Spec {
  paths: Record<string, Record<string, Operation>>;
  components?: {
    responses?: Record<string, Response>;
    headers?: Record<string, { required?: boolean; schema?: { pattern?: string } }>;
  };
}

export interface Found {
  route: string;
  response: (status: number) => { validate: Validate | null; declared: boolean; headers: RequiredHeader[] };
  request: () => Validate | null;
}
export interface RequiredHeader {
  name: string;
  pattern?: RegExp;
}

const pointerEscape = (s: string) => s.replaceAll('~', '~0').replaceAll('/', '~1');

/** A media type with a schema: JSON first, else any (`*\/*`, `application/xml`… as declared). */
function schemaMedia(content: Media | undefined): string | undefined {
  const keys = Object.keys(content ?? {}).filter((k) => content?.[k]?.schema !== undefined);
  return keys.find((k) => k.includes('json')) ?? keys[0];
}

async function build(api: ConformanceApi) {
  const { Ajv } = await import('ajv');
  const formats = (await import('ajv-formats')).default as unknown as { default?: (a: unknown) => void };
  const ajv = new Ajv({ strict: false, allErrors: true, verbose: true });
  (formats.default ?? (formats as unknown as (a: unknown) => void))(ajv);
  ajv.addFormat('int32', { type: 'number', validate: (n: number) => Number.isInteger(n) });
  ajv.addFormat('int64', { type: 'number', validate: (n: number) => Number.isSafeInteger(n) });
  const routes: { spec: string; template: string; regex: RegExp; methods: Record<string, Operation> }[] = [];
  const specs = new Map<string, Spec>();
  for (const file of SPEC_FILES[api]) {
    const spec = JSON.parse(
      readFileSync(new URL(`../../test/fixtures/reference/${file}`, import.meta.url), 'utf8'),
    ) as Spec;
    // OpenAPI 3.1 schemas are JSON Schema 2020-12; Ajv's default draft reads the parts used here alike.
    ajv.addSchema(spec as object, file);
    specs.set(file, spec);
    for (const [template, methods] of Object.entries(spec.paths)) {
      const pattern = template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '[^/]+');
      // A trailing slash names the same resource (@hubspot/api-client lists owners at `/crm/v3/owners/`).
      routes.push({ spec: file, template, regex: new RegExp(`^${pattern}/?$`), methods });
    }
  }
  // A literal segment beats a parameter: /batch/read is not /{companyId}.
  routes.sort((a, b) => (a.template.match(/\{/g)?.length ?? 0) - (b.template.match(/\{/g)?.length ?? 0));
  const compiled = new Map<string, Validate | null>();
  const compile = (id: string, pointer: string, content: Media | undefined): Validate | null => {
    if (!compiled.has(id)) {
      const media = schemaMedia(content);
      compiled.set(
        id,
        media
          ? (ajv.compile({ $ref: `${pointer}/content/${pointerEscape(media)}/schema` }) as Validate)
          : null,
      );
    }
    return compiled.get(id) ?? null;
  };

  return (method: string, path: string): Found | null => {
    const route = routes.find((r) => r.regex.test(path) && r.methods[method]);
    const op = route?.methods[method];
    if (!route || !op) return null;
    const spec = specs.get(route.spec);
    const opPointer = `${route.spec}#/paths/${pointerEscape(route.template)}/${method}`;
    return {
      route: route.template,
      response: (status) => {
        const key = op.responses?.[String(status)]
          ? String(status)
          : op.responses?.default
            ? 'default'
            : undefined;
        if (!key) return { validate: null, declared: false, headers: [] };
        let response = op.responses?.[key];
        let pointer = `${opPointer}/responses/${key}`;
        if (response?.$ref) {
          const name = response.$ref.split('/').pop() ?? '';
          response = spec?.components?.responses?.[name];
          pointer = `${route.spec}#/components/responses/${name}`;
        }
        const headers = Object.entries(response?.headers ?? {}).flatMap(([name, h]) => {
          const def = h.$ref ? spec?.components?.headers?.[h.$ref.split('/').pop() ?? ''] : h;
          if (!def?.required) return [];
          return [{ name, ...(def.schema?.pattern ? { pattern: new RegExp(def.schema.pattern) } : {}) }];
        });
        return { validate: compile(`${pointer}`, pointer, response?.content), declared: true, headers };
      },
      request: () => compile(`${opPointer}/requestBody`, `${opPointer}/requestBody`, op.requestBody?.content),
    };
  };
}

// Compiling a spec's validators is the costly part: once per process and API, shared by every emulator
// the tests start.
const lookups = new Map<ConformanceApi, ReturnType<typeof build>>();
export function referenceFor(api: ConformanceApi): ReturnType<typeof build> {
  let lookup = lookups.get(api);
  if (!lookup) {
    lookup = build(api);
    lookups.set(api, lookup);
  }
  return lookup;
}
