// "Undo last change" without JSX: where the undo panel stands, the flows that ask the service (the dry
// run first, then the undo run followed to its end), and the plan and the result in words. The plan
// reads as the company's history will read once it is undone ("Status: Enriched → —", "Population: kept
// your value (1000001)", "Note removed: …"), so a person sees beforehand what the history shows after.
import { BuyerIntelApiError } from './api-error.ts';
import type { AccountMatch, BuyerIntelApi, HistoryField, PollOptions } from './buyer-intel-api.ts';
import { changeLines, errorMessage } from './buyer-intel-format.ts';
import type { UndoPlan, UndoRun } from './undo-api.ts';

/** The undo panel: asking for the plan, the plan shown, undoing, done, or the service's refusal. */
export type UndoPanel =
  | { stage: 'checking' }
  | { stage: 'plan'; plan: UndoPlan }
  | { stage: 'undoing'; plan: UndoPlan; runId: string | null }
  | { stage: 'done'; run: UndoRun }
  /** `plan`: the plan shown when the undo itself was refused (so Undo may be asked again). */
  | { stage: 'refused'; problem: string; plan: UndoPlan | null };

export type UndoEvent =
  | { type: 'undo_opened' }
  | { type: 'undo_planned'; plan: UndoPlan }
  | { type: 'undo_confirmed' }
  | { type: 'undo_queued'; runId: string }
  | { type: 'undo_finished'; run: UndoRun; account: AccountMatch | null }
  | { type: 'undo_refused'; message: string }
  | { type: 'undo_closed' };

/** The plan the panel holds, if any (to confirm, or to confirm again after a refusal). */
export function planOf(panel: UndoPanel | null): UndoPlan | null {
  return panel && (panel.stage === 'plan' || panel.stage === 'undoing' || panel.stage === 'refused')
    ? panel.plan
    : null;
}

// ---- Flows -----------------------------------------------------------------------------------

/** Asks for the plan (a dry run: nothing is written). */
export async function runUndoPreview(
  api: BuyerIntelApi,
  accountId: string,
  dispatch: (event: UndoEvent) => void,
): Promise<void> {
  try {
    dispatch({ type: 'undo_planned', plan: await api.previewUndo(accountId) });
  } catch (err) {
    dispatch({ type: 'undo_refused', message: errorMessage(err) });
  }
}

/** Polls GET /api/runs/:id until the undo run has finished. Throws on timeout. */
export async function pollRun(api: BuyerIntelApi, runId: string, opts: PollOptions = {}): Promise<UndoRun> {
  const sleep = opts.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  for (let i = 0; i < (opts.maxPolls ?? 40); i++) {
    const run = await api.getRun(runId);
    if (run.finishedAt !== null) return run;
    await sleep(opts.intervalMs ?? 1500);
  }
  throw new BuyerIntelApiError(408, 'poll_timeout', 'The undo is still running; check back in a minute.');
}

/** Queues the undo, follows its run to the end, then reads the company again. */
export async function runUndoFlow(
  api: BuyerIntelApi,
  accountId: string,
  dispatch: (event: UndoEvent) => void,
  poll: PollOptions = {},
): Promise<void> {
  try {
    const { runId } = await api.undo(accountId);
    dispatch({ type: 'undo_queued', runId });
    const run = await pollRun(api, runId, poll);
    const account = await api.getAccount(accountId).catch(() => null);
    dispatch({ type: 'undo_finished', run, account });
  } catch (err) {
    dispatch({ type: 'undo_refused', message: errorMessage(err) });
  }
}

// ---- Words -----------------------------------------------------------------------------------

/** Whether the undo would write or remove anything (otherwise there is nothing to confirm). */
export function planHasWork(plan: UndoPlan): boolean {
  return plan.totals.restore > 0 || plan.totals.notes > 0;
}

const count = (n: number, one: string, many = `${one}s`) =>
  `${n.toLocaleString('en-US')} ${n === 1 ? one : many}`;

/** "Puts back 34 values, keeps 1 a person changed since, removes 2 notes." */
export function planSummary(plan: UndoPlan): string {
  const { restore, skip, notes } = plan.totals;
  if (!planHasWork(plan))
    return skip > 0
      ? `Nothing to undo: a person changed ${count(skip, 'value')} since, and those are kept.`
      : 'Nothing to undo: the company already holds its values from before.';
  const parts = [`puts back ${count(restore, 'value')}`];
  if (skip > 0) parts.push(`keeps ${count(skip, 'value')} a person changed since`);
  if (notes > 0) parts.push(`removes ${count(notes, 'note')}`);
  const text = parts.join(', ');
  return `${text[0]?.toUpperCase()}${text.slice(1)}.`;
}

/** The plan's lines, as the history will show the undo: at most six, the rest counted. */
export function planLines(plan: UndoPlan): string[] {
  const at = '';
  const fields: HistoryField[] = plan.accounts.flatMap((a) =>
    a.fields
      .filter((f) => f.action !== 'unchanged')
      .map((f) => ({
        field: f.field,
        attribute: null,
        kind: f.kind,
        old: f.now,
        new: f.before,
        decision: f.action === 'restore' ? 'undo' : 'undo-kept-edit',
        result: f.action === 'restore' ? ('ok' as const) : ('not_sent' as const),
        error: null,
        at,
      })),
  );
  const notes = plan.accounts.flatMap((a) =>
    a.notes.map((n) => ({
      action: 'removed' as const,
      noteId: n.noteId,
      dedupeKey: n.dedupeKey,
      title: n.title,
      at,
    })),
  );
  if (!fields.length && !notes.length) return [];
  return changeLines({ fields, notes });
}

/** "Undone: 34 values put back, 1 kept (a person changed it), 2 notes removed." */
export function undoneSummary(run: UndoRun): string {
  const n = (key: string) => run.counts[key] ?? 0;
  const parts = [`${count(n('restored'), 'value')} put back`];
  if (n('skipped') > 0)
    parts.push(
      `${count(n('skipped'), 'value')} kept (a person changed ${n('skipped') === 1 ? 'it' : 'them'})`,
    );
  if (n('notesRemoved') > 0) parts.push(`${count(n('notesRemoved'), 'note')} removed`);
  if (n('failed') > 0) parts.push('HubSpot refused part of it');
  return `Undone: ${parts.join(', ')}.`;
}
