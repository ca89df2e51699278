// The project's own TypeScript sources, as the architecture tests read them: every `.ts` below a
// folder, and the production code (src/, connectors/, queues/) with its paths from the repository root.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';

export const ROOT = resolve(import.meta.dirname, '../..');

export function tsFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return tsFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

/** Every production source file: its path from the root (with `/`) and its text. */
export const productionSources = (): { path: string; source: string }[] =>
  ['src', 'connectors', 'queues']
    .flatMap((d) => tsFiles(join(ROOT, d)))
    .map((path) => ({ path: relative(ROOT, path), source: readFileSync(path, 'utf8') }));
