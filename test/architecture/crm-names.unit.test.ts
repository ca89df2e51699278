// The core never names a CRM: outside connectors/, no string literal equals a registered CRM kind, so
// no code branches on one and a new CRM needs no edit there. Comments may mention CRMs (they explain).
import '../helpers/memory-crm.ts'; // first: registers the test double before the registry is read
import { readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { crmKinds } from '../../connectors/registry.ts';
import { ROOT, tsFiles } from '../helpers/source-files.ts';

/** Every string literal (and template text) that equals one of `names`, with its line. */
function crmLiterals(source: string, names: readonly string[]): { text: string; line: number }[] {
  const file = ts.createSourceFile('x.ts', source, ts.ScriptTarget.Latest, true);
  const found: { text: string; line: number }[] = [];
  const visit = (node: ts.Node) => {
    if (
      (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) &&
      names.includes(node.text.toLowerCase())
    )
      found.push({ text: node.text, line: file.getLineAndCharacterOfPosition(node.getStart()).line + 1 });
    ts.forEachChild(node, visit);
  };
  visit(file);
  return found;
}

describe('the core', () => {
  it('finds a CRM name in a literal, and not in a comment (self-check)', () => {
    const source = "// hubspot is mentioned here\nif (crm === 'hubspot') run();\nconst x = `salesforce`;";
    expect(crmLiterals(source, ['hubspot', 'salesforce'])).toEqual([
      { text: 'hubspot', line: 2 },
      { text: 'salesforce', line: 3 },
    ]);
  });

  it('names no CRM outside connectors/ (src/ and queues/)', () => {
    const kinds = crmKinds();
    expect(kinds.length).toBeGreaterThanOrEqual(3);
    const files = [...tsFiles(join(ROOT, 'src')), ...tsFiles(join(ROOT, 'queues'))];
    expect(files.length).toBeGreaterThan(50);
    const offences = files.flatMap((path) =>
      crmLiterals(readFileSync(path, 'utf8'), kinds).map(
        (hit) => `${relative(ROOT, path)}:${hit.line} names '${hit.text}'`,
      ),
    );
    expect(offences).toEqual([]);
  });
});
