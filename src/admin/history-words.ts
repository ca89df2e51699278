// The write history and an undo's counts as a sales-ops lead reads them: a value a policy kept says
// whose value stayed and that ours was not written (not "1400000 → ∅"), an empty value is "empty", a
// quantity gets its thousands separators, and an undo's counts are sentences, not the keys the run
// stores (`gone 0, ours 0, notesGone 0`). Pure; the pages escape what these return.
import type { FieldChangeJson } from '../api/history-routes.ts';
import type { UndoCounts } from '../undo/record.ts';

const MAX_CHARS = 120;

/**
 * A value as a person reads it. A whole number of 4+ digits without a leading zero gets separators
 * ("1,400,000") unless the attribute is an id (an NCES or Census id keeps its digits as they are).
 */
export function valueWords(v: string | null, attribute?: string | null): string {
  if (v === null || v === '') return 'empty';
  if (/^-?[1-9]\d{3,14}$/.test(v) && !/id$/i.test(attribute ?? '')) return Number(v).toLocaleString('en-US');
  return v.length > MAX_CHARS ? `${v.slice(0, MAX_CHARS - 1)}…` : v;
}

/** The change of one field: old → new for a write, or what was kept and what was not written. */
export function changeWords(
  f: Pick<FieldChangeJson, 'old' | 'new' | 'decision' | 'result' | 'attribute'>,
): string {
  const old = valueWords(f.old, f.attribute);
  const ours = f.new === null || f.new === '' ? '' : ` (${valueWords(f.new, f.attribute)})`;
  if (f.result === 'not_sent')
    switch (f.decision) {
      case 'blocked-edited-by-person':
        return `kept the person’s ${old}; ours${ours} not written`;
      case 'blocked-not-empty':
        return `kept ${old}, the field had a value; ours${ours} not written`;
      case 'undo-kept-edit':
        return `kept the person’s ${old}; the value before (${valueWords(f.new, f.attribute)}) not put back`;
      default:
        return `kept ${old}; ${valueWords(f.new, f.attribute)} not written`;
    }
  return `${old} → ${valueWords(f.new, f.attribute)}`;
}

const n = (count: number, one: string, many = `${one}s`) =>
  `${count.toLocaleString('en-US')} ${count === 1 ? one : many}`;

/** An undo run's counts as sentences, the ones that are zero left out (but the accounts done). */
export function undoCountsWords(c: Partial<UndoCounts>): string[] {
  const get = (k: keyof UndoCounts) => (typeof c[k] === 'number' ? (c[k] as number) : 0);
  const lines = [`${n(get('accounts'), 'account')} done`];
  const parts: [keyof UndoCounts, (k: number) => string][] = [
    ['restored', (k) => `${n(k, 'field')} put back to the value before`],
    ['unchanged', (k) => `${n(k, 'field')} already held the value before`],
    [
      'skipped',
      (k) =>
        `${n(k, 'field')} kept: a person changed ${k === 1 ? 'it' : 'them'} after we wrote ${k === 1 ? 'it' : 'them'}`,
    ],
    [
      'ours',
      (k) =>
        `${n(k, 'field')} left as ${k === 1 ? 'it is' : 'they are'}: a later write of ours holds ${k === 1 ? 'it' : 'them'}`,
    ],
    ['notesRemoved', (k) => `${n(k, 'note')} removed`],
    ['notesGone', (k) => `${n(k, 'note')} already deleted in the CRM`],
    ['failed', (k) => `${n(k, 'account')} the CRM refused`],
    ['gone', (k) => `${n(k, 'account')} no longer in the CRM`],
  ];
  for (const [key, words] of parts) if (get(key) > 0) lines.push(words(get(key)));
  if (lines.length === 1) lines.push('nothing of ours was left to take back');
  return lines;
}
