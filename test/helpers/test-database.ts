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

const removals: (() => Promise<void>)[] = [];
const resets: (() => void)[] = [];

/** Runs when the test file's databases are removed (a helper forgets the one it kept for the file). */
export function onRelease(reset: () => void): void {
  resets.push(reset);
}

/**
 * Removes what the file's tests created. Called after each file by test/setup/release.ts, after the
 * file's own hooks closed its services and stores — in the unit project too, whose files share a
 * process (it does not isolate them) and so share this module.
 */
export async function releaseTestDatabases(): Promise<void> {
  for (const reset of resets) reset();
  await Promise.all(removals.splice(0).map((remove) => remove()));
}

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
  removals.push(server.drop);
  return { url: server.url };
}

/**
 * A database that this process and CLI processes share (the embedded one in a directory of its own
 * without a server: one process may hold it at a time). Each call is a database of its own.
 */
export async function sharedDatabase(): Promise<TestDatabase> {
  const server = await freshPostgresDatabase();
  if (server) {
    removals.push(server.drop);
    return { settings: { url: server.url }, env: { DATABASE_URL: server.url } };
  }
  const dir = await mkdtemp(join(tmpdir(), 'bis-test-db-'));
  removals.push(() => rm(dir, { recursive: true, force: true }));
  return { settings: { pgliteDir: dir }, env: { PGLITE_DIR: dir } };
}
