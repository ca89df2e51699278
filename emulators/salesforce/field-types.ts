// What a Salesforce field accepts over REST, by its type: Text/Url/TextArea/LongTextArea(length),
// Number(precision, scale), Date, DateTime, Checkbox, Picklist (restricted or not). The REST deserializer
// refuses a value that is no value of the type at all (letters for a number, 2024-02-30 for a date) for the
// whole request: 400 JSON_PARSER_ERROR "Cannot deserialize instance of double from VALUE_STRING value …".
// A value of the right type that does not fit the field is refused per record: STRING_TOO_LONG
// "<label>: data value too large: <value> (max length=N)", NUMBER_OUTSIDE_VALID_RANGE "<label>: value outside
// of valid range on numeric field: <value>" (more integer digits than precision − scale; extra decimal places
// are accepted — Salesforce keeps them), INVALID_OR_NULL_FOR_RESTRICTED_PICKLIST "<label>: bad value for
// restricted picklist field: <value>".
//
// A Checkbox is never null: it reads its default (false unless the field was defined with
// defaultValue true) on every record, those created before the field included, and describe calls it
// nillable: false. A write of `null` to one is refused for that record: INVALID_TYPE_ON_FIELD_IN_RECORD
// "<label>: value not of required type: " naming the field. The REST guide is silent on it; what is
// public says the save refuses it — Apex DML (salesforce.stackexchange.com/questions/127548: "first
// error: INVALID_TYPE_ON_FIELD_IN_RECORD, IsAccountManagerRepType: value not of required type: :
// [IsAccountManagerRepType__c]"; developer forums, HasOptedOutOfEmail, the same code) and an API client
// updating with "insert null values" (jetstreamapp/jetstream#712: "INVALID_TYPE_ON_FIELD_IN_RECORD:
// TRIG_RESHIP: value not of required type:"). The SOAP API takes a field to null only when it is
// nillable (sObject.fieldsToNull), which a Checkbox is not. So: refused, never stored as false — the
// way to clear a Checkbox is to write false.
import { SalesforceError } from './errors.ts';

/** A field's value as a record holds it. */
export type FieldValue = string | number | boolean | null;

export type FieldSpec =
  | { kind: 'text'; length: number }
  | { kind: 'number'; precision: number; scale: number }
  | { kind: 'date' }
  | { kind: 'datetime' }
  | { kind: 'checkbox'; default?: boolean }
  | { kind: 'picklist'; values: readonly string[]; restricted: boolean }
  /** Ids, base64 and system fields: the store checks them itself. */
  | { kind: 'any' };

export const TEXT_255: FieldSpec = { kind: 'text', length: 255 };

/** The REST deserializer's refusal: it fails the whole request (a collection's too), not one record. */
export class DeserializeError extends SalesforceError {}

/** A value the JSON deserializer cannot turn into the field's type: the whole request is refused. */
function notOfType(javaType: string, value: FieldValue): SalesforceError {
  const token =
    typeof value === 'string'
      ? 'VALUE_STRING'
      : typeof value === 'boolean'
        ? 'VALUE_TRUE'
        : 'VALUE_NUMBER_INT';
  return new DeserializeError(400, [
    {
      message: `Cannot deserialize instance of ${javaType} from ${token} value ${String(value)} or request may be missing a required field`,
      errorCode: 'JSON_PARSER_ERROR',
    },
  ]);
}

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATETIME = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})?$/;

/** A calendar date that exists (no 2024-02-30, no month 13). */
export function isRealDate(year: number, month: number, day: number): boolean {
  if (month < 1 || month > 12 || day < 1) return false;
  return day <= new Date(Date.UTC(year, month, 0)).getUTCDate();
}

function realDateParts(m: RegExpExecArray): boolean {
  return isRealDate(Number(m[1]), Number(m[2]), Number(m[3]));
}

export function isDateValue(v: string): boolean {
  const m = DATE.exec(v);
  return m !== null && realDateParts(m);
}

export function isDateTimeValue(v: string): boolean {
  const m = DATETIME.exec(v);
  if (!m || !realDateParts(m)) return false;
  return Number(m[4]) < 24 && Number(m[5]) < 60 && Number(m[6] ?? 0) < 60;
}

const PICKLIST_VALUE_MAX = 255;

/**
 * A DateTime as Salesforce keeps and answers it: UTC, milliseconds, `+0000` (2024-05-01T11:00:00.000+0000
 * for 2024-05-01T13:00:00+02:00). A value without a zone is UTC.
 */
function normalDateTime(value: string): string {
  const m = DATETIME.exec(value);
  const zone = m?.[7];
  const iso = zone === undefined ? `${value}Z` : value.replace(/([+-]\d{2})(\d{2})$/, '$1:$2');
  return new Date(Date.parse(iso)).toISOString().replace('Z', '+0000');
}

const NUMERIC = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/;

/**
 * Checks a value for a field and answers it as stored (a numeric string of a Number field becomes a number,
 * "true" of a Checkbox a boolean). Throws the record's error (STRING_TOO_LONG …) or the request's
 * (JSON_PARSER_ERROR). null passes here (required fields are the store's business), except for a
 * Checkbox, which has no empty value: INVALID_TYPE_ON_FIELD_IN_RECORD for that record.
 */
export function checkFieldValue(
  spec: FieldSpec,
  field: string,
  label: string,
  value: FieldValue,
): FieldValue {
  if (value === null) {
    if (spec.kind !== 'checkbox') return null;
    throw new SalesforceError(400, [
      {
        message: `${label}: value not of required type: `,
        errorCode: 'INVALID_TYPE_ON_FIELD_IN_RECORD',
        fields: [field],
      },
    ]);
  }
  switch (spec.kind) {
    case 'any':
      return value;
    case 'text': {
      const text = String(value);
      if (text.length > spec.length)
        throw new SalesforceError(400, [
          {
            message: `${label}: data value too large: ${text.length > 40 ? `${text.slice(0, 40)}...` : text} (max length=${spec.length})`,
            errorCode: 'STRING_TOO_LONG',
            fields: [field],
          },
        ]);
      return value;
    }
    case 'number': {
      if (typeof value === 'boolean') throw notOfType('double', value);
      if (typeof value === 'string' && !NUMERIC.test(value.trim())) throw notOfType('double', value);
      const n = Number(value);
      if (!Number.isFinite(n)) throw notOfType('double', value);
      const integerDigits = Math.trunc(Math.abs(n)).toString().replace(/^0$/, '').length;
      if (integerDigits > spec.precision - spec.scale)
        throw new SalesforceError(400, [
          {
            message: `${label}: value outside of valid range on numeric field: ${String(value)}`,
            errorCode: 'NUMBER_OUTSIDE_VALID_RANGE',
            fields: [field],
          },
        ]);
      return n;
    }
    case 'date':
      if (typeof value !== 'string' || !(isDateValue(value) || isDateTimeValue(value)))
        throw notOfType('date', value);
      return value.slice(0, 10);
    case 'datetime':
      if (typeof value !== 'string' || !isDateTimeValue(value)) throw notOfType('datetime', value);
      return normalDateTime(value);
    case 'checkbox':
      if (typeof value === 'boolean') return value;
      if (value === 'true' || value === 'false') return value === 'true';
      throw notOfType('boolean', value);
    case 'picklist': {
      const text = String(value);
      // A picklist value is at most 255 characters, restricted or not (an unrestricted one takes any
      // value of that length).
      if (text.length > PICKLIST_VALUE_MAX)
        throw new SalesforceError(400, [
          {
            message: `${label}: data value too large: ${text.slice(0, 40)}... (max length=${PICKLIST_VALUE_MAX})`,
            errorCode: 'STRING_TOO_LONG',
            fields: [field],
          },
        ]);
      if (spec.restricted && !spec.values.includes(text))
        throw new SalesforceError(400, [
          {
            message: `${label}: bad value for restricted picklist field: ${text}`,
            errorCode: 'INVALID_OR_NULL_FOR_RESTRICTED_PICKLIST',
            fields: [field],
          },
        ]);
      return value;
    }
  }
}

type XmlLike = Record<string, unknown>;
const textOf = (v: unknown): string | undefined =>
  typeof v === 'string' ? v : v && typeof v === 'object' && '#text' in v ? String(v['#text']) : undefined;
const intOf = (v: unknown, fallback: number) => {
  const t = textOf(v);
  return t !== undefined && /^\d+$/.test(t) ? Number(t) : fallback;
};

/** The spec of a CustomField metadata component (as the Metadata API upsert received it). */
export function specOfCustomField(md: XmlLike): FieldSpec {
  switch (textOf(md.type)) {
    case 'Text':
    case 'LongTextArea':
      return { kind: 'text', length: intOf(md.length, 255) };
    case 'Url':
      return TEXT_255;
    case 'Number':
      return { kind: 'number', precision: intOf(md.precision, 18), scale: intOf(md.scale, 0) };
    case 'Date':
      return { kind: 'date' };
    case 'DateTime':
      return { kind: 'datetime' };
    case 'Checkbox':
      return { kind: 'checkbox', default: textOf(md.defaultValue) === 'true' };
    case 'Picklist': {
      const valueSet = (md.valueSet ?? {}) as XmlLike;
      const definition = (valueSet.valueSetDefinition ?? {}) as XmlLike;
      const raw = definition.value;
      const items = (Array.isArray(raw) ? raw : raw === undefined ? [] : [raw]) as XmlLike[];
      return {
        kind: 'picklist',
        values: items.map((v) => textOf(v.fullName) ?? '').filter((v) => v !== ''),
        restricted: textOf(valueSet.restricted) === 'true',
      };
    }
    default:
      return TEXT_255;
  }
}
