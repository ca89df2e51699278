// One org's connector with the connected app's settings; metrics, the org's budget (what Salesforce
// says is left of its daily API allocation, kept in Redis for every worker), and (for orgs kept as
// tenants) the session on the encrypted token store shared by every worker.
import type { Redis } from 'ioredis';
import { redisCallBudget } from '../call-budget.ts';
import type { CrmRuntime, SecretCodec } from '../descriptor.ts';
import type { SalesforceApp } from './config.ts';
import { createSalesforceConnector, type SalesforceConnector } from './connector.ts';

export function salesforceConnection(
  app: SalesforceApp,
  org: {
    orgId: string;
    instanceUrl: string;
    refreshToken?: string | undefined;
    accessToken?: string | undefined;
  },
  options: {
    recordCall?: CrmRuntime['recordCall'];
    tokenStore?: { redis: Redis; key: string; codec: SecretCodec };
    /** After a refresh: the access token, and the refresh token when the org rotated it. Must not throw. */
    onRefresh?: (accessToken: string, refreshToken: string | undefined) => void;
    /** Where the org's limits are kept (no per-second limit is documented: the daily one only). */
    budget?: { redis: Redis; prefix: string };
  },
): SalesforceConnector {
  return createSalesforceConnector({
    ...app,
    instanceUrl: org.instanceUrl,
    orgId: org.orgId,
    ...(org.refreshToken ? { refreshToken: org.refreshToken } : {}),
    ...(org.accessToken ? { accessToken: org.accessToken } : {}),
    ...(options.tokenStore ? { tokenStore: options.tokenStore } : {}),
    ...(options.onRefresh ? { onRefresh: options.onRefresh } : {}),
    ...(options.recordCall ? { onCall: options.recordCall } : {}),
    ...(options.budget
      ? {
          budget: redisCallBudget({
            ...options.budget,
            crm: 'salesforce',
            // The 15-character form, as events and jobs name the org.
            tenant: org.orgId.slice(0, 15),
          }),
        }
      : {}),
  });
}
