// From a buyer attribute's value to the string a CRM field stores (HubSpot stores every property as a
// string). Never throws: a value that cannot be converted becomes null, and the caller reports it.
import type { FieldTransform, MappingField } from './mapping-schema.ts';

/** The part of a mapping field a transform needs. */
export type TransformSpec = Pick<MappingField, 'transform' | 'enumLabels'>;

/** Separator of multi-value fields (HubSpot's convention for multiple checkboxes and lists). */
export const LIST_SEPARATOR = ';';

export function transformValue(value: unknown, field: TransformSpec): string | null {
  try {
    if (isEmpty(value)) return null;
    return TRANSFORMERS[field.transform](value, field);
  } catch {
    return null;
  }
}

/**
 * The option values of an enumeration field: the distinct labels of `enumLabels` (what transformValue
 * writes), or null when the field has no fixed options.
 */
export function enumOptionValues(field: TransformSpec): string[] | null {
  if (field.transform !== 'enum' || field.enumLabels === undefined) return null;
  const values = Object.values(field.enumLabels)
    .map((v) => v.trim())
    .filter((v) => v !== '');
  return values.length ? [...new Set(values)] : null;
}

/**
 * A CRM value in the form our transform would have written it, for comparing: '100.0' and '100' are
 * the same number, '2024-07-01T00:00:00Z' the same date, ' x ' the same text. A value the transform
 * cannot read is compared as trimmed text.
 */
export function comparableValue(value: string | null | undefined, field: TransformSpec): string {
  if (value === null || value === undefined) return '';
  const trimmed = value.trim();
  if (trimmed === '') return '';
  switch (field.transform) {
    case 'number':
    case 'integer':
    case 'percent':
    case 'currency': {
      // By value, unrounded: an integer field holding 100.4 is not our 100.
      const n = toNumber(trimmed, field.transform);
      return n === null ? trimmed : (plainDecimal(n) ?? trimmed);
    }
    case 'enum':
      // The CRM holds the label we wrote (or anything else): compare as text.
      return trimmed;
    default:
      return transformValue(trimmed, field) ?? trimmed;
  }
}

function isEmpty(value: unknown): boolean {
  return value === null || value === undefined || (typeof value === 'string' && value.trim() === '');
}

type Transformer = (value: unknown, field: TransformSpec) => string | null;

const TRANSFORMERS: Record<FieldTransform, Transformer> = {
  text: (value) => textOf(value),
  number: (value) => {
    const n = toNumber(value, 'number');
    return n === null ? null : plainDecimal(n);
  },
  integer: (value) => {
    const n = toNumber(value, 'integer');
    return n === null ? null : plainDecimal(Math.round(n));
  },
  // As given: 12.5 means 12.5% and stays '12.5'. A 0..1 fraction is not guessed at.
  percent: (value) => {
    const n = toNumber(value, 'percent');
    return n === null ? null : plainDecimal(n);
  },
  // Whole US dollars.
  currency: (value) => {
    const n = toNumber(value, 'currency');
    return n === null ? null : plainDecimal(Math.round(n));
  },
  date: (value) => dateOf(value),
  list: (value) => listOf(value),
  url: (value) => urlOf(value),
  enum: (value, field) => {
    const key = typeof value === 'string' ? value.trim() : scalarText(value);
    if (key === null || key === '') return null;
    const labels = field.enumLabels;
    const label = labels !== undefined && Object.hasOwn(labels, key) ? labels[key] : undefined;
    return label?.trim() || key;
  },
  boolean: (value) => booleanOf(value),
};

/** A finite number as a plain decimal string: no exponent, no thousands separators, no "-0". */
export function plainDecimal(n: number): string | null {
  if (!Number.isFinite(n)) return null;
  if (Object.is(n, -0) || n === 0) return '0';
  const s = String(n);
  const m = /^(-?)(\d)(?:\.(\d+))?e([+-]\d+)$/.exec(s);
  if (!m) return s;
  const [, sign = '', lead = '', frac = '', exp = '0'] = m;
  const digits = lead + frac;
  const point = 1 + Number(exp); // position of the decimal point within `digits`
  if (point <= 0) return `${sign}0.${'0'.repeat(-point)}${digits}`;
  if (point >= digits.length) return `${sign}${digits}${'0'.repeat(point - digits.length)}`;
  return `${sign}${digits.slice(0, point)}.${digits.slice(point)}`;
}

const NUMERIC = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/;
const GROUPED = /^[+-]?\d{1,3}(?:,\d{3})+(?:\.\d+)?$/;

/** A number from a number or a numeric string ("1,250,000"; "$12" for currency, "12.5%" for percent). */
function toNumber(value: unknown, transform: FieldTransform): number | null {
  if (typeof value === 'number') return Number.isFinite(value) ? value : null;
  if (typeof value === 'bigint') {
    const n = Number(value);
    return Number.isFinite(n) ? n : null;
  }
  if (typeof value !== 'string') return null;
  let s = value.trim();
  if (transform === 'currency') s = s.replace(/^([+-]?)\s*\$\s*/, '$1').replace(/\s*USD$/i, '');
  if (transform === 'percent') s = s.replace(/\s*%$/, '');
  if (GROUPED.test(s)) s = s.replaceAll(',', '');
  if (!NUMERIC.test(s)) return null;
  const n = Number(s);
  return Number.isFinite(n) ? n : null;
}

/** A scalar as text (numbers plain, booleans 'true'/'false'); null for anything else. */
function scalarText(value: unknown): string | null {
  if (typeof value === 'string') return value.trim();
  if (typeof value === 'number') return plainDecimal(value);
  if (typeof value === 'bigint') return value.toString();
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  return null;
}

function textOf(value: unknown): string | null {
  const scalar = scalarText(value);
  if (scalar !== null) return scalar === '' ? null : scalar;
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? null : value.toISOString();
  if (typeof value === 'object' && value !== null) {
    const json = JSON.stringify(value, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v));
    return json === undefined || json === '{}' || json === '[]' ? null : json;
  }
  return null;
}

const DATE_TIME =
  /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?(?:Z|[+-]\d{2}(?::?\d{2})?)?)?$/i;

/** 'YYYY-MM-DD' from a date or an ISO date-time (the date as written, offset not applied). */
function dateOf(value: unknown): string | null {
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? null : value.toISOString().slice(0, 10);
  if (typeof value !== 'string') return null;
  const m = DATE_TIME.exec(value.trim());
  if (!m) return null;
  const [, y = '', mo = '', d = '', hh, mi, ss] = m;
  const year = Number(y);
  const month = Number(mo);
  const day = Number(d);
  const check = new Date(Date.UTC(year, month - 1, day));
  if (check.getUTCFullYear() !== year || check.getUTCMonth() !== month - 1 || check.getUTCDate() !== day)
    return null;
  if (hh !== undefined && (Number(hh) > 23 || Number(mi) > 59 || (ss !== undefined && Number(ss) > 60)))
    return null;
  return `${y}-${mo}-${d}`;
}

/** Items joined with ';' (an item's own ';' becomes ','), empty items dropped, duplicates once. */
function listOf(value: unknown): string | null {
  const items: unknown[] = Array.isArray(value)
    ? value
    : typeof value === 'string'
      ? value.split(LIST_SEPARATOR)
      : [value];
  const out: string[] = [];
  for (const item of items) {
    if (isEmpty(item)) continue;
    const text = textOf(item);
    if (text === null) continue;
    const clean = text.replaceAll(LIST_SEPARATOR, ',').trim();
    if (clean !== '' && !out.includes(clean)) out.push(clean);
  }
  return out.length ? out.join(LIST_SEPARATOR) : null;
}

/** An absolute http(s) URL; "austintexas.gov" becomes "https://austintexas.gov/". */
function urlOf(value: unknown): string | null {
  if (typeof value !== 'string') return null;
  const s = value.trim();
  if (s === '' || /\s/.test(s)) return null;
  const hasScheme = /^[a-z][a-z0-9+.-]*:/i.test(s);
  if (hasScheme && !/^https?:\/\//i.test(s)) return null;
  const candidate = hasScheme ? s : `https://${s.replace(/^\/+/, '')}`;
  if (!URL.canParse(candidate)) return null;
  const url = new URL(candidate);
  const host = url.hostname;
  if (host !== 'localhost' && !host.includes('.')) return null;
  if (host.startsWith('.') || host.endsWith('.') || host.includes('..')) return null;
  return url.href;
}

const TRUE_WORDS = new Set(['true', 'yes', 'y', '1']);
const FALSE_WORDS = new Set(['false', 'no', 'n', '0']);

function booleanOf(value: unknown): string | null {
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (typeof value === 'number') return value === 1 ? 'true' : value === 0 ? 'false' : null;
  if (typeof value !== 'string') return null;
  const s = value.trim().toLowerCase();
  if (TRUE_WORDS.has(s)) return 'true';
  if (FALSE_WORDS.has(s)) return 'false';
  return null;
}
