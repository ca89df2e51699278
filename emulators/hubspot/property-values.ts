// How HubSpot checks and stores a property value written through the CRM APIs. Values are stored as
// strings; "" (or null) clears a value. Datetimes accept epoch milliseconds or ISO 8601 and come back as
// ISO 8601 with milliseconds; dates must be at midnight UTC and come back as YYYY-MM-DD; enumerations must
// name one of their options (checkbox enumerations: several, separated by ";").
import type { PropertyDefinition } from './default-properties.ts';
import type { InvalidProperty } from './errors.ts';

export type ValueCheck = { ok: true; value: string } | { ok: false; invalid: InvalidProperty };

const NUMBER = /^-?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;
/** HubSpot's limit on a string property value, in characters. */
export const MAX_STRING_VALUE = 65_536;

export function checkValue(def: PropertyDefinition, raw: unknown): ValueCheck {
  if (raw === null || raw === undefined || raw === '') return { ok: true, value: '' };
  if (typeof raw === 'object') {
    return invalid(
      def,
      'INVALID_PROPERTY_VALUE',
      `${JSON.stringify(raw)} is not a valid value for ${def.name}`,
    );
  }
  const value = String(raw);
  // Since 2025 a non-string value with leading or trailing whitespace is refused (developer changelog,
  // "Enhanced Validations for Non-String Properties"), rather than trimmed.
  if (def.type !== 'string' && value !== value.trim())
    return invalid(def, 'LEADING_TRAILING_WHITESPACE', `"${value}" includes leading or trailing whitespace.`);
  switch (def.type) {
    case 'number':
      return NUMBER.test(value)
        ? { ok: true, value }
        : invalid(def, 'INVALID_DOUBLE', `${value} was not a valid number.`);
    case 'datetime': {
      const ms = toEpochMs(value);
      return ms === undefined
        ? invalid(def, 'INVALID_DATE', `${value} is not a valid datetime.`)
        : { ok: true, value: new Date(ms).toISOString() };
    }
    case 'date': {
      const ms = toEpochMs(value);
      if (ms === undefined) return invalid(def, 'INVALID_DATE', `${value} is not a valid date.`);
      const iso = new Date(ms).toISOString();
      if (!iso.endsWith('T00:00:00.000Z')) {
        return invalid(def, 'INVALID_DATE', `${value} is at ${iso.slice(11, 23)} UTC, not midnight!`);
      }
      return { ok: true, value: iso.slice(0, 10) };
    }
    case 'bool': {
      const lower = value.toLowerCase();
      return lower === 'true' || lower === 'false'
        ? { ok: true, value: lower }
        : invalid(def, 'INVALID_OPTION', optionMessage(def, value));
    }
    case 'enumeration': {
      if (def.externalOptions) return { ok: true, value };
      const parts = def.fieldType === 'checkbox' ? value.split(';') : [value];
      const allowed = new Set(def.options.map((o) => o.value));
      const bad = parts.find((p) => !allowed.has(p));
      return bad === undefined
        ? { ok: true, value }
        : invalid(def, 'INVALID_OPTION', optionMessage(def, bad));
    }
    default:
      return value.length > MAX_STRING_VALUE
        ? invalid(
            def,
            'MAX_LENGTH_EXCEEDED',
            `Property value is ${value.length} characters long; the limit is ${MAX_STRING_VALUE}.`,
          )
        : { ok: true, value };
  }
}

/**
 * ISO 8601 as HubSpot's property docs describe datetime and date values: a calendar date, optionally a
 * `T` time and a zone. "2024-05-01 13:00:00" (a space, no zone) and 2024-02-30 are no ISO 8601 values;
 * the docs do not say what HubSpot does with them, so they are refused (the stricter choice) rather than
 * read as local time or rolled over to March 1st as JavaScript's Date.parse would.
 */
const ISO_8601 =
  /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})?)?$/;

/** Epoch milliseconds from "1700000000000" or an ISO 8601 string of a date that exists. */
export function toEpochMs(value: string): number | undefined {
  if (/^-?\d+$/.test(value)) return Number(value);
  const m = ISO_8601.exec(value);
  if (!m) return undefined;
  const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (month < 1 || month > 12 || day < 1 || day > new Date(Date.UTC(year, month, 0)).getUTCDate())
    return undefined;
  if (Number(m[4] ?? 0) > 23 || Number(m[5] ?? 0) > 59 || Number(m[6] ?? 0) > 59) return undefined;
  // No zone: UTC (Date.parse would take local time).
  const zoned = m[4] === undefined ? `${value}T00:00:00Z` : m[7] === undefined ? `${value}Z` : value;
  const ms = Date.parse(zoned.replace(/([+-]\d{2})(\d{2})$/, '$1:$2'));
  return Number.isNaN(ms) ? undefined : ms;
}

const invalid = (def: PropertyDefinition, error: string, message: string): ValueCheck => ({
  ok: false,
  invalid: { name: def.name, error, message },
});

/** HubSpot prints the allowed options the way its (protobuf) option objects print. */
function optionMessage(def: PropertyDefinition, value: string): string {
  const options = def.options
    .map(
      (o) =>
        `label: ${JSON.stringify(o.label)}\nvalue: ${JSON.stringify(o.value)}\ndisplay_order: ${o.displayOrder}\nhidden: ${o.hidden}\nread_only: false\n`,
    )
    .join(', ');
  return `${value} was not one of the allowed options: [${options}]`;
}
