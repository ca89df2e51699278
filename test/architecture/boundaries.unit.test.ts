// Production (src/, connectors/, queues/) must never import the emulators, the tests or the benchmark:
// none of them is built or shipped, so such an import would only fail once deployed. This walks the
// real import graph from every production file, through any file it reaches, so an import laundered
// through a file elsewhere in the repository counts too. TypeScript's own pre-processor finds the
// imports, so an import in a comment or a string is not one, and a multi-line one is.
import { readdirSync, readFileSync } from 'node:fs';
import { posix } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = new URL('../../', import.meta.url).pathname;
const PRODUCTION = ['src', 'connectors', 'queues'];
// The HubSpot card (React, built by HubSpot's tooling) and the Salesforce metadata are not service code.
const NOT_SERVICE_CODE = ['connectors/hubspot/app/', 'connectors/salesforce/force-app/'];
const FORBIDDEN = ['emulators', 'test', 'bench'];
const SOURCE = /\.(ts|tsx|mts|cts)$/;

interface Violation {
  file: string;
  line: number;
  specifier: string;
  target: string;
  /** The production file the walk started from and the files in between, when not a direct import. */
  via: string[];
}

/**
 * Walks relative imports breadth-first from `roots` (repository-relative paths with `/`) and reports
 * every import of a file under one of `forbidden`. `read` returns undefined for a missing file.
 */
function checkBoundaries(
  roots: string[],
  read: (path: string) => string | undefined,
  forbidden: string[],
): { violations: Violation[]; filesRead: number; imports: number } {
  const violations: Violation[] = [];
  const reachedVia = new Map<string, string[]>(roots.map((root) => [root, []]));
  const queue = [...roots];
  let filesRead = 0;
  let imports = 0;
  for (let file = queue.shift(); file !== undefined; file = queue.shift()) {
    const source = read(file);
    if (source === undefined) continue;
    filesRead++;
    const via = reachedVia.get(file) ?? [];
    for (const ref of ts.preProcessFile(source, true, true).importedFiles) {
      // Packages and node: built-ins are not ours to check here.
      if (!ref.fileName.startsWith('.')) continue;
      imports++;
      const target = posix.normalize(posix.join(posix.dirname(file), ref.fileName));
      if (forbidden.some((dir) => target.startsWith(`${dir}/`))) {
        const line = source.slice(0, ref.pos).split('\n').length;
        violations.push({ file, line, specifier: ref.fileName, target, via });
      } else if (SOURCE.test(target) && !reachedVia.has(target)) {
        reachedVia.set(target, [...via, file]);
        queue.push(target);
      }
    }
  }
  return { violations, filesRead, imports };
}

function describeViolation(v: Violation): string {
  const chain = v.via.length ? ` (reached from ${v.via.join(' → ')})` : '';
  return `${v.file}:${v.line} imports '${v.specifier}' → ${v.target}${chain}`;
}

function productionFiles(): string[] {
  return PRODUCTION.flatMap((dir) =>
    readdirSync(`${ROOT}${dir}`, { recursive: true, encoding: 'utf8' }).map((f) => `${dir}/${f}`),
  ).filter(
    (f) =>
      SOURCE.test(f) && !f.includes('/node_modules/') && !NOT_SERVICE_CODE.some((dir) => f.startsWith(dir)),
  );
}

function readRepoFile(path: string): string | undefined {
  try {
    return readFileSync(`${ROOT}${path}`, 'utf8');
  } catch {
    return undefined;
  }
}

describe('production code never imports the emulators, tests or benchmark', () => {
  it('holds for every file reachable from src/, connectors/ and queues/', () => {
    const roots = productionFiles();
    // A walk over nothing would pass: make sure it saw the real service.
    expect(roots.length).toBeGreaterThan(50);
    expect(roots).toContain('src/cli.ts');
    const { violations, filesRead, imports } = checkBoundaries(roots, readRepoFile, FORBIDDEN);
    expect(filesRead).toBeGreaterThanOrEqual(roots.length);
    expect(imports).toBeGreaterThan(roots.length);
    expect(violations.map(describeViolation)).toEqual([]);
  });
});

/** The relative imports of `files` whose target `matches`, as `file:line imports target`. */
function importsInto(
  files: string[],
  read: (path: string) => string | undefined,
  matches: (target: string) => boolean,
): string[] {
  const found: string[] = [];
  for (const file of files) {
    const source = read(file);
    if (source === undefined) continue;
    for (const ref of ts.preProcessFile(source, true, true).importedFiles) {
      if (!ref.fileName.startsWith('.')) continue;
      const target = posix.normalize(posix.join(posix.dirname(file), ref.fileName));
      if (matches(target)) {
        const line = source.slice(0, ref.pos).split('\n').length;
        found.push(`${file}:${line} imports ${target}`);
      }
    }
  }
  return found;
}

/**
 * The imports of `files` that climb from a lower layer into src/ anywhere but src/shared/: connectors/
 * and queues/ sit below the domain, which hands them what they run (processors, deps), never the
 * other way round.
 */
const climbingImports = (files: string[], read: (path: string) => string | undefined) =>
  importsInto(files, read, (target) => target.startsWith('src/') && !target.startsWith('src/shared/'));

describe('layers point down: connectors/ and queues/ take from src/ only src/shared/', () => {
  it('holds for every file of connectors/ and queues/', () => {
    const lower = productionFiles().filter((f) => f.startsWith('connectors/') || f.startsWith('queues/'));
    expect(lower.length).toBeGreaterThan(30);
    expect(climbingImports(lower, readRepoFile)).toEqual([]);
  });

  it('finds a climbing import, and lets src/shared/ through', () => {
    const files: Record<string, string> = {
      'queues/a.ts': "import { x } from '../src/digest/run.ts';\nimport { y } from '../src/shared/ids.ts';\n",
      'connectors/b/c.ts': "import type { Z } from '../../src/enrich/pipeline.ts';\n",
    };
    expect(climbingImports(Object.keys(files), (p) => files[p])).toEqual([
      'queues/a.ts:1 imports src/digest/run.ts',
      'connectors/b/c.ts:1 imports src/enrich/pipeline.ts',
    ]);
  });
});

describe('the boundary checker itself', () => {
  const FIXTURE: Record<string, string> = {
    'src/ok.ts': "import { a } from './lib/a.ts';\nexport const ok = a;\n",
    'src/lib/a.ts':
      "// import { x } from '../../test/in-a-comment.ts';\nexport const a = '../../bench/in-a-string.ts';\n",
    'src/direct.ts': [
      "import type { A } from './lib/a.ts';",
      'import {',
      '  startHubSpotSandbox,',
      "} from '../emulators/hubspot/server.ts';",
      '',
    ].join('\n'),
    'src/dynamic.ts': "export async function load() {\n  return import('../bench/run.ts');\n}\n",
    'src/reexport.ts': "export * from './lib/a.ts';\nexport { runCli } from '../test/helpers/cli.ts';\n",
    'src/laundered.ts': "import '../scripts/tool.ts';\n",
    'scripts/tool.ts': "import { seededRandom } from '../emulators/shared/faults.ts';\n",
  };
  const read = (path: string) => FIXTURE[path];

  it('finds direct, multi-line, dynamic, re-exported and laundered imports, with file and line', () => {
    const roots = Object.keys(FIXTURE).filter((f) => f.startsWith('src/'));
    const { violations } = checkBoundaries(roots, read, FORBIDDEN);
    expect(violations.map(describeViolation).sort()).toEqual([
      "scripts/tool.ts:1 imports '../emulators/shared/faults.ts' → emulators/shared/faults.ts (reached from src/laundered.ts)",
      "src/direct.ts:4 imports '../emulators/hubspot/server.ts' → emulators/hubspot/server.ts",
      "src/dynamic.ts:2 imports '../bench/run.ts' → bench/run.ts",
      "src/reexport.ts:2 imports '../test/helpers/cli.ts' → test/helpers/cli.ts",
    ]);
  });

  it('passes a clean graph, and ignores imports in comments and strings', () => {
    expect(checkBoundaries(['src/ok.ts'], read, FORBIDDEN)).toEqual({
      violations: [],
      filesRead: 2,
      imports: 1,
    });
  });
});

/**
 * The imports of src/service/ (the composition root) from production files outside it and the CLI: the
 * root assembles the domain and is assembled by nothing but the binary, so a rule that lands in it (or a
 * module that reaches back into it for its wiring) shows up here.
 */
const importsOfTheRoot = (files: string[], read: (path: string) => string | undefined) =>
  importsInto(
    files.filter((f) => !f.startsWith('src/service/') && !f.startsWith('src/cli/') && f !== 'src/cli.ts'),
    read,
    (target) => target.startsWith('src/service/'),
  );

describe('src/service/ is the composition root: only the CLI imports it', () => {
  it('holds for every production file', () => {
    expect(importsOfTheRoot(productionFiles(), readRepoFile)).toEqual([]);
  });

  it('finds an import of the root, and lets the CLI through', () => {
    const files: Record<string, string> = {
      'src/enrich-job/a.ts': "import type { ServiceCore } from '../service/core.ts';\n",
      'src/cli/b.ts': "import { createService } from '../service/runtime.ts';\n",
    };
    expect(importsOfTheRoot(Object.keys(files), (p) => files[p])).toEqual([
      'src/enrich-job/a.ts:1 imports src/service/core.ts',
    ]);
  });
});
