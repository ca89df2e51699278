// A buyer signal (a bridge row) becomes one activity note: the bridge, the row's title, its date, the
// key column values and a link when a column holds one. The dedupe key depends only on the buyer and
// the row, so the same signal can never become two notes on one account, whichever job writes it.

import type { NoteDraft } from '../../connectors/types.ts';
import type { BridgeSignal } from '../buyer-intel/schemas.ts';

/** Columns shown in a note at most (the rest are in the provider's app). */
const MAX_COLUMNS = 6;
const MAX_VALUE_CHARS = 400;

export function signalNoteKey(buyerId: string, rowId: string): string {
  return `bi-${buyerId}-${rowId}`;
}

function show(value: unknown): string | null {
  if (value === null || value === undefined || value === '') return null;
  if (Array.isArray(value))
    return (
      value
        .map((v) => show(v))
        .filter(Boolean)
        .join(', ') || null
    );
  if (typeof value === 'object') return JSON.stringify(value);
  const text = String(value).trim();
  return text.length > MAX_VALUE_CHARS ? `${text.slice(0, MAX_VALUE_CHARS - 1)}…` : text;
}

const looksLikeUrl = (v: string) => /^https?:\/\/\S+$/i.test(v);

export function signalToNote(accountId: string, buyerId: string, signal: BridgeSignal): NoteDraft {
  const { bridge, row } = signal;
  const formatOf = new Map(bridge.columns.map((c) => [c.name, c.fieldFormat?.baseFormat ?? null]));
  const lines: string[] = [];
  let link: string | null = null;
  let dateColumn: string | null = null;
  for (const [name, cell] of Object.entries(row.columns)) {
    const value = show(cell.value);
    if (!value) continue;
    const format = formatOf.get(name);
    if (!link && (format === 'url' || looksLikeUrl(value))) {
      link = value;
      continue;
    }
    if (!dateColumn && format === 'date') dateColumn = value;
    if (lines.length < MAX_COLUMNS) lines.push(`${name}: ${value}`);
  }
  const occurredAt = row.createdAt ?? row.updatedAt ?? new Date().toISOString();
  const header = [
    `Signal: ${bridge.name}${bridge.filterType ? ` (${bridge.filterType})` : ''}`,
    `Date: ${(dateColumn ?? occurredAt).slice(0, 10)}`,
  ];
  return {
    accountId,
    dedupeKey: signalNoteKey(buyerId, row.rowId),
    title: row.name ?? bridge.name,
    body: [...header, ...lines, ...(link ? [`Link: ${link}`] : [])].join('\n'),
    occurredAt,
  };
}
