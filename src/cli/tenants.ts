import { text } from 'node:stream/consumers';
import { createRedis } from '../../queues/redis.ts';
import { loadEnv } from '../config/env.ts';
import { TokenCipher } from '../tenants/cipher.ts';
import { type TenantRecord, TenantStore, tenantIdOf, tenantSchema } from '../tenants/store.ts';
import { type Command, UsageError } from './command.ts';

export const tenantsCommand: Command = {
  name: 'tenants',
  summary: 'Add, list or remove CRM connections kept in Redis (tokens encrypted at rest)',
  usage: `buyer-intel-sync tenants list
buyer-intel-sync tenants add hubspot --portal-id <id> < credentials.json
buyer-intel-sync tenants add salesforce --org-id <00D…> --instance-url <https://…> < credentials.json
buyer-intel-sync tenants remove hubspot|salesforce <portal id | org id>

Several HubSpot portals (routed by portalId) and Salesforce orgs (routed by OrganizationId) can
be served at once. Credentials are read from standard input as JSON, never from the command line:
  HubSpot:    {"accessToken": "...", "refreshToken": "..."}   (refreshToken for OAuth installs)
  Salesforce: {"refreshToken": "..."}
They are stored encrypted with TOKEN_ENCRYPTION_KEY (AES-256-GCM); running services pick up a
change within 30 seconds. The apps' own credentials (HUBSPOT_CLIENT_ID/SECRET,
SALESFORCE_CLIENT_ID/SECRET) come from the environment.`,
  options: {
    'portal-id': { type: 'string' },
    'org-id': { type: 'string' },
    'instance-url': { type: 'string' },
  },
  async run(values, positionals) {
    const [action, crm, id] = positionals;
    if (action !== 'list' && action !== 'add' && action !== 'remove')
      throw new UsageError('say what to do: tenants list | add <crm> | remove <crm> <id>');
    if (action !== 'list' && crm !== 'hubspot' && crm !== 'salesforce')
      throw new UsageError(`the CRM must be hubspot or salesforce, got "${crm ?? ''}"`);
    const env = loadEnv();
    if (!env.TOKEN_ENCRYPTION_KEY)
      throw new UsageError(
        'TOKEN_ENCRYPTION_KEY is not set: tenants are stored encrypted with it (openssl rand -base64 32)',
      );
    const redis = createRedis(env.REDIS_URL, 'worker');
    const store = new TenantStore(redis, env.REDIS_PREFIX, TokenCipher.fromBase64(env.TOKEN_ENCRYPTION_KEY));
    try {
      if (action === 'list') {
        const { tenants, unreadable } = await store.list();
        for (const t of tenants) {
          const detail = t.crm === 'hubspot' ? (t.refreshToken ? 'oauth' : 'private app') : t.instanceUrl;
          process.stdout.write(`${t.crm}\t${tenantIdOf(t)}\t${detail}\n`);
        }
        for (const u of unreadable) process.stdout.write(`${u.field}\tUNREADABLE: ${u.reason}\n`);
        return unreadable.length ? 1 : 0;
      }
      if (action === 'remove') {
        if (!id) throw new UsageError(`give the ${crm === 'hubspot' ? 'portal id' : 'org id'} to remove`);
        const removed = await store.remove(crm as string, id);
        process.stdout.write(removed ? `removed ${crm} ${id}\n` : `no ${crm} tenant ${id}\n`);
        return removed ? 0 : 1;
      }
      let credentials: unknown;
      try {
        credentials = JSON.parse(await text(process.stdin));
      } catch {
        throw new UsageError('pipe the credentials as JSON on standard input (see --help)');
      }
      const parsed = tenantSchema.safeParse({
        ...(typeof credentials === 'object' && credentials ? credentials : {}),
        crm,
        ...(crm === 'hubspot'
          ? { portalId: values['portal-id'] }
          : { orgId: values['org-id'], instanceUrl: values['instance-url'] }),
      });
      if (!parsed.success) {
        // Name the fields only: a credential value is never echoed.
        const fields = [...new Set(parsed.error.issues.map((i) => String(i.path[0] ?? '')))].join(', ');
        throw new UsageError(`missing or invalid: ${fields} (see --help)`);
      }
      const record: TenantRecord = parsed.data;
      await store.put(record);
      process.stdout.write(`stored ${record.crm} ${tenantIdOf(record)} (encrypted)\n`);
      return 0;
    } finally {
      redis.disconnect();
    }
  },
};
