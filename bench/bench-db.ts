// The system of record of the enrichment benches: as production runs several workers, a PostgreSQL
// database they share (created fresh on the server at BENCH_DATABASE_URL / TEST_DATABASE_URL, migrated
// by the store's own migrations, dropped afterwards); without a reachable server, each process's own
// in-memory PGlite (the report says which).
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import type { DatabaseSettings } from '../src/store/db.ts';
import { Store } from '../src/store/store.ts';

export interface BenchDatabase {
  settings: DatabaseSettings;
  /** 'PostgreSQL' or 'PGlite (in memory, one per process)'. */
  engine: string;
  /** The server and the database's name, to read its backends' CPU (bench/pg-cost.ts); absent on PGlite. */
  server?: { url: string; database: string };
  drop(): Promise<void>;
}

export async function benchDatabase(serverUrl: string | undefined): Promise<BenchDatabase> {
  const memory: BenchDatabase = {
    settings: { pgliteDir: 'memory' },
    engine: 'PGlite (in memory, one per process)',
    drop: async () => undefined,
  };
  if (!serverUrl) return memory;
  const name = `bench_enrich_${randomBytes(5).toString('hex')}`;
  const admin = new pg.Client({ connectionString: serverUrl, connectionTimeoutMillis: 3000 });
  try {
    await admin.connect();
    await admin.query(`create database ${admin.escapeIdentifier(name)}`);
  } catch {
    await admin.end().catch(() => undefined);
    return memory;
  }
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  const settings: DatabaseSettings = { url: url.toString(), poolSize: 10 };
  const drop = async () => {
    await admin.query(`drop database if exists ${admin.escapeIdentifier(name)} with (force)`);
    await admin.end();
  };
  try {
    const store = new Store(settings);
    await store.migrate();
    await store.close();
  } catch (err) {
    await drop();
    throw err;
  }
  return { settings, engine: 'PostgreSQL', server: { url: serverUrl, database: name }, drop };
}
