import { text } from 'node:stream/consumers';
import { z } from 'zod';
import { CRMS, crmKinds, crmOf, isCrmKind } from '../../connectors/registry.ts';
import type { CrmKind } from '../../connectors/types.ts';
import { createRedis } from '../../queues/redis.ts';
import { loadEnv } from '../config/env.ts';
import { createService } from '../service/runtime.ts';
import { settingsFromEnv } from '../service/settings.ts';
import { Store } from '../store/store.ts';
import { TokenCipher } from '../tenants/cipher.ts';
import { parseTenant, type TenantRecord, TenantStore, tenantIdOf } from '../tenants/store.ts';
import { type CommandBody, failureText, UsageError } from './command.ts';
import { requireRedis } from './redis-check.ts';

const storable = CRMS.filter((c) => c.tenants);

export const tenantsCommand: CommandBody = {
  usage: `buyer-intel-sync tenants list
${storable.map((c) => `buyer-intel-sync ${c.tenants?.cli.usage}`).join('\n')}
buyer-intel-sync tenants remove ${crmKinds().join('|')} <${storable.map((c) => `${c.tenantNoun} id`).join(' | ')}>

Several connections of each CRM can be served at once, each routed by its own id. Credentials are
read from standard input as JSON, never from the command line (shown after "<" above). They are
stored encrypted with TOKEN_ENCRYPTION_KEY (AES-256-GCM); running services pick up a change within
30 seconds. The apps' own credentials (client id/secret) come from the environment.`,
  options: Object.fromEntries(
    storable.flatMap((c) =>
      Object.keys(c.tenants?.cli.options ?? {}).map((o) => [o, { type: 'string' as const }]),
    ),
  ),
  async run(values, positionals) {
    const [action, crm, id] = positionals;
    if (action !== 'list' && action !== 'add' && action !== 'remove')
      throw new UsageError('say what to do: tenants list | add <crm> | remove <crm> <id>');
    if (action !== 'list' && !isCrmKind(crm))
      throw new UsageError(`the CRM must be ${crmKinds().join(' or ')}, got "${crm ?? ''}"`);
    const env = loadEnv();
    if (!env.TOKEN_ENCRYPTION_KEY)
      throw new UsageError(
        'TOKEN_ENCRYPTION_KEY is not set: tenants are stored encrypted with it (openssl rand -base64 32)',
      );
    await requireRedis(env.REDIS_URL, env.REDIS_PREFIX);
    const redis = createRedis(env.REDIS_URL, 'worker');
    // The records are in the database (DATABASE_URL, or the embedded one when no `start` holds it).
    const database = new Store(env.DATABASE_URL ? { url: env.DATABASE_URL } : { pgliteDir: env.PGLITE_DIR });
    const store = new TenantStore(
      async () => (await database.open()).tenants,
      redis,
      env.REDIS_PREFIX,
      TokenCipher.fromBase64(env.TOKEN_ENCRYPTION_KEY),
    );
    let added: TenantRecord;
    try {
      if (action === 'list') {
        const { tenants, unreadable } = await store.list();
        for (const t of tenants) {
          const detail = crmOf(t.crm).tenants?.cli.describe(t) ?? '';
          process.stdout.write(`${t.crm}\t${tenantIdOf(t)}\t${detail}\n`);
        }
        for (const u of unreadable) process.stdout.write(`${u.field}\tUNREADABLE: ${u.reason}\n`);
        return unreadable.length ? 1 : 0;
      }
      const descriptor = crmOf(crm as string);
      if (action === 'remove') {
        if (!id) throw new UsageError(`give the ${descriptor.tenantNoun} id to remove`);
        const removed = await store.remove(descriptor.kind, id);
        process.stdout.write(removed ? `removed ${crm} ${id}\n` : `no ${crm} tenant ${id}\n`);
        return removed ? 0 : 1;
      }
      const cli = descriptor.tenants?.cli;
      if (!cli) throw new UsageError(`${descriptor.label} connections cannot be stored as tenants`);
      let credentials: unknown;
      try {
        credentials = JSON.parse(await text(process.stdin));
      } catch {
        throw new UsageError('pipe the credentials as JSON on standard input (see --help)');
      }
      let record: TenantRecord;
      try {
        record = parseTenant({
          ...(typeof credentials === 'object' && credentials ? credentials : {}),
          crm,
          ...Object.fromEntries(
            Object.entries(cli.options).map(([option, member]) => [member, values[option]]),
          ),
        });
      } catch (err) {
        if (!(err instanceof z.ZodError)) throw err;
        // Name the fields only: a credential value is never echoed.
        const fields = [...new Set(err.issues.map((i) => String(i.path[0] ?? '')))].join(', ');
        throw new UsageError(`missing or invalid: ${fields} (see --help)`);
      }
      await store.put(record);
      process.stdout.write(`stored ${record.crm} ${tenantIdOf(record)} (encrypted)\n`);
      added = record;
    } finally {
      redis.disconnect();
      await database.close();
    }
    // Once the database is free again (an embedded one serves one opener at a time).
    return prepareFields(added);
  },
};

/**
 * The new tenant's fields, as `setup` makes them, before its first job: whoever adds it learns now what
 * its CRM refuses (a scope, a permission). Its jobs would make them before their first write anyway
 * (src/write/our-fields.ts), so a refusal leaves the tenant stored, and says how to try again.
 */
async function prepareFields(record: TenantRecord): Promise<number> {
  const id = tenantIdOf(record);
  const crm = record.crm as CrmKind;
  const settings = await settingsFromEnv(loadEnv());
  const service = createService(settings);
  try {
    await service.loadTenants();
    const result = await service.prepareFields(crm, id);
    process.stdout.write(
      `${crm} ${id}: ${result.created.length} fields created, ${result.existing.length} already there\n`,
    );
    return 0;
  } catch (err) {
    process.stderr.write(
      `buyer-intel-sync tenants: stored ${crm} ${id}, but its fields could not be created: ${failureText(err)} (once fixed: buyer-intel-sync setup --tenant ${id})\n`,
    );
    return 1;
  } finally {
    await service.close();
  }
}
