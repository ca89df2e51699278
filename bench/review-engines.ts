// The two databases of the review bench, each fresh, migrated by the store's own migrations and opened
// as src/store/db.ts opens them, with every statement logged (for EXPLAIN): a database of its own on
// the PostgreSQL server, dropped afterwards, and an in-memory PGlite.
import { randomBytes } from 'node:crypto';
import { type CompiledQuery, Kysely, Migrator, PostgresDialect } from 'kysely';
import pg from 'pg';
import { redactUrl } from '../src/store/db.ts';
import { MIGRATIONS } from '../src/store/migrations/index.ts';
import { pglitePool } from '../src/store/pglite-pool.ts';
import type { Database } from '../src/store/schema.ts';

export interface Engine {
  name: 'PostgreSQL' | 'PGlite';
  db: Kysely<Database>;
  /** The statements run since the last call (for EXPLAIN). */
  takeQueries(): CompiledQuery[];
  explain?(q: CompiledQuery): Promise<string>;
  close(): Promise<void>;
}

function logged(): { log: (e: { query: CompiledQuery }) => void; take: () => CompiledQuery[] } {
  let queries: CompiledQuery[] = [];
  return {
    log: (e) => queries.push(e.query),
    take: () => {
      const out = queries;
      queries = [];
      return out;
    },
  };
}

async function migrate(db: Kysely<Database>): Promise<void> {
  const { error } = await new Migrator({
    db,
    provider: { getMigrations: async () => MIGRATIONS },
  }).migrateToLatest();
  if (error) throw error;
}

/** A database of its own on the server at `url` (dropped by close), or why there is none. */
export async function openPostgres(url: string): Promise<Engine | string> {
  // A database, not a schema: nothing the bench creates or drops can meet the store's tests running on
  // the same server meanwhile (Kysely's migrator, unless told a schema, looks in every one).
  const name = `bench_review_${randomBytes(5).toString('hex')}`;
  const admin = new pg.Client({ connectionString: url, connectionTimeoutMillis: 3000 });
  try {
    await admin.connect();
    await admin.query(`create database ${admin.escapeIdentifier(name)}`);
  } catch (err) {
    await admin.end().catch(() => undefined);
    return `PostgreSQL at ${redactUrl(url)} is not reachable: ${(err as Error).message || String(err)}`;
  }
  const dbUrl = new URL(url);
  dbUrl.pathname = `/${name}`;
  // As src/store/db.ts opens it.
  const pool = new pg.Pool({ connectionString: dbUrl.toString(), max: 4 });
  pool.on('error', () => undefined);
  const { log, take } = logged();
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }), log });
  const close = async () => {
    await db.destroy();
    await admin.query(`drop database if exists ${admin.escapeIdentifier(name)} with (force)`);
    await admin.end();
  };
  try {
    await migrate(db);
  } catch (err) {
    await close();
    throw err;
  }
  return {
    name: 'PostgreSQL',
    db,
    takeQueries: take,
    async explain(q) {
      const r = await pool.query(`explain (analyze, buffers) ${q.sql}`, [...q.parameters]);
      return r.rows.map((row: Record<string, string>) => row['QUERY PLAN']).join('\n');
    },
    close,
  };
}

export async function openPglite(): Promise<Engine> {
  const { log, take } = logged();
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool: pglitePool(undefined) }), log });
  await migrate(db);
  return { name: 'PGlite', db, takeQueries: take, close: () => db.destroy() };
}
