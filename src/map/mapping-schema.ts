// The mapping file: which buyer attribute goes into which CRM field, converted how, written under which
// policy. Validated by zod; `mappingIssues` returns every problem at once (cross-field rules included,
// even when other parts of the file are invalid) so a person fixes the file in one pass.
import { z } from 'zod';
import { BUYER_FIELDS, type BuyerField, isBuyerField } from '../buyer-intel/fields.ts';
import { PROVENANCE_FIELD_NAMES } from './provenance.ts';

export const TRANSFORMS = [
  'text',
  'number',
  'integer',
  'percent',
  'currency',
  'date',
  'list',
  'url',
  'enum',
  'boolean',
] as const;
export type FieldTransform = (typeof TRANSFORMS)[number];

/**
 * - `overwrite`: write whenever our value differs (identifiers, scores: ours and always current).
 * - `fill-empty`: write only into an empty field (a person may know better, e.g. a phone number).
 * - `ours` (default): write into an empty field or over the value we wrote last; a value anyone else
 *   put there is kept.
 */
export const WRITE_POLICIES = ['fill-empty', 'overwrite', 'ours'] as const;
export type WritePolicy = (typeof WRITE_POLICIES)[number];
export const DEFAULT_POLICY: WritePolicy = 'ours';

/** A CRM field name: lowercase snake case as HubSpot wants it (Salesforce names are derived from it). */
export const PROPERTY_PATTERN = /^[a-z][a-z0-9_]{0,99}$/;

export const MAPPING_VERSION = 1;

const FIELD_KEYS = ['attribute', 'property', 'label', 'transform', 'policy', 'enumLabels'] as const;
const TOP_KEYS = ['version', 'fields'] as const;

/** The closest candidate to a misspelt name, or undefined when nothing is close enough. */
export function closestMatch(input: string, candidates: readonly string[]): string | undefined {
  const lower = input.toLowerCase();
  const exact = candidates.find((c) => c.toLowerCase() === lower);
  if (exact !== undefined) return exact;
  const limit = Math.max(2, Math.floor(input.length / 3));
  let best: string | undefined;
  let bestDistance = Number.POSITIVE_INFINITY;
  for (const candidate of candidates) {
    const d = editDistance(lower, candidate.toLowerCase(), Math.min(limit, bestDistance));
    if (d < bestDistance) {
      best = candidate;
      bestDistance = d;
    }
  }
  return bestDistance <= limit ? best : undefined;
}

/** Optimal-string-alignment distance (a transposition counts as one edit), bounded by `max` + 1. */
function editDistance(a: string, b: string, max: number): number {
  if (Math.abs(a.length - b.length) > max) return max + 1;
  let prevPrev: number[] = [];
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    let rowMin = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let v = Math.min((prev[j] ?? 0) + 1, (row[j - 1] ?? 0) + 1, (prev[j - 1] ?? 0) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        v = Math.min(v, (prevPrev[j - 2] ?? 0) + 1);
      }
      row.push(v);
      if (v < rowMin) rowMin = v;
    }
    if (rowMin > max) return max + 1;
    prevPrev = prev;
    prev = row;
  }
  return prev[b.length] ?? max + 1;
}

function didYouMean(input: unknown, candidates: readonly string[]): string {
  if (typeof input !== 'string' || input === '') return '';
  const match = closestMatch(input, candidates);
  return match === undefined || match === input ? '' : ` (did you mean "${match}"?)`;
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'an object';
  if (typeof value === 'string') return `the string ${JSON.stringify(value)}`;
  return `${typeof value} ${String(value)}`;
}

/** zod error callback: "missing (required)" for a missing key, otherwise "expected X, got Y". */
function expected(what: string) {
  return (issue: { input?: unknown }): string =>
    issue.input === undefined ? 'missing (required)' : `expected ${what}, got ${describe(issue.input)}`;
}

function oneOf(kind: string, values: readonly string[]) {
  return (issue: { input?: unknown }): string => {
    if (issue.input === undefined) return 'missing (required)';
    if (typeof issue.input !== 'string') return `expected a ${kind} name, got ${describe(issue.input)}`;
    return `"${issue.input}" is not a ${kind} (one of ${values.join(', ')})${didYouMean(issue.input, values)}`;
  };
}

const attributeSchema = z
  .string({ error: expected('a BuyerField key') })
  .transform((value, ctx): BuyerField => {
    if (isBuyerField(value)) return value;
    ctx.issues.push({
      code: 'custom',
      input: value,
      message: `"${value}" is not a BuyerField key${didYouMean(value, BUYER_FIELDS)}`,
    });
    return z.NEVER;
  });

const propertySchema = z.string({ error: expected('a CRM field name') }).regex(PROPERTY_PATTERN, {
  error: (issue) =>
    `${JSON.stringify(issue.input)} is not a valid CRM field name (a lowercase letter, then up to 99 lowercase letters, digits or underscores, e.g. "buyer_intel_population")`,
});

export const mappingFieldSchema = z.strictObject(
  {
    attribute: attributeSchema,
    property: propertySchema,
    label: z
      .string({ error: expected('a label') })
      .trim()
      .min(1, { error: 'must not be empty' })
      .max(200, { error: 'must be at most 200 characters' })
      .optional(),
    transform: z.enum(TRANSFORMS, { error: oneOf('transform', TRANSFORMS) }),
    policy: z.enum(WRITE_POLICIES, { error: oneOf('policy', WRITE_POLICIES) }).default(DEFAULT_POLICY),
    enumLabels: z
      .record(z.string(), z.string({ error: expected('a label (string)') }), {
        error: expected('an object of value → label'),
      })
      .optional(),
  },
  { error: unknownKeyOrType('a field (an object with attribute, property, transform...)') },
);

export const mappingSchema = z
  .strictObject(
    {
      version: z.literal(MAPPING_VERSION, {
        error: (issue) =>
          issue.input === undefined
            ? 'missing (required): add `version: 1`'
            : `unsupported version ${JSON.stringify(issue.input)} (this program reads version ${MAPPING_VERSION})`,
      }),
      fields: z.array(mappingFieldSchema, { error: expected('a list of fields') }),
    },
    { error: unknownKeyOrType('an object with "version" and "fields"') },
  )
  .superRefine((mapping, ctx) => {
    for (const issue of crossFieldIssues(mapping)) ctx.addIssue({ code: 'custom', ...issue });
  });

function unknownKeyOrType(what: string) {
  return (issue: { code?: string; input?: unknown }): string | undefined => {
    if (issue.code === 'invalid_type') {
      return issue.input === undefined || issue.input === null
        ? `expected ${what}, but it is empty`
        : `expected ${what}, got ${describe(issue.input)}`;
    }
    return undefined;
  };
}

export type Mapping = z.output<typeof mappingSchema>;
export type MappingField = Mapping['fields'][number];
/** A mapping as written in a file (policy optional). */
export type MappingInput = z.input<typeof mappingSchema>;

/** One problem of a mapping, located by its path in the document (e.g. ['fields', 3, 'attribute']). */
export interface MappingIssue {
  path: (string | number)[];
  message: string;
  /** True when the problem is the key at `path` itself (an unknown key), not its value. */
  atKey?: boolean;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * The rules across fields: a property is mapped once (an attribute may go to several properties), it is
 * not one of our provenance fields, and `enumLabels` goes only with the `enum` transform. Works on raw
 * input too (anything not shaped like a field is skipped), so these problems are reported alongside
 * the schema's.
 */
export function crossFieldIssues(raw: unknown): MappingIssue[] {
  if (!isRecord(raw) || !Array.isArray(raw.fields)) return [];
  const fields: unknown[] = raw.fields;
  const issues: MappingIssue[] = [];
  const firstUse = new Map<string, number>();
  const provenance = new Set<string>(PROVENANCE_FIELD_NAMES);
  fields.forEach((field, i) => {
    if (!isRecord(field)) return;
    const { property, transform } = field;
    if (typeof property === 'string') {
      const first = firstUse.get(property);
      if (first !== undefined) {
        const earlier = fields[first];
        const sameAttribute = isRecord(earlier) && earlier.attribute === field.attribute;
        issues.push({
          path: ['fields', i, 'property'],
          message: `duplicate property "${property}" (already mapped by fields[${first}]${
            sameAttribute ? ' from the same attribute' : ''
          }); each CRM field takes one attribute`,
        });
      } else {
        firstUse.set(property, i);
      }
      if (provenance.has(property)) {
        issues.push({
          path: ['fields', i, 'property'],
          message: `"${property}" is one of our provenance fields (${PROVENANCE_FIELD_NAMES.join(', ')}); map the attribute to another property`,
        });
      }
    }
    if (field.enumLabels !== undefined && typeof transform === 'string' && transform !== 'enum') {
      issues.push({
        path: ['fields', i, 'enumLabels'],
        message: `enumLabels is only allowed with transform "enum" (this field's transform is "${transform}")`,
        atKey: true,
      });
    }
  });
  return issues;
}

/**
 * Every problem of a raw (parsed) mapping document, or the validated mapping. Unknown keys are reported
 * one per key, with a suggestion.
 */
export function validateMapping(
  raw: unknown,
): { ok: true; mapping: Mapping } | { ok: false; issues: MappingIssue[] } {
  const parsed = mappingSchema.safeParse(raw);
  if (parsed.success) return { ok: true, mapping: parsed.data };
  const issues: MappingIssue[] = [];
  for (const issue of parsed.error.issues) {
    const path = issue.path.map((p) => (typeof p === 'symbol' ? String(p) : p));
    if (issue.code === 'unrecognized_keys') {
      const known = path.length === 0 ? TOP_KEYS : FIELD_KEYS;
      for (const key of issue.keys) {
        issues.push({
          path: [...path, key],
          message: `unknown key "${key}"${didYouMean(key, known)}`,
          atKey: true,
        });
      }
    } else {
      issues.push({ path, message: issue.message });
    }
  }
  const seen = new Set(issues.map((i) => `${i.path.join('\u0000')}\u0001${i.message}`));
  for (const issue of crossFieldIssues(raw)) {
    const key = `${issue.path.join('\u0000')}\u0001${issue.message}`;
    if (!seen.has(key)) {
      seen.add(key);
      issues.push(issue);
    }
  }
  return { ok: false, issues };
}
