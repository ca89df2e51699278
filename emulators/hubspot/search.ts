// The CRM search endpoints (search guide): filterGroups are ORed, filters within a group ANDed; at most 5
// groups, 10 filters per group and 25 filters in all (changelog, August 2024); one sort; `query` searches
// the object's default searchable properties; at most 200 results per page; `after` is an offset and no
// query can page past 10,000 results (400). String comparisons are case-insensitive.
import type { PropertyDefinition } from './default-properties.ts';
import { validationError } from './errors.ts';
import { OBJECT_TYPES, type ObjectType } from './object-types.ts';
import { toEpochMs } from './property-values.ts';
import { isRecord, stringList } from './request.ts';
import { type CrmRecord, compareIds, type HubSpotStore } from './store.ts';

export const SEARCH_RESULT_CAP = 10_000;
const OPERATORS = [
  'EQ',
  'NEQ',
  'LT',
  'LTE',
  'GT',
  'GTE',
  'BETWEEN',
  'IN',
  'NOT_IN',
  'HAS_PROPERTY',
  'NOT_HAS_PROPERTY',
  'CONTAINS_TOKEN',
  'NOT_CONTAINS_TOKEN',
] as const;
type Operator = (typeof OPERATORS)[number];

interface Filter {
  propertyName: string;
  operator: Operator;
  value?: string;
  highValue?: string;
  values?: string[];
}

export interface ParsedSearch {
  groups: Filter[][];
  sort?: { propertyName: string; descending: boolean };
  query?: string;
  properties?: string[];
  limit: number;
  offset: number;
}

const str = (v: unknown) => (v === undefined || v === null ? undefined : String(v));

export function parseSearch(
  store: HubSpotStore,
  type: ObjectType,
  body: Record<string, unknown>,
): ParsedSearch {
  const rawGroups = body.filterGroups ?? [];
  if (!Array.isArray(rawGroups)) throw validationError('Invalid input JSON: filterGroups must be an array');
  if (rawGroups.length > 5) {
    throw validationError(`Too many filter groups: ${rawGroups.length}. The maximum is 5.`);
  }
  const groups = rawGroups.map((g, i) => {
    if (!isRecord(g) || !Array.isArray(g.filters)) {
      throw validationError(`Invalid input JSON: filterGroups[${i}].filters must be an array`);
    }
    if (g.filters.length > 10) {
      throw validationError(`Too many filters in filter group ${i}: ${g.filters.length}. The maximum is 10.`);
    }
    return g.filters.map((f) => parseFilter(store, type, f));
  });
  const total = groups.reduce((n, g) => n + g.length, 0);
  if (total > 25)
    throw validationError(`Too many filters: ${total}. The maximum is 25 across all filter groups.`);

  const limit = body.limit === undefined || body.limit === null ? 10 : Number(body.limit);
  if (!Number.isInteger(limit) || limit < 1 || limit > 200) {
    throw validationError(`limit must be between 1 and 200, got ${String(body.limit)}`);
  }
  const after = str(body.after);
  if (after !== undefined && after !== '' && !/^\d+$/.test(after)) {
    throw validationError(`after must be a number of results to skip, got ${after}`);
  }
  const offset = after ? Number(after) : 0;
  if (offset >= SEARCH_RESULT_CAP) {
    throw validationError(
      `The search API cannot return more than ${SEARCH_RESULT_CAP} results for a query; after=${offset} is past that limit.`,
    );
  }

  const sorts = body.sorts ?? [];
  if (!Array.isArray(sorts)) throw validationError('Invalid input JSON: sorts must be an array');
  const first: unknown = sorts[0];
  let sort: ParsedSearch['sort'];
  if (typeof first === 'string' && first) {
    sort = { propertyName: first.replace(/^-/, ''), descending: first.startsWith('-') };
  } else if (isRecord(first) && typeof first.propertyName === 'string') {
    sort = { propertyName: first.propertyName, descending: first.direction === 'DESCENDING' };
  }
  const query = str(body.query);
  const properties = stringList(body.properties, 'properties');
  return {
    groups,
    ...(sort ? { sort } : {}),
    ...(query ? { query } : {}),
    ...(properties ? { properties } : {}),
    limit,
    offset,
  };
}

function parseFilter(store: HubSpotStore, type: ObjectType, raw: unknown): Filter {
  if (!isRecord(raw) || typeof raw.propertyName !== 'string') {
    throw validationError('Invalid input JSON: every filter needs a propertyName and an operator');
  }
  const operator = raw.operator as Operator;
  if (!OPERATORS.includes(operator)) {
    throw validationError(
      `Unknown filter operator ${String(raw.operator)}; allowed: ${OPERATORS.join(', ')}`,
    );
  }
  if (!store.property(type, raw.propertyName)) {
    throw validationError(`Property "${raw.propertyName}" does not exist`);
  }
  const values = Array.isArray(raw.values) ? raw.values.map(String) : undefined;
  if ((operator === 'IN' || operator === 'NOT_IN') && !values) {
    throw validationError(`Operator ${operator} requires values`);
  }
  if (operator === 'BETWEEN' && (raw.value === undefined || raw.highValue === undefined)) {
    throw validationError('Operator BETWEEN requires value and highValue');
  }
  const needsValue = !['IN', 'NOT_IN', 'HAS_PROPERTY', 'NOT_HAS_PROPERTY'].includes(operator);
  if (needsValue && (raw.value === undefined || raw.value === null)) {
    throw validationError(`Operator ${operator} requires a value`);
  }
  const value = str(raw.value);
  const highValue = str(raw.highValue);
  return {
    propertyName: raw.propertyName,
    operator,
    ...(value === undefined ? {} : { value }),
    ...(highValue === undefined ? {} : { highValue }),
    ...(values ? { values } : {}),
  };
}

/** All matching records in result order (before paging). */
export function runSearch(store: HubSpotStore, type: ObjectType, search: ParsedSearch): CrmRecord[] {
  const matches = store.all(type).filter((record) => {
    // Search sees live records only; archived ones are in the recycle bin.
    if (record.archived) return false;
    if (search.groups.length && !search.groups.some((g) => g.every((f) => matchFilter(store, record, f)))) {
      return false;
    }
    return search.query ? matchQuery(record, type, search.query) : true;
  });
  const sort = search.sort;
  if (sort) {
    const def = store.property(type, sort.propertyName);
    matches.sort((a, b) => {
      const va = a.values.get(sort.propertyName);
      const vb = b.values.get(sort.propertyName);
      // Records without the property sort last either way.
      if (va === undefined || vb === undefined)
        return (va === undefined ? 1 : 0) - (vb === undefined ? 1 : 0);
      const c = compareValues(def, va, vb);
      return (sort.descending ? -c : c) || compareIds(a.id, b.id);
    });
  }
  return matches;
}

function matchQuery(record: CrmRecord, type: ObjectType, query: string): boolean {
  const tokens = query.toLowerCase().split(/\s+/).filter(Boolean);
  const haystack = OBJECT_TYPES[type].searchableProperties.map((p) =>
    (record.values.get(p) ?? '').toLowerCase(),
  );
  return tokens.every((t) => haystack.some((h) => h.includes(t)));
}

function matchFilter(store: HubSpotStore, record: CrmRecord, filter: Filter): boolean {
  const def = store.property(record.objectType, filter.propertyName);
  const actual = record.values.get(filter.propertyName);
  const cmp = (expected: string) => (actual === undefined ? undefined : compareValues(def, actual, expected));
  switch (filter.operator) {
    case 'HAS_PROPERTY':
      return actual !== undefined;
    case 'NOT_HAS_PROPERTY':
      return actual === undefined;
    case 'EQ':
      return cmp(filter.value ?? '') === 0;
    case 'NEQ':
      return cmp(filter.value ?? '') !== 0;
    case 'LT':
      return (cmp(filter.value ?? '') ?? 0) < 0 && actual !== undefined;
    case 'LTE':
      return (cmp(filter.value ?? '') ?? 1) <= 0;
    case 'GT':
      return (cmp(filter.value ?? '') ?? 0) > 0;
    case 'GTE':
      return (cmp(filter.value ?? '') ?? -1) >= 0;
    case 'BETWEEN':
      return (cmp(filter.value ?? '') ?? -1) >= 0 && (cmp(filter.highValue ?? '') ?? 1) <= 0;
    case 'IN':
      return (filter.values ?? []).some((v) => cmp(v) === 0);
    case 'NOT_IN':
      return !(filter.values ?? []).some((v) => cmp(v) === 0);
    case 'CONTAINS_TOKEN':
      return actual !== undefined && containsToken(actual, filter.value ?? '');
    case 'NOT_CONTAINS_TOKEN':
      return actual === undefined || !containsToken(actual, filter.value ?? '');
  }
}

function compareValues(def: PropertyDefinition | undefined, a: string, b: string): number {
  if (def?.type === 'number') return Number(a) - Number(b);
  if (def?.type === 'datetime' || def?.type === 'date') {
    const ma =
      def.type === 'date' && /^\d{4}-\d{2}-\d{2}$/.test(a) ? Date.parse(`${a}T00:00:00Z`) : toEpochMs(a);
    const mb =
      def.type === 'date' && /^\d{4}-\d{2}-\d{2}$/.test(b) ? Date.parse(`${b}T00:00:00Z`) : toEpochMs(b);
    if (ma !== undefined && mb !== undefined) return ma - mb;
  }
  const la = a.toLowerCase();
  const lb = b.toLowerCase();
  return la < lb ? -1 : la > lb ? 1 : 0;
}

/** Token match; `*` is a wildcard (e.g. "*@hubspot.com" against an email). */
function containsToken(actual: string, pattern: string): boolean {
  const p = pattern.toLowerCase();
  const value = actual.toLowerCase();
  const tokens = value.split(/[^\p{L}\p{N}]+/u).filter(Boolean);
  if (!p.includes('*')) return value === p || tokens.includes(p);
  const re = new RegExp(`^${p.split('*').map(escapeRegExp).join('.*')}$`);
  return re.test(value) || tokens.some((t) => re.test(t));
}

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
