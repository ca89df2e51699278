// What `undo` prints: a dry run's plan — per field how many values go back, are kept because a person
// changed them, or already hold their value before; then per account a line per field (restore: now →
// before; keep: a person's value; as is) and the notes to remove — and a finished undo's counts with
// the values it kept.
import type { FieldCounts } from '../undo/plan.ts';
import type { UndoOutcome, UndoPreview } from '../undo/undo.ts';
import { renderTable, wrapParagraph } from './table.ts';

const value = (v: string | null) => (v === null || v === '' ? '∅' : v.length > 40 ? `${v.slice(0, 39)}…` : v);
const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

function fieldTable(fields: Record<string, FieldCounts>, restore: string): string {
  const names = Object.keys(fields).sort();
  return renderTable(
    names.map((name) => {
      const c = fields[name] ?? { restore: 0, skip: 0, unchanged: 0, ours: 0 };
      return [name, c.restore, c.skip, c.unchanged];
    }),
    { head: ['field', restore, 'kept', 'as before'] },
  );
}

export function renderPreview(p: UndoPreview): string {
  const t = p.totals;
  const lines = [
    `DRY RUN — nothing written. Undo of ${p.what}`,
    wrapParagraph(
      `${plural(p.accounts.length, 'account')}${p.accounts.length < p.total ? ` of ${p.total} (the first ones)` : ''}: ` +
        `${t.accounts} with something to undo${t.gone ? `, ${t.gone} no longer in the CRM` : ''}. ` +
        `Fields: ${t.restore} to restore, ${t.skip} kept (a person changed them), ${t.unchanged} already as before` +
        `${t.ours ? `, ${t.ours} left as a later write of ours set them` : ''}. ` +
        `Notes: ${t.notes} to remove${t.notesRemovedBefore ? ` (${t.notesRemovedBefore} removed by an earlier undo)` : ''}.`,
    ),
    ...p.remarks.map((r) => wrapParagraph(`Note: ${r}.`)),
  ];
  // Per field, when there is more than one account to sum up.
  if (p.accounts.length > 1) lines.push(fieldTable(p.fields, 'to restore'));
  const width = Math.max(0, ...p.accounts.flatMap((a) => a.fields.map((f) => f.field.length)));
  for (const a of p.accounts) {
    lines.push('');
    lines.push(`${a.crm} account ${a.accountId} (${a.tenant})${a.buyerId ? `, buyer ${a.buyerId}` : ''}`);
    if (a.gone) lines.push('  no longer in the CRM: nothing to restore');
    for (const f of a.fields) {
      const field = f.field.padEnd(width);
      if (f.action === 'restore') lines.push(`  restore  ${field}  ${value(f.current)} → ${value(f.before)}`);
      else if (f.action === 'skip')
        lines.push(
          `  keep     ${field}  ${value(f.current)} (a person changed it; we wrote ${value(f.wrote)})`,
        );
      else lines.push(`  as is    ${field}  ${value(f.current)} (already as before)`);
    }
    if (a.notes.length)
      lines.push(
        `  remove   ${plural(a.notes.length, 'note')}: ${a.notes.map((n) => `${n.noteId} “${value(n.title)}”`).join(', ')}`,
      );
    if (a.notesRemovedBefore)
      lines.push(`  ${plural(a.notesRemovedBefore, 'note')} removed by an earlier undo`);
  }
  return `${lines.join('\n')}\n`;
}

export function renderOutcome(o: UndoOutcome): string {
  const c = o.counts;
  const lines = [
    `Undo run ${o.runId}: undo of ${o.what}`,
    wrapParagraph(
      `${plural(c.accounts, 'account')} done of ${o.total}: ${plural(c.restored, 'field')} restored, ` +
        `${c.skipped} kept (a person changed them), ${c.unchanged} already as before` +
        `${c.ours ? `, ${c.ours} left as a later write of ours set them` : ''}; ` +
        `${plural(c.notesRemoved, 'note')} removed${c.notesGone ? ` (${c.notesGone} already gone)` : ''}; ` +
        `${c.failed} failed${c.gone ? `; ${c.gone} no longer in the CRM` : ''}.`,
    ),
    ...o.remarks.map((r) => wrapParagraph(`Note: ${r}.`)),
  ];
  if (o.total > 1 && Object.keys(o.fields).length) {
    if (o.resumed) lines.push('Since it resumed:');
    lines.push(fieldTable(o.fields, 'restored'));
  }
  if (o.kept.length)
    lines.push(
      renderTable(
        o.kept.map((k) => [k.accountId, k.field, value(k.current), value(k.before)]),
        { head: ['account', 'field kept', 'a person’s value (kept)', 'not put back'] },
      ),
    );
  return `${lines.join('\n')}\n`;
}
