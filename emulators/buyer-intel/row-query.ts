// Filters, sorts and free-text search of bridge rows, as the reference's BridgeFiltersTerm, RowSort and
// ListBridgeRowsRequest describe them — including the documented pitfalls: an array value with a scalar
// operation (or a bare value with an array operation) silently matches nothing, and a column-status
// operation on an entry field degrades to Any against that field.
import {
  filterOperationCategory,
  ROW_FILTER_ENTRY_FIELDS,
  type ROW_SORT_ENTRY_FIELDS,
} from '../../src/buyer-intel/enums.ts';
import type { SandboxBridge, SandboxRow } from './data/dataset.ts';
import { badRequest } from './http-error.ts';

export interface FilterTerm {
  field: string;
  operation: string;
  value?: unknown;
}
export interface SortTerm {
  column: string;
  direction?: string | undefined;
}
export interface RowQuery {
  filters?: { terms?: FilterTerm[] | null } | null;
  sorts?: SortTerm[] | null;
  query?: string | null;
}

type Getter = (row: SandboxRow) => { value: unknown; status: string | null };

const entryGetters: Record<(typeof ROW_FILTER_ENTRY_FIELDS)[number], Getter> = {
  status: (r) => ({ value: r.status, status: null }),
  buyerId: (r) => ({ value: r.buyerId, status: null }),
  opportunityId: (r) => ({ value: r.opportunityId, status: null }),
  entryId: (r) => ({ value: r.entryId, status: null }),
  entryName: (r) => ({ value: r.entryName, status: null }),
  triggeredAt: (r) => ({ value: r.triggeredAt, status: null }),
  'op:added_date': (r) => ({ value: r.createdAt, status: null }),
  'bridge:entry_url': (r) => ({ value: r.entryUrl, status: null }),
  adminActionCrmMatch: () => ({ value: null, status: null }),
};

function getterFor(bridge: SandboxBridge, field: string): { get: Getter; isColumn: boolean } {
  const column = bridge.columns.find((c) => c.columnId === field.toLowerCase());
  if (column) {
    return {
      isColumn: true,
      get: (r) => {
        const cell = r.columns[column.name];
        return { value: cell?.value ?? null, status: cell?.status ?? null };
      },
    };
  }
  const entry = entryGetters[field as keyof typeof entryGetters];
  if (entry) return { get: entry, isColumn: false };
  throw badRequest(
    'request.filter.field_unmapped',
    `filter field "${field}" is neither a column id of this bridge nor one of ${ROW_FILTER_ENTRY_FIELDS.join(', ')}`,
  );
}

const isPrimitive = (v: unknown): v is string | number | boolean =>
  typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean';
const norm = (v: unknown) => (typeof v === 'string' ? v.toLowerCase() : v);
const isEmpty = (v: unknown) =>
  v === null || v === undefined || v === '' || (Array.isArray(v) && v.length === 0);
const asList = (v: unknown): unknown[] => (Array.isArray(v) ? v : isEmpty(v) ? [] : [v]);
const statusLabel = (s: unknown) => String(s).replace(/\s+/g, '').toLowerCase();

function compare(a: unknown, b: unknown): number | undefined {
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  if (typeof a === 'string' && typeof b === 'string') return a.localeCompare(b);
  if (typeof a === 'number' && typeof b === 'string' && b.trim() !== '' && !Number.isNaN(Number(b)))
    return a - Number(b);
  return undefined;
}

function matches(
  term: FilterTerm,
  cell: { value: unknown; status: string | null },
  isColumn: boolean,
): boolean {
  let operation = term.operation;
  const category = filterOperationCategory(operation);
  const v = term.value;
  if (category === 'columnStatus' && !isColumn) operation = 'Any';
  if (
    (category === 'scalar' && !isPrimitive(v)) ||
    ((category === 'array' || category === 'columnStatus') && !Array.isArray(v))
  ) {
    return false;
  }
  const cellValue = cell.value;
  const list = Array.isArray(v) ? v.map(norm) : [];
  switch (operation) {
    case 'Equals':
      return !Array.isArray(cellValue) && norm(cellValue) === norm(v);
    case 'DoesNotEqual':
      return norm(cellValue) !== norm(v);
    case 'Contains':
      return Array.isArray(cellValue)
        ? cellValue.some((x) => norm(x) === norm(v))
        : typeof cellValue === 'string' && cellValue.toLowerCase().includes(String(v).toLowerCase());
    case 'DoesNotContain':
      return !matches({ ...term, operation: 'Contains' }, cell, isColumn);
    case 'GreaterThan':
      return (compare(cellValue, v) ?? 0) > 0;
    case 'LessThan':
      return (compare(cellValue, v) ?? 0) < 0;
    case 'IsEmpty':
      return isEmpty(cellValue);
    case 'IsNotEmpty':
      return !isEmpty(cellValue);
    case 'Any':
      return asList(cellValue).some((x) => list.includes(norm(x)));
    case 'None':
      return !asList(cellValue).some((x) => list.includes(norm(x)));
    case 'ContainsAny':
      return asList(cellValue).some((x) => list.includes(norm(x)));
    case 'ContainsAll': {
      const have = asList(cellValue).map(norm);
      return list.every((x) => have.includes(x));
    }
    case 'ContainedBy':
      return asList(cellValue).every((x) => list.includes(norm(x)));
    case 'NotContainedBy':
      return !asList(cellValue).every((x) => list.includes(norm(x)));
    case 'HasCellStatus':
    case 'HasLookupStatus':
    case 'HasLastSyncStatus':
    case 'HasSyncStatusHistory':
      return cell.status !== null && (v as unknown[]).map(statusLabel).includes(statusLabel(cell.status));
    default:
      return false;
  }
}

function sortKey(bridge: SandboxBridge, column: string): (row: SandboxRow) => unknown {
  const col = bridge.columns.find((c) => c.columnId === column.toLowerCase());
  if (col) return (r) => r.columns[col.name]?.value ?? null;
  switch (column as (typeof ROW_SORT_ENTRY_FIELDS)[number]) {
    case 'rowUpdatedAt':
      return (r) => r.updatedAt;
    case 'entryId':
      return (r) => r.entryId;
    case 'entryName':
      return (r) => r.entryName;
    case 'triggeredAt':
      return (r) => r.triggeredAt;
    default:
      throw badRequest(
        'request.sort.column_unmapped',
        `sort column "${column}" is not mapped on this bridge`,
      );
  }
}

function cellText(value: unknown): string {
  if (value === null || value === undefined) return '';
  return typeof value === 'object' ? JSON.stringify(value) : String(value);
}

export function applyRowQuery(
  bridge: SandboxBridge,
  rows: readonly SandboxRow[],
  body: RowQuery,
): SandboxRow[] {
  const terms = body.filters?.terms ?? [];
  if (!Array.isArray(terms)) throw badRequest('request.body.invalid', 'filters.terms must be an array');
  const predicates = terms.map((term, i) => {
    if (!term || typeof term.field !== 'string' || typeof term.operation !== 'string') {
      throw badRequest('request.body.invalid', `filters.terms[${i}] needs a string field and operation`);
    }
    if (!filterOperationCategory(term.operation)) {
      throw badRequest(
        'request.filter.operation_unknown',
        `filters.terms[${i}].operation "${term.operation}" is not an operation`,
      );
    }
    const { get, isColumn } = getterFor(bridge, term.field);
    return (r: SandboxRow) => matches(term, get(r), isColumn);
  });

  const sorts = (body.sorts ?? []).map((s, i) => {
    if (!s || typeof s.column !== 'string')
      throw badRequest('request.body.invalid', `sorts[${i}].column must be a string`);
    // RowSort requires `direction` (the reference OpenAPI): there is no default order to fall back on.
    const direction = s.direction;
    if (direction !== 'ASC' && direction !== 'DESC') {
      throw badRequest(
        'request.body.invalid',
        direction === undefined
          ? `sorts[${i}].direction is required (ASC or DESC)`
          : `sorts[${i}].direction must be ASC or DESC`,
      );
    }
    return { key: sortKey(bridge, s.column), sign: direction === 'DESC' ? -1 : 1 };
  });

  const text = body.query?.trim().toLowerCase();
  let result = rows.filter(
    (r) =>
      predicates.every((p) => p(r)) &&
      (!text ||
        r.name.toLowerCase().includes(text) ||
        Object.values(r.columns).some((c) => cellText(c.value).toLowerCase().includes(text))),
  );
  if (sorts.length) {
    result = result.sort((a, b) => {
      for (const s of sorts) {
        const va = s.key(a);
        const vb = s.key(b);
        // Empty values last, whatever the direction.
        if (isEmpty(va) || isEmpty(vb)) {
          if (isEmpty(va) && isEmpty(vb)) continue;
          return isEmpty(va) ? 1 : -1;
        }
        const c = compare(va, vb) ?? cellText(va).localeCompare(cellText(vb));
        if (c !== 0) return c * s.sign;
      }
      return a.rowId.localeCompare(b.rowId);
    });
  }
  return result;
}
