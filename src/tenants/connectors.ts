// Connectors for the CRM connections kept in Redis (tenants): HubSpot portals installed through the
// app's OAuth (a token refreshed once across workers, under the Redis lock) or added by hand, and
// Salesforce orgs on the connector's encrypted token store. The apps' own credentials come from config.
import type { Redis } from 'ioredis';
import type { CallBudget } from '../../connectors/call-budget.ts';
import { createConnector } from '../../connectors/registry.ts';
import {
  createSalesforceConnector,
  type SalesforceConnectorOptions,
} from '../../connectors/salesforce/connector.ts';
import { CrmAuthError, type CrmConnector } from '../../connectors/types.ts';
import type { TokenCipher } from './cipher.ts';
import { hubspotTokenRefresher } from './hubspot-oauth.ts';
import { refreshingConnector } from './refreshing-connector.ts';
import { type TenantRecord, type TenantStore, tenantIdOf } from './store.ts';

export interface TenantApps {
  cipher: TokenCipher;
  hubspotApp?: {
    clientId?: string | undefined;
    clientSecret: string;
    basePath: string;
    callsPer10s?: number | undefined;
  };
  salesforceApp?: Pick<
    SalesforceConnectorOptions,
    'clientId' | 'clientSecret' | 'loginUrl' | 'apiVersion' | 'notes'
  >;
}

type CallEvent = { operation: string; status: number | string; durationMs: number };

export function tenantConnectorFactory(deps: {
  apps: TenantApps;
  store: TenantStore;
  redis: Redis;
  hubspotBudget: (portalId: string, callsPer10s: number | undefined) => { budget?: CallBudget };
  recordCall: (api: 'hubspot' | 'salesforce', event: CallEvent) => void;
}): (record: TenantRecord) => Promise<CrmConnector> {
  const { apps: t, store, redis, hubspotBudget, recordCall } = deps;
  return async (record) => {
    const id = tenantIdOf(record);
    const sessionKey = store.sessionKey(record.crm, id);
    const codec = t.cipher.codec(sessionKey);
    if (record.crm === 'hubspot') {
      const app = t.hubspotApp;
      if (!app) throw new Error(`HubSpot portal ${id} is stored but HUBSPOT_CLIENT_SECRET is not set`);
      const refresher =
        record.refreshToken && app.clientId
          ? hubspotTokenRefresher({
              basePath: app.basePath,
              clientId: app.clientId,
              clientSecret: app.clientSecret,
              redis: redis,
              key: sessionKey,
              codec,
              refreshToken: record.refreshToken,
            })
          : undefined;
      return refreshingConnector({
        initialToken: (await refresher?.current()) ?? record.accessToken,
        build: (accessToken) =>
          createConnector('hubspot', {
            accessToken,
            portalId: record.portalId,
            basePath: app.basePath,
            ...hubspotBudget(record.portalId, app.callsPer10s),
            onCall: (e) => recordCall('hubspot', e),
          }),
        refresh: async (stale) => {
          if (!refresher)
            throw new CrmAuthError(
              `HubSpot portal ${id}: the token expired and there is no refresh token (or HUBSPOT_CLIENT_ID) to renew it`,
              401,
            );
          return refresher.refresh(stale);
        },
      });
    }
    const app = t.salesforceApp;
    if (!app) throw new Error(`Salesforce org ${id} is stored but SALESFORCE_CLIENT_ID/SECRET are not set`);
    return createSalesforceConnector({
      ...app,
      instanceUrl: record.instanceUrl,
      orgId: record.orgId,
      refreshToken: record.refreshToken,
      ...(record.accessToken ? { accessToken: record.accessToken } : {}),
      tokenStore: { redis: redis, key: sessionKey, codec },
      onCall: (e) => recordCall('salesforce', e),
    });
  };
}
