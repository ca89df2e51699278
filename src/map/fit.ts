// Fitting a value to the CRM field it is written to, before the write: the CRM refuses a value that does
// not fit its field (Salesforce: STRING_TOO_LONG, NUMBER_OUTSIDE_VALID_RANGE; HubSpot: a string past
// 65,536 characters, a number with whitespace), and one refused value fails the account's whole write.
// So: text is cut to the field's length (a "truncated" note), a number rounded to the field's decimal
// places (a "rounded" note), dates and datetimes put in the one form every CRM takes, and a value that
// cannot be fitted at all (letters for a number, too many integer digits, an unknown option) is left out
// with its reason. Pure and CRM-neutral: each connector states its limits (`CrmConnector.fieldLimits`).
import type { FieldDefinition, FieldLimits } from '../../connectors/types.ts';

export type { FieldLimits };

export type FitNoteKind = 'truncated' | 'rounded' | 'skipped';

export type FitResult =
  | { ok: true; value: string | null; note?: { kind: 'truncated' | 'rounded'; reason: string } }
  | { ok: false; reason: string };

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const NUMBER = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;

function realDate(v: string): boolean {
  const m = DATE.exec(v);
  if (!m) return false;
  const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])];
  return month >= 1 && month <= 12 && day >= 1 && day <= new Date(Date.UTC(year, month, 0)).getUTCDate();
}

/** A number as plain decimal text (no exponent), at most `scale` decimal places when given. */
function plainNumber(n: number, scale: number | undefined): string {
  const fixed = scale === undefined ? String(n) : n.toFixed(scale);
  const text = /e/i.test(fixed)
    ? n.toLocaleString('en-US', { useGrouping: false, maximumFractionDigits: 20 })
    : fixed;
  return text.includes('.') ? text.replace(/\.?0+$/, '') : text;
}

function cut(value: string, max: number): FitResult {
  if (value.length <= max) return { ok: true, value };
  return {
    ok: true,
    value: value.slice(0, max),
    note: { kind: 'truncated', reason: `${value.length} characters cut to the field's ${max}.` },
  };
}

/** `value` fitted to a field of `definition`'s type under `limits`; null and "" pass (they clear). */
export function fitValue(value: string | null, definition: FieldDefinition, limits: FieldLimits): FitResult {
  if (value === null || value === '') return { ok: true, value };
  switch (definition.type) {
    case 'string':
    case 'url':
      return cut(value, limits.stringLength);
    case 'text':
      return cut(value, limits.textLength);
    case 'number': {
      const text = value.trim();
      const n = Number(text);
      if (!NUMBER.test(text) || !Number.isFinite(n))
        return { ok: false, reason: `${JSON.stringify(value.slice(0, 40))} is not a number.` };
      const bound = limits.number;
      if (!bound) return { ok: true, value: text };
      const integerDigits = Math.trunc(Math.abs(n)).toString().replace(/^0$/, '').length;
      if (integerDigits > bound.precision - bound.scale)
        return {
          ok: false,
          reason: `${text} has ${integerDigits} digits before the point; the field holds ${bound.precision - bound.scale}.`,
        };
      const fitted = plainNumber(n, bound.scale);
      return Number(fitted) === n
        ? { ok: true, value: fitted }
        : {
            ok: true,
            value: fitted,
            note: { kind: 'rounded', reason: `${text} rounded to ${bound.scale} decimal places: ${fitted}.` },
          };
    }
    case 'date': {
      const text = value.trim();
      // Date.parse rolls 2024-02-30 over to March: the calendar date itself must exist.
      const day =
        !realDate(text.slice(0, 10)) || Number.isNaN(Date.parse(text))
          ? null
          : text.length === 10
            ? text
            : new Date(text).toISOString().slice(0, 10);
      return day !== null && realDate(day)
        ? { ok: true, value: day }
        : { ok: false, reason: `${JSON.stringify(value.slice(0, 40))} is not a date.` };
    }
    case 'datetime': {
      const text = value.trim();
      const ms =
        /^\d{4}-\d{2}-\d{2}/.test(text) && realDate(text.slice(0, 10)) ? Date.parse(text) : Number.NaN;
      return Number.isNaN(ms)
        ? { ok: false, reason: `${JSON.stringify(value.slice(0, 40))} is not a date and time.` }
        : { ok: true, value: new Date(ms).toISOString() };
    }
    case 'bool': {
      const lower = value.trim().toLowerCase();
      return lower === 'true' || lower === 'false'
        ? { ok: true, value: lower }
        : { ok: false, reason: `${JSON.stringify(value.slice(0, 40))} is not true or false.` };
    }
    case 'enumeration': {
      const options = definition.options ?? [];
      return options.some((o) => o.value === value)
        ? { ok: true, value }
        : { ok: false, reason: `"${value.slice(0, 60)}" is not one of the field's options.` };
    }
  }
}

export interface FitNote {
  field: string;
  kind: FitNoteKind;
  reason: string;
}

/**
 * Fits every value of one account's write to its field: the values to send (an unfittable one left out)
 * and a note per value changed or left out. A field with no definition (not ours) is sent as it is.
 */
export function fitWrites(
  values: Record<string, string | null>,
  definitions: ReadonlyMap<string, FieldDefinition>,
  limits: FieldLimits | undefined,
): { values: Record<string, string | null>; notes: FitNote[] } {
  if (!limits) return { values, notes: [] };
  const out: Record<string, string | null> = {};
  const notes: FitNote[] = [];
  for (const [field, value] of Object.entries(values)) {
    const definition = definitions.get(field);
    if (!definition) {
      out[field] = value;
      continue;
    }
    const fit = fitValue(value, definition, limits);
    if (!fit.ok) {
      notes.push({ field, kind: 'skipped', reason: `${fit.reason} The field is left as it is.` });
      continue;
    }
    out[field] = fit.value;
    if (fit.note) notes.push({ field, ...fit.note });
  }
  return { values: out, notes };
}
