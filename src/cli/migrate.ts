// `buyer-intel-sync migrate`: brings the database's schema to this version, then imports what earlier
// versions kept only in Redis (outcomes, CRM connections, digest state). Reads only the variables it needs, so a release job can run it
// with DATABASE_URL and REDIS_URL alone.
import { redisClient } from '../../queues/redis-url.ts';
import { ConfigError } from '../config/config-error.ts';
import { coreSchema } from '../config/env.ts';
import { redactUrl } from '../store/db.ts';
import { importRedisHistory } from '../store/import-redis.ts';
import { importRedisDigests, importRedisTenants } from '../store/import-redis-durable.ts';
import { describeError, Store } from '../store/store.ts';
import type { CommandBody } from './command.ts';

const storeEnv = coreSchema.pick({
  DATABASE_URL: true,
  PGLITE_DIR: true,
  REDIS_URL: true,
  REDIS_PREFIX: true,
});

export function storeEnvFrom(source: NodeJS.ProcessEnv) {
  const present = Object.fromEntries(Object.entries(source).filter(([, v]) => v !== undefined && v !== ''));
  const parsed = storeEnv.safeParse(present);
  if (parsed.success) return parsed.data;
  throw new ConfigError(parsed.error.issues.map((i) => `${String(i.path[0])} ${i.message}`));
}

export const migrateCommand: CommandBody = {
  usage: `buyer-intel-sync migrate [--skip-import]

Applies the migrations the database (DATABASE_URL, or the embedded one in PGLITE_DIR) has not had,
in order, under a lock (safe to run from several places at once; a second run does nothing). Then
copies what earlier versions kept only in Redis (REDIS_URL, REDIS_PREFIX) into the database: each
account's last outcome (one the database has as recent or newer is kept), the CRM connections added
with \`tenants add\` or the install page (still encrypted) and each digest's watermark (those the
database has are kept; the copied ones are deleted from Redis).
--skip-import  only migrate.`,
  options: { 'skip-import': { type: 'boolean', default: false } },
  async run(values) {
    const env = storeEnvFrom(process.env);
    const store = new Store(env.DATABASE_URL ? { url: env.DATABASE_URL } : { pgliteDir: env.PGLITE_DIR });
    const out = (line: string) => process.stdout.write(`${line}\n`);
    try {
      const applied = await store.migrate();
      out(
        applied.length
          ? `${store.where}: applied ${applied.length} migration${applied.length === 1 ? '' : 's'} (${applied.join(', ')})`
          : `${store.where}: schema up to date`,
      );
      if (values['skip-import'] === true) return 0;
      const redis = redisClient(env.REDIS_URL, {
        lazyConnect: true,
        maxRetriesPerRequest: 1,
        connectTimeout: 5_000,
        retryStrategy: () => null,
      });
      try {
        await redis.connect().catch((err: unknown) => {
          throw new Error(
            `could not read Redis at ${redactUrl(env.REDIS_URL)} to import earlier outcomes (${describeError(err)}); --skip-import migrates only`,
          );
        });
        const { outcomes, tenants, digests } = await store.open();
        const r = await importRedisHistory(redis, env.REDIS_PREFIX, outcomes);
        out(
          `outcomes in Redis (${env.REDIS_PREFIX}:history:*): ${r.found} found, ${r.imported} imported, ${r.kept} already in the database${r.unreadable ? `, ${r.unreadable} unreadable` : ''}`,
        );
        const t = await importRedisTenants(redis, env.REDIS_PREFIX, tenants);
        out(`tenants in Redis (${env.REDIS_PREFIX}:tenants): ${t.found} found, ${t.imported} imported`);
        const d = await importRedisDigests(redis, env.REDIS_PREFIX, digests);
        out(`digest state in Redis (${env.REDIS_PREFIX}:digest:*): ${d.found} found, ${d.imported} imported`);
      } finally {
        redis.disconnect();
      }
      return 0;
    } finally {
      await store.close();
    }
  },
};
