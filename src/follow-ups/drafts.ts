// A signal's note becomes a follow-up task when its type is configured so and someone can own it: the
// account's owner, or the CRM's configured fallback owner; otherwise it stays a note. The task keeps
// the note's dedupe key, so a signal is one activity on an account whichever form it took.
import type { CrmKind, NoteDraft, TaskPriority } from '../../connectors/types.ts';
import type { BridgeSignal } from '../buyer-intel/schemas.ts';
import type { FollowUpSettings } from './settings.ts';

const DAY_MS = 86_400_000;
const ISO_DATE = /^(\d{4}-\d\d-\d\d)/;

/** The provider row a follow-up stands for: where its status goes when the task is done. */
export interface SignalRef {
  bridgeId: string;
  rowId: string;
}

export const signalRefOf = (signal: BridgeSignal): SignalRef => ({
  bridgeId: signal.bridge.bridgeId,
  rowId: signal.row.rowId,
});

/** Whether a signal of this type becomes a task (its account's owner is needed for it). */
export const wantsTask = (settings: FollowUpSettings, signal: BridgeSignal): boolean =>
  settings.taskTypes.includes(signal.bridge.filterType ?? '');

/** The row's own due date (an RFP's "Due Date" column), when it is a date not yet past. */
function dueDateOf(signal: BridgeSignal, today: string): string | undefined {
  for (const [name, cell] of Object.entries(signal.row.columns)) {
    if (!/\bdue\b/i.test(name) || typeof cell.value !== 'string') continue;
    const date = ISO_DATE.exec(cell.value)?.[1];
    if (date && date >= today) return date;
  }
  return undefined;
}

/**
 * The row's hotness (0–100) when a column carries it; the feeds sort by it but the row has no field of
 * its own for it, so a bridge that shows it does so in a column.
 */
function hotnessOf(signal: BridgeSignal): number | undefined {
  for (const [name, cell] of Object.entries(signal.row.columns)) {
    if (!/hotness/i.test(name)) continue;
    const value = typeof cell.value === 'number' ? cell.value : Number(cell.value);
    if (Number.isFinite(value)) return value;
  }
  return undefined;
}

function priorityOf(settings: FollowUpSettings, signal: BridgeSignal): TaskPriority {
  const hotness = hotnessOf(signal);
  if (hotness !== undefined) return hotness >= 70 ? 'high' : hotness >= 40 ? 'medium' : 'low';
  return settings.priority[signal.bridge.filterType ?? ''] ?? 'medium';
}

/** The note, or the task it becomes: assigned, due and prioritised from the signal. */
export function followUpOf(
  note: NoteDraft,
  signal: BridgeSignal,
  account: { crm: CrmKind; ownerId?: string | undefined },
  settings: FollowUpSettings,
  now: Date,
): NoteDraft {
  if (!wantsTask(settings, signal)) return note;
  const ownerId = account.ownerId ?? settings.fallbackOwners[account.crm];
  if (!ownerId) return note;
  const today = now.toISOString().slice(0, 10);
  const dueDate =
    dueDateOf(signal, today) ??
    new Date(now.getTime() + settings.dueDays * DAY_MS).toISOString().slice(0, 10);
  return { ...note, task: { ownerId, dueDate, priority: priorityOf(settings, signal) } };
}
