// Salesforce orgs kept as tenants: each on the connector's encrypted token store, so a refreshed
// session is shared by every worker and survives restarts.
import { z } from 'zod';
import type { TenantSupport } from '../descriptor.ts';
import type { SalesforceConfig } from './config.ts';
import { salesforceConnection } from './connection.ts';

export const salesforceTenantSchema = z.object({
  crm: z.literal('salesforce'),
  orgId: z.string().regex(/^00D[a-zA-Z0-9]{12}(?:[a-zA-Z0-9]{3})?$/, 'must be the org id (00D…)'),
  instanceUrl: z.url({ protocol: /^https?$/ }),
  refreshToken: z.string().min(1),
  accessToken: z.string().min(1).optional(),
});
export type SalesforceTenant = z.output<typeof salesforceTenantSchema>;

export const salesforceTenants: TenantSupport<SalesforceTenant, SalesforceConfig> = {
  schema: salesforceTenantSchema,
  idOf: (record) => record.orgId.slice(0, 15),
  async connect(record, config, session, runtime) {
    if (!config)
      throw new Error(
        `Salesforce org ${record.orgId.slice(0, 15)} is stored but SALESFORCE_CLIENT_ID/SECRET are not set`,
      );
    return salesforceConnection(config.app, record, {
      recordCall: runtime.recordCall,
      tokenStore: { redis: runtime.redis, key: session.key, codec: session.codec },
      budget: { redis: runtime.redis, prefix: runtime.prefix },
    });
  },
  cli: {
    usage: 'tenants add salesforce --org-id <00D…> --instance-url <https://…> < {"refreshToken": "..."}',
    idOption: 'org-id',
    options: { 'org-id': 'orgId', 'instance-url': 'instanceUrl' },
    describe: (record) => record.instanceUrl,
  },
};
