// No import loops between folders. A file-level cycle is what Biome's noImportCycles catches; this
// catches the coarser one, where folder A needs folder B and B needs A through other files, so that
// neither can be understood, tested or moved without the other. Folders are the first-level entries
// of src/ and connectors/ (a file at their top is its own node) and queues/ as a whole.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../..');
const ROOTS = ['src', 'connectors', 'queues'];
/** Apps of their own (the HubSpot UI extension, the Salesforce package), with their own builds. */
const EXCLUDED = ['connectors/hubspot/app', 'connectors/salesforce/force-app'];

/**
 * Folder edges known to close a loop and not yet broken, each with the reason. Keep it short: an entry
 * here is a debt, and the test fails once the edge is gone so that the entry goes too.
 */
const ALLOWED_EDGES: readonly { from: string; to: string; why: string }[] = [];

interface Edge {
  from: string;
  to: string;
}

function tsFiles(dir: string): string[] {
  const rel = relative(ROOT, dir).split(sep).join('/');
  if (EXCLUDED.includes(rel)) return [];
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : tsFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

/** Static imports, `export … from` and `import('…')` with a string literal; comments are skipped. */
function specifiersOf(source: string): string[] {
  return ts.preProcessFile(source, true, true).importedFiles.map((f) => f.fileName);
}

/** `src/<entry>`, `connectors/<entry>` or `queues`; undefined outside the three roots. */
function folderOf(repoPath: string): string | undefined {
  const [top, first] = repoPath.split('/');
  if (top === 'queues') return 'queues';
  if ((top === 'src' || top === 'connectors') && first) return `${top}/${first}`;
  return undefined;
}

/**
 * One loop per strongly connected component (Tarjan) with more than one node, as a path that walks it;
 * a component may hold more loops than the one shown, so its members come along.
 */
function findCycles(edges: readonly Edge[]): { members: string[]; loop: string[] }[] {
  const next = new Map<string, string[]>();
  for (const { from, to } of edges) {
    if (from === to) continue;
    next.set(from, [...(next.get(from) ?? []), to]);
    if (!next.has(to)) next.set(to, []);
  }
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const components: string[][] = [];
  const visit = (node: string): void => {
    index.set(node, index.size);
    low.set(node, index.get(node) ?? 0);
    stack.push(node);
    onStack.add(node);
    for (const to of next.get(node) ?? []) {
      if (!index.has(to)) {
        visit(to);
        low.set(node, Math.min(low.get(node) ?? 0, low.get(to) ?? 0));
      } else if (onStack.has(to)) {
        low.set(node, Math.min(low.get(node) ?? 0, index.get(to) ?? 0));
      }
    }
    if (low.get(node) !== index.get(node)) return;
    const component: string[] = [];
    for (let top = stack.pop(); top !== undefined; top = stack.pop()) {
      onStack.delete(top);
      component.push(top);
      if (top === node) break;
    }
    if (component.length > 1) components.push(component);
  };
  for (const node of [...next.keys()].sort()) if (!index.has(node)) visit(node);
  return components.map((component) => {
    const members = component.sort();
    return { members, loop: loopThrough(members, next) };
  });
}

/** A shortest walk from the component's first node back to it, staying inside the component. */
function loopThrough(component: string[], next: Map<string, string[]>): string[] {
  const inside = new Set(component);
  const start = component[0] ?? '';
  const cameFrom = new Map<string, string>();
  const queue = [start];
  while (queue.length > 0) {
    const node = queue.shift() ?? '';
    for (const to of next.get(node) ?? []) {
      if (to === start) {
        const path = [start];
        for (let at: string | undefined = node; at !== undefined && at !== start; at = cameFrom.get(at))
          path.splice(1, 0, at);
        return [...path, start];
      }
      if (inside.has(to) && !cameFrom.has(to)) {
        cameFrom.set(to, node);
        queue.push(to);
      }
    }
  }
  return component;
}

interface FileGraph {
  files: number;
  /** Folder edge `from -> to` → one file import that makes it, to point at in a failure. */
  folderEdges: Map<string, string>;
  unresolved: string[];
}

function buildGraph(): FileGraph {
  const files = ROOTS.flatMap((root) => tsFiles(join(ROOT, root)));
  const folderEdges = new Map<string, string>();
  const unresolved: string[] = [];
  for (const file of files) {
    const fromPath = relative(ROOT, file).split(sep).join('/');
    const from = folderOf(fromPath);
    for (const specifier of specifiersOf(readFileSync(file, 'utf8'))) {
      if (!specifier.startsWith('.')) continue;
      const target = resolve(dirname(file), specifier);
      if (!existsSync(target)) {
        unresolved.push(`${fromPath}: ${specifier}`);
        continue;
      }
      const toPath = relative(ROOT, target).split(sep).join('/');
      const to = folderOf(toPath);
      if (!from || !to || from === to) continue;
      const key = `${from} -> ${to}`;
      if (!folderEdges.has(key)) folderEdges.set(key, `${fromPath} imports ${toPath}`);
    }
  }
  return { files: files.length, folderEdges, unresolved };
}

describe('the cycle finder', () => {
  it('finds a loop in a tiny graph and walks it', () => {
    const edges = [
      { from: 'a', to: 'b' },
      { from: 'b', to: 'c' },
      { from: 'c', to: 'a' },
      { from: 'c', to: 'd' },
      { from: 'd', to: 'd' },
    ];
    expect(findCycles(edges)).toEqual([{ members: ['a', 'b', 'c'], loop: ['a', 'b', 'c', 'a'] }]);
    expect(findCycles(edges.filter((e) => !(e.from === 'c' && e.to === 'a')))).toEqual([]);
  });

  it('reads static, re-exported and dynamic imports but not comments', () => {
    const source = [
      "import type { A } from './a.ts';",
      "export { b } from '../b.ts';",
      "const c = await import('./c.ts');",
      "// import { d } from './d.ts';",
    ].join('\n');
    expect(specifiersOf(source)).toEqual(['./a.ts', '../b.ts', './c.ts']);
  });

  it('collapses paths to folders', () => {
    expect(folderOf('src/digest/settings.ts')).toBe('src/digest');
    expect(folderOf('src/cli.ts')).toBe('src/cli.ts');
    expect(folderOf('connectors/hubspot/webhooks/x.ts')).toBe('connectors/hubspot');
    expect(folderOf('queues/enrich-queue.ts')).toBe('queues');
    expect(folderOf('test/map/plan.unit.test.ts')).toBeUndefined();
  });
});

describe('folder imports', () => {
  const graph = buildGraph();

  it('parses the whole code base', () => {
    expect(graph.files).toBeGreaterThan(50);
    expect(graph.folderEdges.size).toBeGreaterThan(10);
    expect(graph.unresolved).toEqual([]);
  });

  it('form no loop between folders (src/<folder>, connectors/<entry>, queues)', () => {
    const allowed = new Set(ALLOWED_EDGES.map((e) => `${e.from} -> ${e.to}`));
    const stale = [...allowed].filter((key) => !graph.folderEdges.has(key));
    expect(stale, 'allow-listed edges that no longer exist: remove them from ALLOWED_EDGES').toEqual([]);
    const edges = [...graph.folderEdges.keys()]
      .filter((key) => !allowed.has(key))
      .map((key) => {
        const [from = '', to = ''] = key.split(' -> ');
        return { from, to };
      });
    const report = findCycles(edges).map(({ members, loop }) =>
      [
        loop.join(' -> '),
        ...loop.slice(1).map((to, i) => `  ${graph.folderEdges.get(`${loop[i]} -> ${to}`)}`),
        `  (folders in this knot: ${members.join(', ')})`,
      ].join('\n'),
    );
    expect(report.join('\n\n')).toBe('');
  });
});
