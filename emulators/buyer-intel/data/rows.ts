// Signal rows of the sandbox's bridges: ~20,000 at the default size, attached to buyers weighted
// towards the larger ones, dated so that each relative period of the feeds (last day ... last two
// years) selects a different subset, mostly processed and new. Every hard-case buyer gets three
// recent, new rows on bridges shared with everyone.
import type { ProcessingStatus, RowStatus } from '../../../src/buyer-intel/enums.ts';
import type { BuyerField } from '../../../src/buyer-intel/fields.ts';
import { BRIDGE_SPECS, type BridgeKey, type BridgeSpec } from './bridges.ts';
import type { BuyerRecord } from './buyers.ts';
import { createRng, type Rng } from './rng.ts';
import { SIGNALS } from './signals.ts';
import type { SandboxBridge, SandboxCell, SandboxRow } from './types.ts';

export interface RowInput {
  seed: number;
  now: Date;
  records: readonly BuyerRecord[];
  bridges: readonly SandboxBridge[];
  /** Multiplies each bridge's row count (buyer count / default buyer count). */
  rowScale: number;
  attributesOf: (buyerId: string) => Readonly<Record<BuyerField, unknown>> | undefined;
}

const DAY = 86_400_000;

// Age of a signal in days: [from, to, weight]. Each relative period boundary falls inside a bucket.
const AGE_BUCKETS: readonly [number, number, number][] = [
  [0, 1, 4],
  [1, 7, 9],
  [7, 30, 14],
  [30, 60, 11],
  [60, 92, 10],
  [92, 183, 14],
  [183, 274, 11],
  [274, 365, 10],
  [365, 730, 15],
  [730, 800, 2],
];
const AGE_WEIGHTS = AGE_BUCKETS.map((b) => b[2]);

/** Picks buyers with probability proportional to the square root of their size. */
function sampler(records: readonly BuyerRecord[]): (rng: Rng) => BuyerRecord {
  const cumulative: number[] = [];
  let total = 0;
  for (const r of records) {
    total += Math.sqrt(r.size);
    cumulative.push(total);
  }
  return (rng) => {
    const x = rng.next() * total;
    let lo = 0;
    let hi = cumulative.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if ((cumulative[mid] ?? 0) <= x) lo = mid + 1;
      else hi = mid;
    }
    return records[lo] as BuyerRecord;
  };
}

function userStatus(rng: Rng, spec: BridgeSpec, ageDays: number): RowStatus {
  const fresh = ageDays < 45;
  if (spec.filterType === 'Conference') {
    return rng.weighted<RowStatus>(
      ['New', 'Actioned', 'Saved', 'NotInterested', 'Attending', 'Sponsoring'],
      [fresh ? 62 : 40, 8, 10, 8, 8, 4],
    );
  }
  return rng.weighted<RowStatus>(['New', 'Actioned', 'Saved', 'NotInterested'], [fresh ? 74 : 50, 10, 8, 8]);
}

interface Draft {
  record: BuyerRecord;
  signal: Date;
  status?: RowStatus;
}

function makeRow(
  input: RowInput,
  rng: Rng,
  spec: BridgeSpec,
  bridge: SandboxBridge,
  draft: Draft,
  cellState: ProcessingStatus,
  otherBuyer: () => string,
): SandboxRow {
  const { now, seed } = input;
  const { record, signal } = draft;
  const content = SIGNALS[spec.key]({
    seed,
    rng,
    record,
    signal,
    now,
    attributes: () => input.attributesOf(record.buyer.id),
    otherBuyer,
  });
  const nowMs = now.getTime();
  const ageDays = (nowMs - signal.getTime()) / DAY;
  const created = Math.min(nowMs, signal.getTime() + rng.int(5, 30 * 60) * 60_000);
  const status = draft.status ?? userStatus(rng, spec, ageDays);

  // Data columns are filled when the row is added, AI columns a few minutes later.
  const dataProcessed = Math.min(nowMs, created + rng.int(5, 90) * 1000);
  const aiProcessed = Math.min(nowMs, dataProcessed + rng.int(30, 900) * 1000);
  const dataAt = new Date(dataProcessed).toISOString();
  const aiAt = new Date(aiProcessed).toISOString();
  const lastProcessed = aiProcessed;
  const columns: Record<string, SandboxCell> = {};
  const stalled =
    cellState === 'Processed'
      ? undefined
      : (bridge.columns.find((c) => c.type === 'AiAnalysis') ?? bridge.columns[bridge.columns.length - 1]);
  for (const column of bridge.columns) {
    if (column === stalled) {
      columns[column.name] = { value: null, status: cellState, processedAt: null };
      continue;
    }
    const value = content.cells[column.name];
    columns[column.name] = {
      value: value === undefined ? null : value,
      status: 'Processed',
      processedAt: column.type === 'DataAttribute' || column.type === 'Input' ? dataAt : aiAt,
    };
  }
  const updated =
    status === 'New'
      ? lastProcessed
      : Math.min(
          nowMs,
          lastProcessed +
            rng.int(1, Math.max(1, Math.min(20 * 24, Math.floor((nowMs - lastProcessed) / 3_600_000)))) *
              3_600_000,
        );
  const hotness = Math.round(
    Math.min(
      100,
      Math.max(
        0,
        18 +
          55 * Math.exp(-ageDays / 75) +
          rng.next() * 27 +
          (spec.filterType === 'RFP' ? 5 : 0) -
          (status === 'NotInterested' ? 12 : 0),
      ),
    ),
  );
  const entryId = content.entityId ?? rng.uuid();
  const createdIso = new Date(created).toISOString();
  return {
    rowId: rng.uuid(),
    bridgeId: bridge.bridgeId,
    name: content.rowName,
    createdAt: createdIso,
    updatedAt: new Date(Math.max(updated, created)).toISOString(),
    status: cellState,
    userStatus: status,
    buyerId: record.buyer.id,
    organizerId: content.organizerId ?? null,
    entity: { type: bridge.filterType, id: entryId },
    signalDate: signal.toISOString(),
    hotness,
    entryId,
    entryName: content.entryName,
    triggeredAt: createdIso,
    opportunityId: content.opportunity ? rng.uuid() : null,
    entryUrl: content.entryUrl,
    columns,
  };
}

function signalDate(rng: Rng, now: Date): Date {
  const [from, to] = rng.weighted(AGE_BUCKETS, AGE_WEIGHTS);
  const age = (from + rng.next() * (to - from)) * DAY;
  return new Date(Math.floor((now.getTime() - age) / 1000) * 1000);
}

const HARD_CASE_BRIDGES: readonly BridgeKey[] = [
  'meeting-cyber',
  'meeting-edtech',
  'rfp-public-safety',
  'rfp-higher-ed',
  'rfp-cyber',
  'purchase-it',
  'signals-smart-city',
  'conference',
];
const HARD_CASE_AGES: readonly [number, number][] = [
  [0.1, 3],
  [4, 12],
  [14, 28],
];

export function buildRows(input: RowInput): SandboxRow[] {
  const { seed, now, records, bridges } = input;
  const names = records.map((r) => r.buyer.name);
  const otherRng = createRng(`${seed}|other-buyers`);
  const otherBuyer = () => otherRng.pick(names);
  const rows: SandboxRow[] = [];

  BRIDGE_SPECS.forEach((spec, i) => {
    const bridge = bridges[i];
    if (!bridge) return;
    const rng = createRng(`${seed}|rows|${spec.key}`);
    const eligible = records.filter(spec.eligible);
    if (!eligible.length) return;
    const count = Math.max(12, Math.round(spec.rows * input.rowScale));
    const drafts: Draft[] = [];
    if (spec.filterType === 'Buyer') {
      const biggest = [...eligible].sort(
        (a, b) => b.size - a.size || a.buyer.name.localeCompare(b.buyer.name),
      );
      for (const record of biggest.slice(0, count)) drafts.push({ record, signal: signalDate(rng, now) });
    } else {
      const pick = sampler(eligible);
      for (let n = 0; n < count; n++) drafts.push({ record: pick(rng), signal: signalDate(rng, now) });
    }
    // A few rows still being processed (and fewer failed), at least three per bridge.
    const unfinished = new Map<number, ProcessingStatus>();
    const stalled = Math.max(3, Math.round(drafts.length * 0.012));
    for (let n = 0; n < stalled; n++) unfinished.set(rng.int(0, drafts.length - 1), 'Processing');
    for (let n = 0; n < Math.round(drafts.length * 0.004); n++)
      unfinished.set(rng.int(0, drafts.length - 1), 'Failed');
    drafts.forEach((draft, n) => {
      rows.push(makeRow(input, rng, spec, bridge, draft, unfinished.get(n) ?? 'Processed', otherBuyer));
    });
  });

  // The hard cases: three recent, new, processed rows each, on bridges everyone can see.
  const rng = createRng(`${seed}|rows|hard-cases`);
  const pairs = BRIDGE_SPECS.flatMap((spec, i) => {
    const bridge = bridges[i];
    return bridge && spec.sharedWithAll ? [{ spec, bridge }] : [];
  });
  const preferred = HARD_CASE_BRIDGES.flatMap((key) => pairs.filter((p) => p.spec.key === key));
  for (const record of records) {
    if (!record.hard) continue;
    const targets = preferred.filter((p) => p.spec.eligible(record)).slice(0, HARD_CASE_AGES.length);
    targets.forEach(({ spec, bridge }, n) => {
      const [from, to] = HARD_CASE_AGES[n] ?? [1, 20];
      const age = (from + rng.next() * (to - from)) * DAY;
      const signal = new Date(Math.floor((now.getTime() - age) / 1000) * 1000);
      rows.push(
        makeRow(input, rng, spec, bridge, { record, signal, status: 'New' }, 'Processed', otherBuyer),
      );
    });
  }
  return rows;
}
