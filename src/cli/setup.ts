import { loadEnv } from '../config/env.ts';
import { fieldDefinitions, idFieldDefinitions } from '../map/field-definitions.ts';
import { createService } from '../service/runtime.ts';
import { settingsFromEnv } from '../service/settings.ts';
import type { CommandBody } from './command.ts';
import { crmChoices, crmConnection } from './crm-option.ts';
import { requireRedis } from './redis-check.ts';

export const setupCommand: CommandBody = {
  usage: `buyer-intel-sync setup [--crm ${crmChoices()}]

Applies the database's pending migrations (as \`migrate\` does, without importing from Redis), then
creates the "Buyer Intelligence" property group and one property per mapped field plus the match
provenance fields, where missing, and the text fields that hold an account's ids (NCES, IPEDS,
Census, buyer id) when they are ours (HUBSPOT_ID_PROPERTIES / SALESFORCE_ID_FIELDS name them). Safe
to run again. Reads the environment (see .env.example).`,
  options: { crm: { type: 'string' } },
  async run(values) {
    const settings = await settingsFromEnv(loadEnv());
    const { crm, tenant } = crmConnection(values.crm, settings);
    await requireRedis(settings.redisUrl, settings.prefix);
    const service = createService(settings);
    try {
      const applied = await service.store.migrate();
      process.stdout.write(
        `database: ${applied.length ? `applied ${applied.join(', ')}` : 'schema up to date'} (${service.store.where})\n`,
      );
      const connector = service.connector(crm, tenant);
      const ids = idFieldDefinitions(connector.idFields ?? [], settings.mapping);
      if (ids.problems.length) throw new Error(ids.problems.join('; '));
      const result = await connector.ensureFields([
        ...fieldDefinitions(settings.mapping),
        ...ids.definitions,
      ]);
      process.stdout.write(
        `${crm} ${tenant}: ${result.created.length} fields created, ${result.existing.length} already there\n` +
          result.created.map((n) => `  + ${n}\n`).join(''),
      );
      return 0;
    } finally {
      await service.close();
    }
  },
};
