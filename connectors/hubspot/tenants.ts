// HubSpot portals kept as tenants: installed through the app's OAuth (the access token refreshed once
// across workers, under the Redis lock) or added by hand with a private-app token.
import { z } from 'zod';
import type { CrmRuntime, TenantSession, TenantSupport } from '../descriptor.ts';
import { refreshingConnector } from '../refreshing-connector.ts';
import { CrmAuthError, type CrmConnector } from '../types.ts';
import type { HubSpotConfig } from './config.ts';
import { hubspotConnection } from './connection.ts';
import { hubspotTenantState } from './connection-state.ts';
import { hubspotTokenRefresher } from './oauth.ts';

export const hubspotTenantSchema = z.object({
  crm: z.literal('hubspot'),
  portalId: z.string().regex(/^\d+$/, 'must be the numeric portal id'),
  accessToken: z.string().min(1),
  /** OAuth installs: refreshed under a lock when the access token expires. Private apps have none. */
  refreshToken: z.string().min(1).optional(),
  /** What the install's grant held and when its first access token expires: for the console only. */
  scopes: z.array(z.string()).optional(),
  accessTokenExpiresAt: z.number().int().optional(),
});
export type HubSpotTenant = z.output<typeof hubspotTenantSchema>;

export const hubspotTenants: TenantSupport<HubSpotTenant, HubSpotConfig> = {
  schema: hubspotTenantSchema,
  idOf: (record) => record.portalId,
  async connect(record, config, session: TenantSession, runtime: CrmRuntime): Promise<CrmConnector> {
    const id = record.portalId;
    const app = config?.app;
    if (!app) throw new Error(`HubSpot portal ${id} is stored but HUBSPOT_CLIENT_SECRET is not set`);
    const refresher =
      record.refreshToken && app.clientId
        ? hubspotTokenRefresher({
            basePath: app.basePath,
            clientId: app.clientId,
            clientSecret: app.clientSecret,
            redis: runtime.redis,
            key: session.key,
            codec: session.codec,
            refreshToken: record.refreshToken,
          })
        : undefined;
    return refreshingConnector({
      initialToken: (await refresher?.current()) ?? record.accessToken,
      build: (accessToken) => hubspotConnection(app, { portalId: id, accessToken }, runtime),
      refresh: async (stale) => {
        if (!refresher)
          throw new CrmAuthError(
            `HubSpot portal ${id}: the token expired and there is no refresh token (or HUBSPOT_CLIENT_ID) to renew it`,
            401,
          );
        return refresher.refresh(stale);
      },
    });
  },
  state: hubspotTenantState,
  cli: {
    usage: 'tenants add hubspot --portal-id <id> < {"accessToken": "...", "refreshToken": "..."}',
    idOption: 'portal-id',
    options: { 'portal-id': 'portalId' },
    describe: (record) => (record.refreshToken ? 'oauth' : 'private app'),
  },
};
