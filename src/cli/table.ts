// Text for a person at a terminal, at most 100 columns wide. Tables are drawn by cli-table3 (small,
// typed, word-wrapping cells); it sizes columns to their content but never to a width limit, so the
// widths are chosen here: headings wrap at their spaces, then the widest text columns narrow until
// the table fits; numbers never wrap and sit right-aligned. Prose is wrapped by wrap-ansi.
import Table from 'cli-table3';
import stringWidth from 'string-width';
import wrapAnsi from 'wrap-ansi';

export type Cell = string | number | null | undefined;

export interface TableOptions {
  /** Column headings; omit for a table of label/value rows. */
  head?: readonly string[];
  /** The widest the whole table may be, borders included. */
  maxWidth?: number;
}

export const TABLE_WIDTH = 100;
/** A wrapped text column keeps at least this many characters a line. */
const MIN_TEXT_WIDTH = 8;
/** One space either side of a cell's content. */
const PADDING = 2;

const NUMERIC = /^[-+]?\d[\d,]*(\.\d+)?%?$/;

const text = (cell: Cell): string => (cell === null || cell === undefined ? '' : String(cell));

const widthOf = (s: string): number => Math.max(0, ...s.split('\n').map((line) => stringWidth(line)));

const longestWord = (s: string): number => Math.max(0, ...s.split(/\s+/).map((w) => stringWidth(w)));

/** Renders rows as a boxed table without a trailing newline. */
export function renderTable(rows: readonly (readonly Cell[])[], options: TableOptions = {}): string {
  const head = options.head ?? [];
  const columns = Math.max(head.length, ...rows.map((r) => r.length));
  const cells = rows.map((r) => Array.from({ length: columns }, (_, i) => text(r[i])));
  const numeric = Array.from({ length: columns }, (_, i) => {
    const filled = cells.map((r) => r[i] ?? '').filter((c) => c !== '');
    return filled.length > 0 && filled.every((c) => NUMERIC.test(c));
  });
  const content = Array.from({ length: columns }, (_, i) =>
    Math.max(0, ...cells.map((r) => widthOf(r[i] ?? ''))),
  );
  const heading = (i: number) => head[i] ?? '';

  // Content widths, narrowed one column at a time (the widest that may still narrow) until the table
  // fits (borders take columns + 1): first headings wrap at their spaces, then text wraps at its
  // spaces, and only then are words cut. Numbers never wrap.
  const budget = (options.maxWidth ?? TABLE_WIDTH) - (columns + 1) - PADDING * columns;
  const widths = content.map((w, i) => Math.max(w, widthOf(heading(i))));
  const headingsWrap = content.map((w, i) => Math.max(w, longestWord(heading(i))));
  const textWraps = headingsWrap.map((w, i) =>
    numeric[i] ? w : Math.max(longestWord(heading(i)), ...cells.map((r) => longestWord(r[i] ?? ''))),
  );
  const wordsCut = headingsWrap.map((w, i) =>
    numeric[i] ? w : Math.max(MIN_TEXT_WIDTH, longestWord(heading(i))),
  );
  const total = () => widths.reduce((a, b) => a + b, 0);
  for (const floor of [headingsWrap, textWraps, wordsCut]) {
    while (total() > budget) {
      let widest = -1;
      for (let i = 0; i < columns; i++) {
        const w = widths[i] ?? 0;
        if (w > (floor[i] ?? 0) && (widest < 0 || w > (widths[widest] ?? 0))) widest = i;
      }
      if (widest < 0) break; // nothing narrows further at this stage
      widths[widest] = (widths[widest] ?? 0) - 1;
    }
  }

  const table = new Table({
    ...(head.length ? { head: [...head] } : {}),
    colWidths: widths.map((w) => w + PADDING),
    colAligns: numeric.map((n) => (n ? 'right' : 'left')),
    wordWrap: true,
    wrapOnWordBoundary: true,
    // No colours: the same bytes on a terminal, in a pipe and in a log.
    style: { head: [], border: [], compact: !wraps(cells, widths) },
  });
  table.push(...cells);
  return table.toString();
}

/** Rows separated by lines only when a cell wraps, so a wrapped row never reads as two. */
function wraps(cells: readonly string[][], widths: readonly number[]): boolean {
  return cells.some((r) => r.some((c, i) => widthOf(c) > (widths[i] ?? 0)));
}

/** Objects as rows, their keys as headings (what console.table did, without the index column). */
export function renderRecords(records: readonly Record<string, Cell>[], options: TableOptions = {}): string {
  const head = options.head ?? [...new Set(records.flatMap((r) => Object.keys(r)))];
  return renderTable(
    records.map((r) => head.map((h) => r[h])),
    { ...options, head },
  );
}

/** A paragraph wrapped at word boundaries to `maxWidth`, its later lines indented by `indent`. */
export function wrapParagraph(text: string, indent = 2, maxWidth = TABLE_WIDTH): string {
  return wrapAnsi(text, maxWidth - indent, { hard: true, trim: true })
    .split('\n')
    .map((line, i) => (i ? `${' '.repeat(indent)}${line}` : line))
    .join('\n');
}
