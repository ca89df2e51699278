// The reference documents the conformance check (conformance-check.ts) validates against, compiled once
// per process and API: for a method and path, the documented operation; for it, the statuses it lists,
// the response schema of a status or of `default` under whatever media type the document declares it
// (HubSpot declares its error bodies as `*/*`), the headers it marks required, and the request body's
// media types and schema (JSON or form-encoded). Ajv (a devDependency) is loaded only here and only in
// conformance mode, synchronously, so an answer is checked before the emulator's next event and a
// process that exits leaves no answer unchecked; the emulators' image never needs it.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { ConformanceReference } from '../descriptor.ts';
import type { ConformanceRules, ErrorLike } from './conformance-rules.ts';

/** An API's name, as its emulator's reference names it (emulators/descriptor.ts). */
export type ConformanceApi = string;

export type { ErrorLike };

export type Validate = ((data: unknown) => boolean) & { errors?: ErrorLike[] | null };

/**
 * Each API's files under test/fixtures/reference/ (SOURCES.md says where each comes from), as its
 * emulator declares them (emulators/<kind>/reference.ts): registered when its app mounts the check.
 */
const SPEC_FILES = new Map<ConformanceApi, readonly string[]>();
/** Each API's sourced rules (emulators/<kind>/conformance-rules.ts), registered with its documents. */
const RULES = new Map<ConformanceApi, ConformanceRules>();

/** Makes an API's documents known to the check; the same API again must name the same documents. */
export function registerReference(reference: ConformanceReference): void {
  const known = SPEC_FILES.get(reference.api);
  if (known && known.join('\n') !== reference.documents.join('\n'))
    throw new Error(`conformance: two different reference lists for "${reference.api}"`);
  const rules = RULES.get(reference.api);
  if (known && rules !== reference.rules)
    throw new Error(`conformance: two different rule sets for "${reference.api}"`);
  SPEC_FILES.set(reference.api, reference.documents);
  if (reference.rules) RULES.set(reference.api, reference.rules);
}

/** The sourced rules of an API, as its reference registered them (none: its documents alone). */
export const rulesOf = (api: ConformanceApi): ConformanceRules => RULES.get(api) ?? {};

type Media = Record<string, { schema?: unknown }>;
interface Response {
  $ref?: string;
  content?: Media;
  headers?: Record<string, { $ref?: string; required?: boolean; schema?: { pattern?: string } }>;
}
interface Operation {
  responses?: Record<string, Response>;
  requestBody?: { required?: boolean; content?: Media };
}
interface Spec {
  paths: Record<string, Record<string, Operation>>;
  components?: {
    responses?: Record<string, Response>;
    headers?: Record<string, { required?: boolean; schema?: { pattern?: string } }>;
  };
}

export interface DocumentedResponse {
  /** The body's schema, or null when the document shows none for it. */
  validate: Validate | null;
  headers: RequiredHeader[];
}

export interface Found {
  /** The document's path template, e.g. `/crm/v3/objects/companies/{companyId}`. */
  route: string;
  /** Whether the operation lists this status itself (`default` does not count). */
  lists: (status: number) => boolean;
  hasDefault: boolean;
  /** The response of a listed status, else of `default`, else null. */
  response: (status: number) => DocumentedResponse | null;
  request: {
    /** The media types the operation takes a body in (none: it takes no body). */
    media: string[];
    required: boolean;
    /** The schema of a body of this media type, or null when it declares none for it. */
    validate: (mediaType: string) => Validate | null;
  };
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

interface AjvLike {
  addSchema(schema: object, key: string): void;
  addFormat(name: string, format: object): void;
  compile(schema: object): Validate;
}

/** One Ajv instance per API; also compiles the rules' own schemas (conformance-rules.ts). */
export function newAjv(): AjvLike {
  const require = createRequire(import.meta.url);
  const { Ajv } = require('ajv') as { Ajv: new (o: object) => AjvLike };
  const formats = require('ajv-formats') as { default: (a: AjvLike) => void };
  const ajv = new Ajv({ strict: false, allErrors: true, verbose: true });
  formats.default(ajv);
  ajv.addFormat('int32', { type: 'number', validate: (n: number) => Number.isInteger(n) });
  ajv.addFormat('int64', { type: 'number', validate: (n: number) => Number.isSafeInteger(n) });
  return ajv;
}

function build(api: ConformanceApi) {
  const ajv = newAjv();
  const routes: { spec: string; template: string; regex: RegExp; methods: Record<string, Operation> }[] = [];
  const specs = new Map<string, Spec>();
  const files = SPEC_FILES.get(api);
  if (!files) throw new Error(`conformance: no reference documents registered for "${api}"`);
  for (const file of files) {
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
  const compile = (pointer: string, media: string | undefined): Validate | null => {
    const id = `${pointer} ${media}`;
    if (!compiled.has(id)) {
      compiled.set(
        id,
        media ? ajv.compile({ $ref: `${pointer}/content/${pointerEscape(media)}/schema` }) : null,
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
    const responses = op.responses ?? {};
    const requestContent = op.requestBody?.content ?? {};
    return {
      route: route.template,
      lists: (status) => responses[String(status)] !== undefined,
      hasDefault: responses.default !== undefined,
      response: (status) => {
        const key = responses[String(status)] ? String(status) : responses.default ? 'default' : undefined;
        if (!key) return null;
        let response = responses[key];
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
        return { validate: compile(pointer, schemaMedia(response?.content)), headers };
      },
      request: {
        media: Object.keys(requestContent),
        required: op.requestBody?.required === true,
        validate: (mediaType) =>
          requestContent[mediaType]?.schema === undefined
            ? null
            : compile(`${opPointer}/requestBody`, mediaType),
      },
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
