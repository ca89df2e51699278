// The system of record of a service or CLI under test: on TEST_DATABASE_URL's server (CI's, and any
// machine that sets it) a fresh, migrated database of its own, dropped after the test file; without it
// the embedded PGlite. The store's own tests run on both (databases.ts); the rest run on the server
// where there is one, as production does: opening the embedded database costs ~5 s of CPU in every
// process that opens it, the server ~0.2 s, and dozens of files and CLI runs open one.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DatabaseSettings } from '../../src/store/db.ts';
import { freshPostgresDatabase } from './databases.ts';
import { onRelease } from './release.ts';

export interface TestDatabase {
  /** For a service or Store in this process. */
  settings: DatabaseSettings;
  /** For a CLI or service process: DATABASE_URL, or PGLITE_DIR. */
  env: Record<string, string>;
}

/**
 * A database for one service in this process (the embedded one in memory without a server). Each call
 * is a database of its own.
 */
export async function serviceDatabase(): Promise<DatabaseSettings> {
  const server = await freshPostgresDatabase();
  if (!server) return { pgliteDir: 'memory' };
  onRelease(server.drop);
  return { url: server.url };
}

/**
 * A database that this process and CLI processes share (the embedded one in a directory of its own
 * without a server: one process may hold it at a time). Each call is a database of its own.
 */
export async function sharedDatabase(): Promise<TestDatabase> {
  const server = await freshPostgresDatabase();
  if (server) {
    onRelease(server.drop);
    return { settings: { url: server.url }, env: { DATABASE_URL: server.url } };
  }
  const dir = await mkdtemp(join(tmpdir(), 'bis-test-db-'));
  onRelease(() => rm(dir, { recursive: true, force: true }));
  return { settings: { pgliteDir: dir }, env: { PGLITE_DIR: dir } };
}

/**
 * A database for processes that run at the same time (`serve` beside `worker`, a worker beside a
 * backfill): on the server one they share (`shared`), else each process its own embedded one in
 * memory, since an embedded one on disk serves one process at a time.
 */
export async function concurrentDatabase(): Promise<TestDatabase & { shared: boolean }> {
  const server = await freshPostgresDatabase();
  if (!server) return { settings: { pgliteDir: 'memory' }, env: { PGLITE_DIR: 'memory' }, shared: false };
  onRelease(server.drop);
  return { settings: { url: server.url }, env: { DATABASE_URL: server.url }, shared: true };
}
