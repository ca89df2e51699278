// Our field definitions as Salesforce CustomField metadata, and our snake_case field names as Salesforce
// API names: pure functions. `ensureFields` sends what they build through the Metadata API
// (`conn.metadata.upsert('CustomField', …)`).

import type { EnsureFieldsResult, FieldDefinition, FieldLimits } from '../types.ts';
import type { SalesforceCalls } from './client.ts';
import { isRecord, SalesforceRequestError } from './errors.ts';

/** The Account custom fields are prefixed with this; the note key field is `BuyerIntel_Key__c`. */
export const FIELD_PREFIX = 'BuyerIntel_';
/** The Task (or ContentVersion) field that carries a note's dedupe key. */
export const NOTE_KEY_FIELD = 'BuyerIntel_Key__c';

/**
 * What the fields `toCustomFieldMetadata` creates hold: Text(255) and Url (255), LongTextArea(32768),
 * Number(18, 2).
 */
export const SALESFORCE_FIELD_LIMITS: FieldLimits = {
  stringLength: 255,
  textLength: 32_768,
  number: { precision: 18, scale: 2 },
  boolReadsFalseWhenEmpty: true,
};

/** A CustomField as the Metadata API takes it (plain values; jsforce adds the xsi:type). */
export interface CustomFieldMetadata {
  fullName: string;
  label: string;
  description?: string;
  inlineHelpText?: string;
  type: 'Text' | 'LongTextArea' | 'Number' | 'Date' | 'DateTime' | 'Picklist' | 'Checkbox' | 'Url';
  length?: number;
  visibleLines?: number;
  precision?: number;
  scale?: number;
  defaultValue?: string;
  externalId?: boolean;
  valueSet?: {
    restricted: boolean;
    valueSetDefinition: { sorted: boolean; value: { fullName: string; label: string; default: boolean }[] };
  };
}

/** Our field names → Salesforce API names (`defaultFieldName`, or the connector's `fieldName` option). */
export type ApiNameOf = (crmFieldName: string) => string;

const pascal = (words: string[]) =>
  words
    .filter(Boolean)
    .map((w) => w.charAt(0).toUpperCase() + w.slice(1))
    .join('');

/**
 * Default translation of our property names: `buyer_intel_population` → `BuyerIntel_Population__c`,
 * `buyer_intel_match_reason` → `BuyerIntel_MatchReason__c`, `population` → `BuyerIntel_Population__c`.
 * A name that is already a Salesforce API name (ends in `__c`, or starts upper-case like `Website`)
 * passes through unchanged.
 */
export function defaultFieldName(crmFieldName: string): string {
  if (/__c$/i.test(crmFieldName) || /^[A-Z]/.test(crmFieldName)) return crmFieldName;
  const rest = crmFieldName.replace(/^buyer_intel_/i, '');
  const words = rest.split(/[^A-Za-z0-9]+/).map((w) => w.toLowerCase());
  return `${FIELD_PREFIX}${pascal(words) || 'Field'}__c`;
}

/** A Salesforce custom field API name: a letter first, letters/digits/single underscores, `__c`. */
export function isCustomFieldApiName(name: string): boolean {
  const base = name.slice(0, -3);
  return name.endsWith('__c') && /^[A-Za-z][A-Za-z0-9_]*$/.test(base) && !/__|_$/.test(base);
}

const clip = (text: string, max: number) => (text.length > max ? text.slice(0, max) : text);

/**
 * The CustomField metadata of one of our Account fields. Text(255), LongTextArea(32768, 5 lines),
 * Number(18,2), Date, DateTime, Picklist (unrestricted, values in the given order), Checkbox (default
 * false), Url. `apiName` is the field's API name (`BuyerIntel_Population__c`).
 */
export function toCustomFieldMetadata(
  definition: FieldDefinition,
  apiName: string,
  sobjectType = 'Account',
): CustomFieldMetadata {
  if (!isCustomFieldApiName(apiName)) {
    throw new Error(`"${apiName}" is not a valid Salesforce custom field API name`);
  }
  const base = {
    fullName: `${sobjectType}.${apiName}`,
    // Salesforce limits a label to 40 characters and a description to 1000.
    label: clip(definition.label, 40),
    ...(definition.description ? { description: clip(definition.description, 1000) } : {}),
  };
  switch (definition.type) {
    case 'string':
      return { ...base, type: 'Text', length: 255 };
    case 'text':
      return { ...base, type: 'LongTextArea', length: 32768, visibleLines: 5 };
    case 'number':
      return { ...base, type: 'Number', precision: 18, scale: 2 };
    case 'date':
      return { ...base, type: 'Date' };
    case 'datetime':
      return { ...base, type: 'DateTime' };
    case 'bool':
      return { ...base, type: 'Checkbox', defaultValue: 'false' };
    case 'url':
      return { ...base, type: 'Url' };
    case 'enumeration':
      return {
        ...base,
        type: 'Picklist',
        valueSet: {
          restricted: false,
          valueSetDefinition: {
            sorted: false,
            value: (definition.options ?? []).map((o) => ({
              fullName: o.value,
              label: clip(o.label, 255),
              default: false,
            })),
          },
        },
      };
  }
}

/** The object that carries a note's dedupe key: the Task, or the ContentVersion of a ContentNote. */
export type NoteKeyObject = 'Task' | 'ContentVersion';

/**
 * The field that holds a note's dedupe key (created by `ensureFields` with the Account fields): on Task
 * for notes as Tasks, on ContentVersion for ContentNotes (a ContentNote takes no custom fields itself).
 */
export function noteKeyFieldMetadata(object: NoteKeyObject = 'Task'): CustomFieldMetadata {
  return {
    fullName: `${object}.${NOTE_KEY_FIELD}`,
    label: 'Buyer Intel Key',
    description:
      object === 'Task'
        ? 'Dedupe key of the buyer signal this task was created for (set by Buyer Intel Sync).'
        : 'Dedupe key of the buyer signal this note was created for (set by Buyer Intel Sync).',
    type: 'Text',
    length: 255,
  };
}

/** The Metadata API takes at most 10 components per upsert. */
const METADATA_BATCH = 10;

/**
 * Upserts our Account fields and the note key field (on Task, and on ContentVersion for ContentNotes)
 * through the Metadata API (10 per call). In an org the integration user still needs field-level access
 * to them before the first write.
 */
export async function ensureFields(
  calls: SalesforceCalls,
  fieldName: ApiNameOf,
  noteKeyObject: NoteKeyObject,
  fields: readonly FieldDefinition[],
): Promise<EnsureFieldsResult> {
  const { conn, call, redact } = calls;
  const metadata: CustomFieldMetadata[] = [
    ...fields.map((f) => toCustomFieldMetadata(f, fieldName(f.name))),
    noteKeyFieldMetadata(noteKeyObject),
    // A follow-up is a Task whatever form notes take: it carries its key there too.
    ...(noteKeyObject === 'Task' ? [] : [noteKeyFieldMetadata('Task')]),
  ];
  const created: string[] = [];
  const existing: string[] = [];
  for (let i = 0; i < metadata.length; i += METADATA_BATCH) {
    const chunk = metadata.slice(i, i + METADATA_BATCH);
    const results = await call('metadata.upsert', () =>
      conn.metadata.upsert('CustomField', chunk as unknown as Parameters<typeof conn.metadata.create>[1][]),
    );
    for (const result of Array.isArray(results) ? results : [results]) {
      if (!result.success) {
        const errors = Array.isArray(result.errors) ? result.errors : [result.errors];
        const detail = errors
          .map((e: unknown) => (isRecord(e) ? `${String(e.statusCode)}: ${String(e.message)}` : String(e)))
          .join('; ');
        throw new SalesforceRequestError(
          redact(`Salesforce refused the custom field ${result.fullName}: ${detail}`),
          { operation: 'metadata.upsert', errorCode: 'METADATA_UPSERT_FAILED' },
        );
      }
      (result.created ? created : existing).push(result.fullName);
    }
  }
  return { created, existing };
}
