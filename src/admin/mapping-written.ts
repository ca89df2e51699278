// The mapping page's "Last written" cell: per CRM field, when we last wrote a value of ours there and
// how many accounts hold ours now (src/store/field-summary.ts), for each CRM tenant that has any
// history of the field; "never" when none has. The tenant is named only when there are several.
import type { FieldWritten } from '../store/field-summary.ts';
import { esc } from './html.ts';
import { readableTime } from './layout.ts';

const accounts = (n: number) =>
  `${n.toLocaleString('en-US')} account${n === 1 ? '' : 's'} hold${n === 1 ? 's' : ''} ours`;

/** The cell's HTML for a field, given every tenant's summary rows and each CRM kind's label. */
export function writtenCell(
  property: string | undefined,
  written: readonly FieldWritten[],
  labelOf: (crm: string) => string,
): string {
  if (property === undefined) return '<td class="written">—</td>';
  const tenants = new Set(written.map((w) => `${w.crm}\u0000${w.tenant}`));
  const mine = written.filter((w) => w.field === property && w.lastWritten !== null);
  if (!mine.length) return '<td class="written">never</td>';
  const lines = mine.map((w) => {
    const who = tenants.size > 1 ? `${esc(labelOf(w.crm))} ${esc(w.tenant)}: ` : '';
    return `<span>${who}${readableTime(w.lastWritten)}<small>${accounts(w.holding)}</small></span>`;
  });
  return `<td class="written">${lines.join('')}</td>`;
}
