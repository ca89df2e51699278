import { loadEnv } from '../config/env.ts';
import { createService } from '../service/runtime.ts';
import { settingsFromEnv } from '../service/settings.ts';
import { type CommandBody, UsageError } from './command.ts';
import { crmChoices, crmConnection, everyTenant, TENANT_USAGE, tenantConnection } from './crm-option.ts';
import { requireRedis } from './redis-check.ts';

export const setupCommand: CommandBody = {
  usage: `buyer-intel-sync setup [--crm ${crmChoices()}] [${TENANT_USAGE} | --all-tenants]

Applies the database's pending migrations (as \`migrate\` does, without importing from Redis), then
creates the "Buyer Intelligence" property group and one property per mapped field plus the match
provenance fields, where missing, and the text fields that hold an account's ids (NCES, IPEDS,
Census, buyer id) when they are ours (HUBSPOT_ID_PROPERTIES / SALESFORCE_ID_FIELDS name them). Safe
to run again. Reads the environment (see .env.example).

  --tenant       a portal or org the configuration names or one stored with \`tenants add\` or an
                 install (its credentials are read from the database); default: the configuration's
  --all-tenants  every tenant, configured and stored (of --crm when given); one line each, exit 1
                 when any failed`,
  options: { crm: { type: 'string' }, tenant: { type: 'string' }, 'all-tenants': { type: 'boolean' } },
  async run(values) {
    if (values.tenant !== undefined && values['all-tenants'])
      throw new UsageError('--tenant and --all-tenants: choose one');
    const settings = await settingsFromEnv(loadEnv());
    // Without --tenant, the configuration's tenant: a CRM it lacks is said before anything connects.
    const configured =
      values.tenant === undefined && !values['all-tenants'] ? crmConnection(values.crm, settings) : undefined;
    await requireRedis(settings.redisUrl, settings.prefix);
    const service = createService(settings);
    try {
      const applied = await service.store.migrate();
      process.stdout.write(
        `database: ${applied.length ? `applied ${applied.join(', ')}` : 'schema up to date'} (${service.store.where})\n`,
      );
      const targets = values['all-tenants']
        ? await everyTenant(values, service)
        : [configured ?? (await tenantConnection(values, settings, service))];
      if (!targets.length) throw new Error('no tenant to set up: none is configured or stored');
      let failed = 0;
      for (const { crm, tenant } of targets) {
        try {
          const result = await service.prepareFields(crm, tenant);
          process.stdout.write(
            `${crm} ${tenant}: ${result.created.length} fields created, ${result.existing.length} already there\n` +
              result.created.map((n) => `  + ${n}\n`).join(''),
          );
        } catch (err) {
          // One tenant alone: its failure is the command's (one line, exit 1, as before).
          if (targets.length === 1) throw err;
          failed++;
          process.stderr.write(`${crm} ${tenant}: failed: ${(err as Error).message}\n`);
        }
      }
      if (failed)
        process.stderr.write(`buyer-intel-sync setup: ${failed} of ${targets.length} tenants failed\n`);
      return failed ? 1 : 0;
    } finally {
      await service.close();
    }
  },
};
