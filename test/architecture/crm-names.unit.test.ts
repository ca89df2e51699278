// CRM names live only in their own folders (connectors/<crm>/, emulators/<crm>/) and the two registries
// (connectors/registry.ts, emulators/registry.ts): everywhere else in src/, queues/, connectors/ and
// emulators/ no string literal equals a registered CRM kind and no import reaches into a CRM's folder,
// so no code branches on a CRM and a new one needs no edit there. Comments may mention CRMs (they explain).
import '../helpers/memory-crm.ts'; // first: registers the test double before the registry is read
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { crmKinds } from '../../connectors/registry.ts';
import { EMULATORS } from '../../emulators/registry.ts';
import { ROOT, tsFiles } from '../helpers/source-files.ts';

const REGISTRIES = ['connectors/registry.ts', 'emulators/registry.ts'];
/**
 * Files of the house that may name a CRM, each with the reason. Keep it empty: an entry here is a debt,
 * and the test fails once a file has no CRM name left so that the entry goes too. (The conformance rule
 * tables were the last: each emulator's rules now live in its folder, emulators/<kind>/conformance-rules.ts.)
 */
const ALLOWED: readonly string[] = [];

/** A CRM's folders: each first-level folder of connectors/, and those of emulators/ with a descriptor. */
const CRM_FOLDERS = [
  ...readdirSync(join(ROOT, 'connectors'), { withFileTypes: true })
    .filter((e) => e.isDirectory())
    .map((e) => `connectors/${e.name}/`),
  ...readdirSync(join(ROOT, 'emulators'), { withFileTypes: true })
    .filter((e) => e.isDirectory() && existsSync(join(ROOT, 'emulators', e.name, 'index.ts')))
    .map((e) => `emulators/${e.name}/`),
];
const inCrmFolder = (rel: string) => CRM_FOLDERS.some((f) => rel.startsWith(f));

/** The files that may not name a CRM: src/, queues/, and connectors/ and emulators/ outside CRM folders. */
function houseFiles(): string[] {
  return ['src', 'queues', 'connectors', 'emulators']
    .flatMap((dir) => tsFiles(join(ROOT, dir)))
    .filter((path) => {
      const rel = relative(ROOT, path);
      return !inCrmFolder(rel) && !REGISTRIES.includes(rel) && !rel.includes('node_modules');
    });
}

/** The import specifiers of `source` that resolve into a CRM's folder, seen from `rel`. */
function crmImports(rel: string, source: string): string[] {
  return ts.preProcessFile(source, true, true).importedFiles.flatMap((f) => {
    if (!f.fileName.startsWith('.')) return [];
    const target = relative(ROOT, resolve(ROOT, dirname(rel), f.fileName));
    return inCrmFolder(target) ? [f.fileName] : [];
  });
}

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

  it('names no CRM outside its folders and the two registries', () => {
    const kinds = [...new Set([...crmKinds(), ...EMULATORS.map((e) => e.kind)])];
    expect(kinds.length).toBeGreaterThanOrEqual(3);
    expect(CRM_FOLDERS).toEqual(
      expect.arrayContaining(['connectors/hubspot/', 'connectors/salesforce/', 'emulators/hubspot/']),
    );
    const files = houseFiles();
    expect(files.length).toBeGreaterThan(100);
    const named = new Set<string>();
    const offences = files.flatMap((path) => {
      const rel = relative(ROOT, path);
      const hits = crmLiterals(readFileSync(path, 'utf8'), kinds);
      if (hits.length) named.add(rel);
      if (ALLOWED.includes(rel)) return [];
      return hits.map((hit) => `${rel}:${hit.line} names '${hit.text}'`);
    });
    expect(offences).toEqual([]);
    // An allowance whose file names no CRM any more goes too.
    expect(ALLOWED.filter((rel) => !named.has(rel))).toEqual([]);
  });

  it('reaches into no CRM’s folder outside its folders and the two registries', () => {
    const offences = houseFiles().flatMap((path) => {
      const rel = relative(ROOT, path);
      return crmImports(rel, readFileSync(path, 'utf8')).map((spec) => `${rel} imports ${spec}`);
    });
    expect(offences).toEqual([]);
  });

  it('finds an import into a CRM’s folder (self-check)', () => {
    expect(crmImports('emulators/cli/x.ts', "import { a } from '../hubspot/server.ts';")).toEqual([
      '../hubspot/server.ts',
    ]);
    expect(crmImports('emulators/cli/x.ts', "import { a } from '../registry.ts';")).toEqual([]);
  });
});
