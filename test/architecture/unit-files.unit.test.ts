// A test file is `unit` by its name (`*.unit.test.ts`, vitest.config.ts) and then runs where nothing
// answers: no Redis, no PostgreSQL server, no Chromium. A unit file that reaches for one fails at run
// time anyway, but only once it gets there; this reads the imports instead, so a file that takes in a
// helper needing a service is named here with the path that leads to it, before anything runs.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { ROOT, tsFiles } from '../helpers/source-files.ts';

/** The test helpers that need a service, and which. */
const NEEDS_A_SERVICE: Readonly<Record<string, string>> = {
  'test/helpers/redis.ts': 'Redis',
  'test/helpers/service.ts': 'Redis (a service on the shared Redis)',
  'test/helpers/start-service.ts': 'Redis (the service and its emulators)',
  'test/helpers/private-servers.ts': 'Redis (a private redis-server)',
  'test/helpers/private-cluster.ts': 'a Redis Cluster (redis-server)',
  'test/helpers/one-node-cluster.ts': 'a Redis Cluster node (redis-server)',
  'test/helpers/redis-monitor.ts': 'Redis (a MONITOR connection)',
  'test/helpers/reliability-env.ts': 'Redis (service processes on REDIS_URL)',
  // Its PostgreSQL variants are skipped where TEST_DATABASE_URL is unset — and the unit project clears
  // it — but fail in CI: a store test there would never run on the server.
  'test/helpers/databases.ts': 'PostgreSQL (describeEachDatabase, itWithPostgres)',
  'test/helpers/browser.ts': 'Chromium',
  'test/helpers/console-check.ts': 'Chromium',
};

/** Packages that only talk to a service; a test file importing one is not a unit file. */
const SERVICE_PACKAGES: Readonly<Record<string, string>> = {
  ioredis: 'Redis',
  bullmq: 'Redis',
  pg: 'PostgreSQL',
  'playwright-core': 'Chromium',
};

/**
 * Helpers whose own imports are not followed: they use a service only when one is configured and fall
 * back without it, which is what the unit project arranges.
 */
const FALLS_BACK: Readonly<Record<string, string>> = {
  'test/helpers/test-database.ts':
    'the embedded PGlite when TEST_DATABASE_URL is unset (it imports databases.ts only for freshPostgresDatabase, undefined then)',
};

const repoPath = (path: string) => relative(ROOT, path).split('\\').join('/');

/** Static imports, `export … from` and `import('…')` with a string literal; comments are skipped. */
const specifiersOf = (source: string) =>
  ts.preProcessFile(source, true, true).importedFiles.map((f) => f.fileName);

/**
 * The first path from `start` (a repository path) to a helper or package that needs a service, with
 * what it needs; undefined when there is none. Only files under test/ are followed: production code
 * and the emulators import ioredis or pg without connecting, and run in-process in unit files.
 */
function pathToAService(
  start: string,
  read: (path: string) => string = (p) => readFileSync(join(ROOT, p), 'utf8'),
): { path: string[]; needs: string } | undefined {
  const seen = new Set<string>();
  const walk = (file: string, path: string[]): { path: string[]; needs: string } | undefined => {
    if (seen.has(file)) return undefined;
    seen.add(file);
    const needs = NEEDS_A_SERVICE[file];
    if (needs) return { path, needs };
    if (FALLS_BACK[file]) return undefined;
    for (const specifier of specifiersOf(read(file))) {
      const pkg = SERVICE_PACKAGES[specifier];
      if (pkg) return { path: [...path, specifier], needs: pkg };
      if (!specifier.startsWith('.')) continue;
      const target = repoPath(resolve(ROOT, dirname(file), specifier));
      if (!target.startsWith('test/') || !existsSync(join(ROOT, target))) continue;
      const found = walk(target, [...path, target]);
      if (found) return found;
    }
    return undefined;
  };
  return walk(start, [start]);
}

const unitFiles = tsFiles(join(ROOT, 'test'))
  .map(repoPath)
  .filter((p) => p.endsWith('.unit.test.ts'))
  .sort();

describe('unit test files need Node alone', () => {
  it('imports no helper or package that needs Redis, PostgreSQL or Chromium', () => {
    const offenders = unitFiles.flatMap((file) => {
      const found = pathToAService(file);
      return found
        ? [`${found.path.join(' → ')} needs ${found.needs}: rename it *.test.ts (integration)`]
        : [];
    });
    expect(offenders).toEqual([]);
  });

  it('names helpers that exist, so a renamed helper cannot slip out of the check', () => {
    const missing = [...Object.keys(NEEDS_A_SERVICE), ...Object.keys(FALLS_BACK)].filter(
      (p) => !existsSync(join(ROOT, p)),
    );
    expect(missing).toEqual([]);
    expect(unitFiles.length).toBeGreaterThan(100);
  });

  it('finds a service behind a sibling module and through a chain of helpers', () => {
    // The per-owner digest's scenario (a sibling module, not a helper) opens Redis with ioredis.
    expect(pathToAService('test/digest/per-owner-hubspot.test.ts')).toEqual({
      path: ['test/digest/per-owner-hubspot.test.ts', 'test/digest/per-owner-scenario.ts', 'ioredis'],
      needs: 'Redis',
    });
    const files: Record<string, string> = {
      'test/x/a.unit.test.ts': "import { a } from '../helpers/fuzz-run.ts';",
      'test/helpers/fuzz-run.ts': "import { t } from './fuzz-target.ts';",
      'test/helpers/fuzz-target.ts': "import { s } from './start-service.ts';",
    };
    const read = (p: string) => files[p] ?? readFileSync(join(ROOT, p), 'utf8');
    expect(pathToAService('test/x/a.unit.test.ts', read)?.path).toEqual([
      'test/x/a.unit.test.ts',
      'test/helpers/fuzz-run.ts',
      'test/helpers/fuzz-target.ts',
      'test/helpers/start-service.ts',
    ]);
    // Through the embedded-database helper it is fine: it falls back to PGlite.
    files['test/x/b.unit.test.ts'] = "import { cliDatabase } from '../helpers/test-database.ts';";
    expect(pathToAService('test/x/b.unit.test.ts', read)).toBeUndefined();
  });
});
