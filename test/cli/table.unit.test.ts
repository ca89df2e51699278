// The one table renderer of the CLI and the demo: what a person reading a terminal notices (width,
// alignment, wrapping, no console.table artefacts).
import { describe, expect, it } from 'vitest';
import { renderRecords, renderTable, wrapParagraph } from '../../src/cli/table.ts';

const widest = (text: string) => Math.max(...text.split('\n').map((l) => [...l].length));
/** The cell texts of a rendered row line, trimmed. */
const cellsOf = (line: string) =>
  line
    .split('│')
    .slice(1, -1)
    .map((c) => c.trim());

describe('renderTable', () => {
  it('draws records without an index column or quotes, numbers right-aligned, text left', () => {
    const out = renderRecords([
      { account: 'City of Austin, TX', status: 'enriched', notes: 5 },
      { account: 'Springfield', status: 'needs_review', notes: 12 },
    ]);
    const lines = out.split('\n');
    expect(out).not.toContain('(index)');
    expect(out).not.toContain("'");
    expect(cellsOf(lines[1] ?? '')).toEqual(['account', 'status', 'notes']);
    expect(cellsOf(lines[3] ?? '')).toEqual(['City of Austin, TX', 'enriched', '5']);
    // Same right edge for 5 and 12; left edges of the text cells line up.
    expect(lines[3]).toContain('│     5 │');
    expect(lines[4]).toContain('│    12 │');
    expect(lines[3]?.indexOf('enriched')).toBe(lines[4]?.indexOf('needs_review'));
    // Nothing wraps: one line per row, no separators between rows.
    expect(lines).toHaveLength(6);
  });

  it('fits 100 columns by wrapping long text at spaces, keeping every word', () => {
    const long = 'Needs review: "City of Kansas City" (KS) scores 0.78 but four others are within 0.1 of it';
    const out = renderTable(
      [
        ['Kansas City, KS', long, 0.78],
        ['Austin Independent School District, TX', `${long} again`, 1],
      ],
      { head: ['account', 'why', 'confidence'] },
    );
    expect(widest(out)).toBeLessThanOrEqual(100);
    expect(widest(out)).toBeGreaterThan(90); // uses the room it has
    const text = out.replace(/[│┌┐└┘├┤┬┴┼─\s]+/g, ' ');
    for (const word of long.split(' ')) expect(text).toContain(word);
    // Wrapped rows are separated by a line so a continuation never reads as a row of its own.
    expect(out.split('\n').filter((l) => l.startsWith('├')).length).toBe(2);
  });

  it('cuts a single word longer than its column with an ellipsis', () => {
    const url = `https://example.gov/${'a'.repeat(120)}`;
    const out = renderTable([['homepage', url]]);
    expect(widest(out)).toBe(100);
    expect(out).toContain('…');
  });

  it('keeps a narrower limit when asked', () => {
    const out = renderRecords([{ name: 'x'.repeat(80), n: 1 }], { maxWidth: 40 });
    expect(widest(out)).toBeLessThanOrEqual(40);
  });
});

describe('wrapParagraph', () => {
  it('wraps prose to 100 columns with later lines indented', () => {
    const text = Array.from({ length: 40 }, (_, i) => `word${i}`).join(' ');
    const lines = wrapParagraph(text).split('\n');
    expect(lines.length).toBeGreaterThan(1);
    expect(Math.max(...lines.map((l) => l.length))).toBeLessThanOrEqual(100);
    expect(lines.slice(1).every((l) => l.startsWith('  ') && !l.startsWith('   '))).toBe(true);
    expect(lines.join(' ').replace(/\s+/g, ' ')).toBe(text);
  });
});
