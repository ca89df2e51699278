// The seeded data set of the buyer-intelligence sandbox: ~6,000 buyers built from real US places, a
// dozen bridges and ~20,000 signal rows. Same seed and same `now` give the same data set; the 179
// attributes of a buyer are computed on first request and cached.
import type { BuyerField } from '../../../src/buyer-intel/fields.ts';
import { computeAttributes } from './attributes.ts';
import { buildBridges } from './bridges.ts';
import { type BuyerRecord, buildBuyers } from './buyers.ts';
import { pushInto } from './collections.ts';
import { buildRows } from './rows.ts';
import type { SandboxBridge, SandboxDataset, SandboxRow } from './types.ts';

export type {
  SandboxBridge,
  SandboxBuyer,
  SandboxCell,
  SandboxColumn,
  SandboxDataset,
  SandboxRow,
} from './types.ts';

export interface DatasetOptions {
  /** Default 42. */
  seed?: number;
  /** Default 6000. Honoured exactly from about 500 up; below that the fixed hard cases make it ~50-110. */
  buyerCount?: number;
  /** Default `new Date()`; every date of the data set is relative to it. */
  now?: Date;
}

export const DEFAULT_SEED = 42;
export const DEFAULT_BUYER_COUNT = 6000;

function groupBy(
  rows: readonly SandboxRow[],
  key: (row: SandboxRow) => string | null,
): Map<string, SandboxRow[]> {
  const map = new Map<string, SandboxRow[]>();
  for (const row of rows) {
    const k = key(row);
    if (k !== null) pushInto(map, k, row);
  }
  return map;
}

export function buildDataset(options: DatasetOptions = {}): SandboxDataset {
  const seed = options.seed ?? DEFAULT_SEED;
  const buyerCount = Math.max(1, Math.floor(options.buyerCount ?? DEFAULT_BUYER_COUNT));
  const now = new Date(options.now ?? new Date());
  if (Number.isNaN(now.getTime())) throw new RangeError('options.now is not a valid date');

  const records = buildBuyers(seed, buyerCount);
  const recordsById = new Map<string, BuyerRecord>(records.map((r) => [r.buyer.id, r]));
  const buyers = records.map((r) => r.buyer);
  const buyersById = new Map(buyers.map((b) => [b.id, b]));

  const attributeCache = new Map<string, Readonly<Record<BuyerField, unknown>>>();
  const attributesOf = (buyerId: string): Readonly<Record<BuyerField, unknown>> | undefined => {
    const cached = attributeCache.get(buyerId);
    if (cached) return cached;
    const record = recordsById.get(buyerId);
    if (!record) return undefined;
    const attributes = Object.freeze(
      computeAttributes(record, { seed, now, records: recordsById, attributesOf }),
    );
    attributeCache.set(buyerId, attributes);
    return attributes;
  };

  const bridges = buildBridges(seed, now);
  const bridgesById = new Map(bridges.map((b) => [b.bridgeId, b]));
  const rows = buildRows({
    seed,
    now,
    records,
    bridges,
    rowScale: buyerCount / DEFAULT_BUYER_COUNT,
    attributesOf,
  });
  return { seed, now, buyers, buyersById, bridges, bridgesById, attributesOf, ...indexedRows(rows, bridges) };
}

function indexedRows(rows: SandboxRow[], bridges: readonly SandboxBridge[]) {
  const rowsByBridge = groupBy(rows, (r) => r.bridgeId);
  for (const b of bridges) if (!rowsByBridge.has(b.bridgeId)) rowsByBridge.set(b.bridgeId, []);
  return {
    rows,
    rowsByBridge,
    rowsByBuyer: groupBy(rows, (r) => r.buyerId),
    rowsById: new Map(rows.map((r) => [r.rowId, r])),
  };
}

/**
 * The data set with rows of its own: a server changes its rows (a row's status set through the API, a
 * row added or touched by the control plane), so servers that share one built data set — building it
 * is the slow part — each get a copy of the rows, and share the buyers and bridges no route changes.
 */
export function forkDataset(dataset: SandboxDataset): SandboxDataset {
  const rows = dataset.rows.map((r) => ({
    ...r,
    columns: Object.fromEntries(Object.entries(r.columns).map(([name, cell]) => [name, { ...cell }])),
  }));
  return { ...dataset, ...indexedRows(rows, dataset.bridges) };
}
