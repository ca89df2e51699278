// The database of a command that reads what the service recorded (`runs`, `history`): DATABASE_URL,
// or the embedded one in PGLITE_DIR — but only one that exists. Run in a terminal without the
// service's exports, such a command would otherwise create and migrate a fresh embedded database
// (7 s, tens of seconds on a busy machine) only to report that it holds nothing, exit 0, and leave a
// database behind that the service never uses.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Store } from '../store/store.ts';
import { storeEnvFrom } from './migrate.ts';

export type StoreEnv = ReturnType<typeof storeEnvFrom>;

/** The store to read, and the settings it came from; a missing embedded database is one line. */
export function storeToRead(source: NodeJS.ProcessEnv): { env: StoreEnv; store: Store } {
  const env = storeEnvFrom(source);
  if (env.DATABASE_URL) return { env, store: new Store({ url: env.DATABASE_URL }) };
  // PG_VERSION is the first file a PostgreSQL data directory gets; a folder without it (made by hand,
  // or by an open that was cut short) holds no database either. `memory` is a fresh one each time.
  if (env.PGLITE_DIR !== 'memory' && !existsSync(join(env.PGLITE_DIR, 'PG_VERSION')))
    throw new Error(
      `DATABASE_URL is not set and there is no embedded database at ${env.PGLITE_DIR}: set DATABASE_URL to your service's database, or create the embedded one with \`buyer-intel-sync migrate\``,
    );
  return { env, store: new Store({ pgliteDir: env.PGLITE_DIR }) };
}
