// `doctor`'s check of the system of record: the PostgreSQL at DATABASE_URL answers and its schema is
// current (the service refuses a database with migrations pending, so doctor says so first). Without
// DATABASE_URL the embedded database serves one process, which `start` can use and `serve` + `worker`
// cannot: a warning, not a failure.
import { withTimeout } from '../shared/deadline.ts';
import { describeError, Store } from '../store/store.ts';
import type { CheckResult } from './result.ts';

const NAME = 'database';

export async function checkDatabase(
  env: { DATABASE_URL?: string | undefined; PGLITE_DIR: string },
  timeoutMs: number,
): Promise<CheckResult> {
  if (!env.DATABASE_URL)
    return {
      name: NAME,
      status: 'warn',
      detail: `no DATABASE_URL: the embedded database (${env.PGLITE_DIR}) serves one process (start); serve and worker need a shared PostgreSQL`,
    };
  const store = new Store({ url: env.DATABASE_URL, poolSize: 1 });
  try {
    const pending = await withTimeout(store.pending(), timeoutMs, 'read migrations');
    if (pending.length)
      return {
        name: NAME,
        status: 'fail',
        detail: `${store.where}: ${pending.length} pending migration${pending.length === 1 ? '' : 's'}: run \`buyer-intel-sync migrate\` (the service refuses to start until then)`,
        more: pending,
      };
    return { name: NAME, status: 'pass', detail: `${store.where}: schema current` };
  } catch (err) {
    return { name: NAME, status: 'fail', detail: `cannot reach ${store.where}: ${describeError(err)}` };
  } finally {
    await store.close().catch(() => undefined);
  }
}
