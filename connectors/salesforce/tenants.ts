// Salesforce orgs kept as tenants: each on the connector's encrypted token store, so a refreshed
// session is shared by every worker and survives restarts.
import { z } from 'zod';
import type { TenantSupport } from '../descriptor.ts';
import { OUTBOUND_TOKEN_PROBLEM, outboundTokensSchema, type SalesforceConfig } from './config.ts';
import { salesforceConnection } from './connection.ts';
import { salesforceTenantState } from './connection-state.ts';
import { id15, isSalesforceId } from './ids.ts';

export const salesforceTenantSchema = z.object({
  crm: z.literal('salesforce'),
  orgId: z
    .string()
    .refine((id) => isSalesforceId(id, '00D'), 'must be the org id (00D…, 15 or 18 characters, checksum)'),
  instanceUrl: z.url({ protocol: /^https?$/ }),
  refreshToken: z.string().min(1),
  accessToken: z.string().min(1).optional(),
  /** The tokens its Outbound Messages carry in the endpoint URL (`?token=`): one, or two while rotating. */
  outboundTokens: z.array(z.string()).max(2).pipe(outboundTokensSchema(OUTBOUND_TOKEN_PROBLEM)).optional(),
  /** The secrets its quick action signs with (this org's own: they act on it alone); two while rotating. */
  requestSecrets: z
    .array(z.string().min(32, 'each request secret must be at least 32 characters'))
    .max(2, 'at most two request secrets: the current one and the next')
    .optional(),
});
export type SalesforceTenant = z.output<typeof salesforceTenantSchema>;

export const salesforceTenants: TenantSupport<SalesforceTenant, SalesforceConfig> = {
  schema: salesforceTenantSchema,
  idOf: (record) => id15(record.orgId),
  inboundSecrets: (record) => record.outboundTokens ?? [],
  requestSecrets: (record) => record.requestSecrets ?? [],
  async connect(record, config, session, runtime) {
    if (!config)
      throw new Error(
        `Salesforce org ${id15(record.orgId)} is stored but SALESFORCE_CLIENT_ID/SECRET are not set`,
      );
    return salesforceConnection(config.app, record, {
      recordCall: runtime.recordCall,
      tokenStore: { redis: runtime.redis, key: session.key, codec: session.codec },
      // An org that rotates refresh tokens revokes the one in the record: keep the new one there.
      onRefresh: (_, refreshToken) => {
        if (!refreshToken || refreshToken === record.refreshToken || !session.keepRefreshToken) return;
        session.keepRefreshToken(refreshToken).then(
          () => {
            record.refreshToken = refreshToken;
          },
          (err: unknown) =>
            runtime.log.warn('could not keep the rotated refresh token', {
              org: id15(record.orgId),
              reason: (err as Error).message,
            }),
        );
      },
      budget: { redis: runtime.redis, prefix: runtime.prefix },
    });
  },
  state: salesforceTenantState,
  cli: {
    usage:
      'tenants add salesforce --org-id <00D…> --instance-url <https://…> < {"refreshToken": "...", "outboundTokens": ["<32+ characters>"], "requestSecrets": ["<32+ characters>"]}',
    idOption: 'org-id',
    options: { 'org-id': 'orgId', 'instance-url': 'instanceUrl' },
    describe: (record) => record.instanceUrl,
  },
};
