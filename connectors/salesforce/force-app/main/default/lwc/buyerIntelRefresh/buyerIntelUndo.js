// The quick action's undo of the account's last change in words: the dry run's plan (POST /api/undo with
// dryRun, src/api/undo-routes.ts) before the rep confirms, and the finished undo run (GET /api/runs/:id)
// after. Pure, like buyerIntelFormat.js, so vitest loads it against the real service too.
import { fieldLabel, isMatchField, isQuietField, shortValue } from './buyerIntelFormat';

export const UNDO_TITLES = {
  preview: 'Reading what an undo would put back…',
  busy: 'Undoing the last change…',
  done: 'Last change undone',
};

const MAX_LINES = 6;

const count = (n, one, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/** "salesforce account 001…'s last change (refresh run 12)" → "Undo the last change (refresh run 12)?" */
function question(what) {
  const source = /\(([^()]+)\)$/.exec(String(what ?? ''))?.[1];
  return source ? `Undo the last change (${source})?` : 'Undo the last change?';
}

/** A planned field's line and rank: a value kept, the match, (notes,) then the buyer's data. */
function planLine(f) {
  const label = fieldLabel(f.field);
  if (f.action === 'skip')
    return { text: `${label}: kept, a person changed it since (${shortValue(f.field, f.now)})`, rank: 1 };
  if (f.action !== 'restore' || isQuietField(f.field)) return null;
  const text = `${label}: ${shortValue(f.field, f.now)} → ${shortValue(f.field, f.before)}`;
  return { text, rank: isMatchField(f.field) ? 2 : 4 };
}

function summary(totals) {
  const parts = [`puts back ${count(totals.restore ?? 0, 'value')}`];
  if (totals.notes) parts.push(`removes ${count(totals.notes, 'note')}`);
  if (totals.skip) parts.push(`keeps ${count(totals.skip, 'value')} a person changed since`);
  return `The undo ${parts.join(', ')}.`;
}

/**
 * A dry run's plan as the panel shows it: the question, what the undo does in one sentence, up to six
 * lines as the last changes show them (a value kept, the match, a note removed, the buyer's data), the
 * service's remarks, and whether the undo would change anything at all.
 */
export function undoPlanView(plan) {
  const account = plan?.accounts?.[0];
  const lines = [
    ...(account?.fields ?? []).map(planLine).filter((l) => l !== null),
    ...(account?.notes ?? []).map((n) => ({
      text: `Note removed: ${shortValue('', n.title ?? 'untitled')}`,
      rank: 3,
    })),
  ]
    .sort((a, b) => a.rank - b.rank)
    .map((l) => l.text);
  const cut =
    lines.length <= MAX_LINES
      ? lines
      : [...lines.slice(0, MAX_LINES - 1), `…and ${lines.length - (MAX_LINES - 1)} more`];
  const totals = plan?.totals ?? {};
  const hasWork = (totals.restore ?? 0) + (totals.notes ?? 0) > 0;
  return {
    title: question(plan?.what),
    summary: hasWork ? summary(totals) : 'Nothing to undo: the values are already as they were before it.',
    lines: cut.map((text, i) => ({ key: String(i), text })),
    remarks: (plan?.remarks ?? []).map((text, i) => ({ key: String(i), text })),
    hasWork,
  };
}

/** An undo run is over once the service says when it finished. */
export function isUndoFinished(run) {
  return Boolean(run?.finishedAt);
}

/** What the finished undo did, from its counts (src/undo/record.ts): put back, kept, removed, refused. */
export function undoOutcome(run) {
  const c = run?.counts ?? {};
  const parts = [];
  if (c.restored) parts.push(`${count(c.restored, 'value')} put back`);
  if (c.skipped) parts.push(`${count(c.skipped, 'value')} kept (changed by a person since)`);
  if (c.notesRemoved) parts.push(`${count(c.notesRemoved, 'note')} removed`);
  if (c.failed) parts.push('some changes were refused by Salesforce: try the undo again');
  if (parts.length === 0) return 'Nothing left to undo: the values were already as before.';
  const text = parts.join(', ');
  return `${text[0].toUpperCase()}${text.slice(1)}.`;
}
