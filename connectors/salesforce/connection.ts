// One org's connector with the connected app's settings; metrics, and (for orgs kept as tenants) the
// session on the encrypted token store shared by every worker.
import type { Redis } from 'ioredis';
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
  },
): SalesforceConnector {
  return createSalesforceConnector({
    ...app,
    instanceUrl: org.instanceUrl,
    orgId: org.orgId,
    ...(org.refreshToken ? { refreshToken: org.refreshToken } : {}),
    ...(org.accessToken ? { accessToken: org.accessToken } : {}),
    ...(options.tokenStore ? { tokenStore: options.tokenStore } : {}),
    ...(options.recordCall ? { onCall: options.recordCall } : {}),
  });
}
