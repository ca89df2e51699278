// PGlite (PostgreSQL in WebAssembly, in this process) behind the pool interface Kysely's own
// PostgresDialect drives, so the embedded database and a real PostgreSQL run the same SQL through the
// same dialect. Why not `kysely-pglite-dialect`: it accepts PGlite ≤ 0.4 only (we use 0.5).
//
// PGlite is one session: a "connection" here is the whole database, handed to one caller at a time,
// so a Kysely transaction (BEGIN … COMMIT on one connection) never interleaves with another query.
// A data directory serves one process: a lock file with our pid keeps a second process out.
import {
  closeSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PGlite } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import type { PostgresPool, PostgresPoolClient, PostgresQueryResult } from 'kysely';
import { IntegrationError } from '../shared/errors.ts';

/** The embedded database's directory is held by another live process. */
export class EmbeddedDatabaseBusy extends IntegrationError {
  constructor(dir: string, pid: number) {
    super(
      `the embedded database in ${dir} is in use by process ${pid}: stop it, or set DATABASE_URL (PostgreSQL) to share one database between processes`,
      { permanent: true },
    );
  }
}

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
};

/** Takes `<dir>/.lock` for this process (a stale one, whose process is gone, is taken over). */
function lockDir(dir: string): () => void {
  mkdirSync(dir, { recursive: true });
  const path = join(dir, '.lock');
  const take = (): (() => void) | undefined => {
    try {
      const fd = openSync(path, 'wx');
      writeSync(fd, String(process.pid));
      closeSync(fd);
      return () => rmSync(path, { force: true });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      return undefined;
    }
  };
  // Refused: a live holder is named; a stale lock (its process is gone) is taken over, once.
  const refuseIfHeld = () => {
    const holder = Number(readFileSync(path, 'utf8').trim());
    if (Number.isInteger(holder) && holder > 0 && holder !== process.pid && alive(holder))
      throw new EmbeddedDatabaseBusy(dir, holder);
    rmSync(path, { force: true });
  };
  const taken = take();
  if (taken) return taken;
  refuseIfHeld();
  const again = take();
  if (again) return again;
  refuseIfHeld();
  throw new Error(`could not lock the embedded database in ${dir}`);
}

const extensions = { pg_trgm };

/**
 * A fresh in-memory database. Creating one runs initdb (seconds of WebAssembly); loading a copy of a
 * fresh cluster takes a tenth of that, so the first process to create one leaves a copy in the temp
 * directory for the others (every test file and every demo opens one). A missing or unreadable copy
 * only costs the initdb.
 */
async function inMemory(): Promise<PGlite> {
  let template: string | undefined;
  try {
    const wasm = statSync(fileURLToPath(import.meta.resolve('@electric-sql/pglite/pglite.wasm')));
    template = join(tmpdir(), `buyer-intel-sync-pglite-${wasm.size}-${Math.floor(wasm.mtimeMs)}.tar`);
    return await PGlite.create({ loadDataDir: new Blob([readFileSync(template)]), extensions });
  } catch {}
  const db = await PGlite.create('memory://', { extensions });
  if (template) {
    try {
      const copy = Buffer.from(await (await db.dumpDataDir('none')).arrayBuffer());
      const partial = `${template}.${process.pid}`;
      writeFileSync(partial, copy);
      renameSync(partial, template);
    } catch {}
  }
  return db;
}

/** `dir` undefined: in memory, gone when the process ends. */
export function pglitePool(dir: string | undefined): PostgresPool {
  let opened: Promise<{ db: PGlite; unlock: () => void }> | undefined;
  let queue: Promise<void> = Promise.resolve();

  const open = () => {
    opened ??= (async () => {
      const where = dir === undefined ? undefined : resolve(dir);
      const unlock = where ? lockDir(where) : () => undefined;
      try {
        const db = where ? await PGlite.create(where, { extensions }) : await inMemory();
        return { db, unlock };
      } catch (err) {
        unlock();
        throw err;
      }
    })();
    return opened;
  };

  return {
    async connect(): Promise<PostgresPoolClient> {
      const { db } = await open();
      let release: () => void = () => undefined;
      const turn = queue;
      queue = new Promise((r) => {
        release = r;
      });
      await turn;
      const client = {
        async query<R>(sql: string, parameters: ReadonlyArray<unknown>): Promise<PostgresQueryResult<R>> {
          const result = await db.query<R>(sql, [...parameters]);
          return {
            command: (result.command ?? 'SELECT') as PostgresQueryResult<R>['command'],
            rowCount: result.rowCount ?? result.affectedRows ?? 0,
            rows: result.rows,
          };
        },
        release,
      };
      return client as PostgresPoolClient;
    },
    async end() {
      if (!opened) return;
      const { db, unlock } = await opened;
      await queue;
      await db.close();
      unlock();
    },
  };
}
