// A small SOQL subset: SELECT f1, f2 FROM <object> [WHERE f = 'x' [AND g != 1 AND Id > 'x'
// AND h IN ('a', 'b') ...]] [ORDER BY f [ASC|DESC]] [LIMIT n]. Keywords are case-insensitive; text
// comparisons too, as in SOQL. Anything else is MALFORMED_QUERY; unknown objects INVALID_TYPE, unknown
// fields INVALID_FIELD. A ContentDocumentLink query must filter on ContentDocumentId or LinkedEntityId
// with = or IN (Salesforce's implementation restriction). A literal of the wrong type for its field is
// refused (INVALID_FIELD; a bad id INVALID_QUERY_FILTER_OPERATOR), never answered as 0 rows.
import { malformedQuery, SalesforceError } from './errors.ts';
import { type FieldValue, isDateTimeValue, isDateValue } from './field-types.ts';
import { canonicalId, isWellFormedId } from './ids.ts';
import { resolveType, type SalesforceStore, type SObjectRecord, type SObjectType } from './store.ts';

const OPERATORS = ['=', '!=', '<', '<=', '>', '>='] as const;
type Operator = (typeof OPERATORS)[number];

export type Condition = (
  | { field: string; op: Operator; value: FieldValue }
  | { field: string; op: 'IN'; values: FieldValue[] }
) & { temporal?: boolean };

export interface SoqlQuery {
  type: SObjectType;
  fields: string[];
  where: Condition[];
  orderBy?: { field: string; descending: boolean };
  limit?: number;
}

const TOKEN =
  /\s*(?:('(?:[^'\\]|\\.)*')|(!=|<=|>=|=|<|>|,|\(|\))|([A-Za-z_][A-Za-z0-9_.]*)|(\d{4}-\d{2}-\d{2}(?:T\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:\d{2}))?(?![\w:.])|-?\d+(?:\.\d+)?))/y;

function tokenize(soql: string): string[] {
  const tokens: string[] = [];
  TOKEN.lastIndex = 0;
  let pos = 0;
  while (pos < soql.length) {
    if (/^\s*$/.test(soql.slice(pos))) break;
    TOKEN.lastIndex = pos;
    const m = TOKEN.exec(soql);
    if (!m) throw malformedQuery(`unexpected token: '${soql.slice(pos).trim().split(/\s+/)[0] ?? ''}'`);
    tokens.push(m[1] ?? m[2] ?? m[3] ?? m[4] ?? '');
    pos = TOKEN.lastIndex;
  }
  return tokens;
}

const noSuchColumn = (type: string, field: string) =>
  new SalesforceError(400, [
    {
      message: `No such column '${field}' on entity '${type}'. If you are attempting to use a custom field, be sure to append the '__c' after the custom field name. Please reference your WSDL or the describe call for the appropriate names.`,
      errorCode: 'INVALID_FIELD',
    },
  ]);

/**
 * A filter value of the wrong type for its field (a quoted date or number, a number for a text field):
 * INVALID_FIELD "value of filter criterion for field 'X' must be of type T and should [not] be enclosed
 * in quotes", as Salesforce answers (its message also echoes the query and the error's row and column,
 * left out here).
 */
const notOfFilterType = (field: string, kind: string, quoted = false) =>
  new SalesforceError(400, [
    {
      message: `value of filter criterion for field '${field}' must be of type ${kind} and should ${quoted ? '' : 'not '}be enclosed in quotes`,
      errorCode: 'INVALID_FIELD',
    },
  ]);

/** A quoted filter value on an id field that is no id: INVALID_QUERY_FILTER_OPERATOR "invalid ID field". */
const invalidIdFilter = (value: string) =>
  new SalesforceError(400, [
    { message: `invalid ID field: ${value}`, errorCode: 'INVALID_QUERY_FILTER_OPERATOR' },
  ]);

const unquote = (v: string) => v.slice(1, -1).replace(/\\(.)/g, '$1');

/**
 * A filter value checked against its field's type (store.filterKind). Ids are compared in their 18-char
 * form, so a 15-char id matches as it does in Salesforce. null passes for every type. An empty quoted id
 * is refused too: the documentation is silent on it and this is the stricter choice.
 */
function typedLiteral(field: string, kind: 'id' | 'string' | 'double' | 'boolean', v: string): FieldValue {
  if (/^null$/i.test(v)) return null;
  const quoted = v.startsWith("'");
  switch (kind) {
    case 'id': {
      if (!quoted) throw notOfFilterType(field, 'id', true);
      const id = unquote(v);
      if (!isWellFormedId(id)) throw invalidIdFilter(id);
      return canonicalId(id);
    }
    case 'string':
      if (!quoted) throw notOfFilterType(field, 'string', true);
      return unquote(v);
    case 'double':
      if (quoted || !/^-?\d/.test(v)) throw notOfFilterType(field, 'double');
      return Number(v);
    case 'boolean':
      if (!/^(true|false)$/i.test(v)) throw notOfFilterType(field, 'boolean');
      return v.toLowerCase() === 'true';
  }
}

/**
 * A date or dateTime field's filter value: unquoted, `2024-01-01` for a date, `2024-01-01T00:00:00Z` (or
 * with an offset) for a dateTime; `null` too. Compared as instants (stored values carry `+0000`).
 */
function temporalLiteral(field: string, kind: 'date' | 'datetime', v: string): FieldValue {
  if (/^null$/i.test(v)) return null;
  const sfType = kind === 'date' ? 'date' : 'dateTime';
  if (v.startsWith("'") || (kind === 'date' ? !/^\d{4}-\d{2}-\d{2}$/.test(v) : !v.includes('T')))
    throw notOfFilterType(field, sfType);
  if (!(kind === 'date' ? isDateValue(v) : isDateTimeValue(v)))
    throw malformedQuery(`${kind === 'date' ? 'Invalid date' : 'Invalid datetime'}: ${v}`);
  return v;
}

/** A stored or literal date/dateTime as milliseconds (a date is its UTC midnight). */
function instant(v: string): number {
  return Date.parse(v.length === 10 ? `${v}T00:00:00Z` : v.replace(/([+-]\d{2})(\d{2})$/, '$1:$2'));
}

export function parseSoql(soql: string, store: SalesforceStore): SoqlQuery {
  const t = tokenize(soql);
  let i = 0;
  const peek = () => t[i];
  const kw = (word: string) => peek()?.toUpperCase() === word;
  const expect = (word: string) => {
    if (!kw(word)) throw malformedQuery(`expecting ${word}, found '${peek() ?? 'EOF'}'`);
    i++;
  };
  expect('SELECT');
  const raw: string[] = [];
  for (;;) {
    const f = t[i++];
    if (!f || !/^[A-Za-z_]/.test(f)) throw malformedQuery(`unexpected token: '${f ?? 'EOF'}'`);
    raw.push(f);
    if (peek() !== ',') break;
    i++;
  }
  expect('FROM');
  const objectName = t[i++] ?? '';
  const type = resolveType(objectName);
  if (!type) {
    throw new SalesforceError(400, [
      {
        message: `sObject type '${objectName}' is not supported. If you are attempting to use a custom object, be sure to append the '__c' after the entity name. Please reference your WSDL or the describe call for the appropriate names.`,
        errorCode: 'INVALID_TYPE',
      },
    ]);
  }
  const field = (name: string) => {
    try {
      return store.fieldName(type, name);
    } catch {
      throw noSuchColumn(type, name);
    }
  };
  const fields = raw.map(field);
  const where: Condition[] = [];
  if (kw('WHERE')) {
    i++;
    const literal = (f: string): FieldValue => {
      const v = t[i++];
      if (v === undefined) throw malformedQuery("unexpected token: 'EOF'");
      const temporal = store.temporalKind(type, f);
      if (temporal) return temporalLiteral(f, temporal, v);
      if (!/^'|^-?\d|^(true|false|null)$/i.test(v)) throw malformedQuery(`unexpected token: '${v}'`);
      const kind = store.filterKind(type, f);
      if (kind) return typedLiteral(f, kind, v);
      if (/^\d{4}-\d{2}-\d{2}/.test(v)) throw notOfFilterType(f, 'string', true);
      if (v.startsWith("'")) return unquote(v);
      if (/^-?\d/.test(v)) return Number(v);
      if (/^(true|false)$/i.test(v)) return v.toLowerCase() === 'true';
      if (/^null$/i.test(v)) return null;
      throw malformedQuery(`unexpected token: '${v}'`);
    };
    for (;;) {
      const f = field(t[i++] ?? '');
      const op = t[i++];
      if (op?.toUpperCase() === 'IN') {
        if (t[i++] !== '(') throw malformedQuery(`unexpected token: '${t[i - 1] ?? 'EOF'}'`);
        const values: FieldValue[] = [literal(f)];
        while (peek() === ',') {
          i++;
          values.push(literal(f));
        }
        if (t[i++] !== ')') throw malformedQuery(`unexpected token: '${t[i - 1] ?? 'EOF'}'`);
        where.push({
          field: f,
          op: 'IN',
          values,
          ...(store.temporalKind(type, f) ? { temporal: true } : {}),
        });
      } else {
        if (!OPERATORS.includes(op as Operator)) throw malformedQuery(`unexpected token: '${op ?? 'EOF'}'`);
        where.push({
          field: f,
          op: op as Operator,
          value: literal(f),
          ...(store.temporalKind(type, f) ? { temporal: true } : {}),
        });
      }
      if (!kw('AND')) break;
      i++;
    }
  }
  let orderBy: SoqlQuery['orderBy'];
  if (kw('ORDER')) {
    i++;
    expect('BY');
    orderBy = { field: field(t[i++] ?? ''), descending: false };
    if (kw('ASC') || kw('DESC')) orderBy.descending = (t[i++] ?? '').toUpperCase() === 'DESC';
  }
  let limit: number | undefined;
  if (kw('LIMIT')) {
    i++;
    const n = t[i++] ?? '';
    if (!/^\d+$/.test(n)) throw malformedQuery(`unexpected token: '${n}'`);
    limit = Number(n);
  }
  if (i < t.length) throw malformedQuery(`unexpected token: '${t[i]}'`);
  if (
    type === 'ContentDocumentLink' &&
    !where.some(
      (c) =>
        (c.field === 'ContentDocumentId' || c.field === 'LinkedEntityId') && (c.op === '=' || c.op === 'IN'),
    )
  )
    throw malformedQuery(
      "Implementation restriction: ContentDocumentLink requires a filter by a single Id on ContentDocumentId or LinkedEntityId using the equals operator or multiple Id's using the IN operator.",
    );
  return { type, fields, where, ...(orderBy ? { orderBy } : {}), ...(limit !== undefined ? { limit } : {}) };
}

function equal(a: FieldValue | undefined, b: FieldValue): boolean {
  if (typeof a === 'string' && typeof b === 'string') return a.toLowerCase() === b.toLowerCase();
  return (a ?? null) === b;
}

/** `<`, `>`...: null never compares; ids (and other text) in binary order, as ORDER BY Id sorts them. */
function holds(raw: FieldValue | undefined, c: Condition): boolean {
  const a = c.temporal && typeof raw === 'string' ? instant(raw) : raw;
  if (c.temporal) {
    const at = (v: FieldValue) => (typeof v === 'string' ? instant(v) : v);
    c = c.op === 'IN' ? { ...c, values: c.values.map(at) } : { ...c, value: at(c.value) };
  }
  if (c.op === 'IN') return c.values.some((v) => equal(a, v));
  if (c.op === '=') return equal(a, c.value);
  if (c.op === '!=') return !equal(a, c.value);
  if (a === null || a === undefined || c.value === null || typeof a !== typeof c.value) return false;
  const x = a as string | number | boolean;
  const y = c.value as string | number | boolean;
  if (c.op === '<') return x < y;
  if (c.op === '<=') return x <= y;
  if (c.op === '>') return x > y;
  return x >= y;
}

export function runSoql(query: SoqlQuery, store: SalesforceStore): SObjectRecord[] {
  let rows = store.list(query.type).filter((r) => query.where.every((c) => holds(r.values.get(c.field), c)));
  const order = query.orderBy;
  if (order) {
    const key = (r: SObjectRecord) => r.values.get(order.field) ?? null;
    rows = [...rows].sort((a, b) => {
      const x = key(a);
      const y = key(b);
      // SOQL sorts nulls first in ascending order.
      const c = x === y ? 0 : x === null ? -1 : y === null ? 1 : x < y ? -1 : 1;
      return order.descending ? -c : c;
    });
  }
  return query.limit !== undefined ? rows.slice(0, query.limit) : rows;
}
