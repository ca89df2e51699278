// Opens the system of record: a real PostgreSQL at DATABASE_URL (node-postgres pool), or the embedded
// PGlite in this process (a data directory, or memory). Both behind Kysely's PostgresDialect, so every
// query is the same SQL on both. Opening connects nothing: the first query does.
import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import { pglitePool } from './pglite-pool.ts';
import type { Database } from './schema.ts';

export type DatabaseSettings =
  /** A real PostgreSQL; `schema` puts every table in that schema (tests isolate themselves so). */
  | { url: string; schema?: string | undefined; poolSize?: number | undefined }
  /** The embedded PGlite: a data directory, or `memory` (gone when the process ends). */
  | { pgliteDir: string };

export interface DatabaseHandle {
  db: Kysely<Database>;
  /** Embedded: serves this process only. */
  embedded: boolean;
  /** Where it is, for messages (never a password). */
  where: string;
  close(): Promise<void>;
}

/** The URL without its password. */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return 'DATABASE_URL';
  }
}

export function openDatabase(
  settings: DatabaseSettings,
  onError: (err: Error) => void = () => undefined,
): DatabaseHandle {
  if ('url' in settings) {
    const pool = new pg.Pool({
      connectionString: settings.url,
      max: settings.poolSize ?? 10,
      // A lost idle connection is replaced on the next query; without a listener it would crash us.
      ...(settings.schema ? { options: `-c search_path=${quoteIdent(settings.schema)},public` } : {}),
    });
    pool.on('error', onError);
    // A connection lost while checked out (PostgreSQL stopped mid-query) errors on its client, where
    // the pool listens no more: without this the process would crash instead of the query failing.
    pool.on('connect', (client) => client.on('error', onError));
    const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
    return { db, embedded: false, where: redactUrl(settings.url), close: () => db.destroy() };
  }
  const dir = settings.pgliteDir === 'memory' ? undefined : settings.pgliteDir;
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool: pglitePool(dir) }) });
  return {
    db,
    embedded: true,
    where: dir ? `embedded PostgreSQL (PGlite) in ${dir}` : 'embedded PostgreSQL (PGlite) in memory',
    close: () => db.destroy(),
  };
}

/** A schema name as an identifier; only plain names are accepted, so nothing can be smuggled in. */
function quoteIdent(name: string): string {
  if (!/^[a-z_][a-z0-9_]{0,62}$/.test(name)) throw new Error(`not a plain schema name: ${name}`);
  return `"${name}"`;
}
