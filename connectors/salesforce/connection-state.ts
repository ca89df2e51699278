// What the console's Connections page says of a Salesforce org: its session is renewed with the
// refresh token whenever Salesforce ends it (the org's session timeout, which the token answer does not
// state), so the only expiry a person acts on is a revoked refresh token, which shows as the last error.
// Salesforce grants a connected app's OAuth scopes as a whole (api, refresh_token): a missing object or
// field permission is found by the call it refuses (permission-refusals.ts).
import type { ConnectionState } from '../descriptor.ts';
import type { SalesforceConfig } from './config.ts';

export function salesforceConfiguredState(config: SalesforceConfig): ConnectionState {
  const renews = Boolean(config.org?.refreshToken);
  return {
    token: 'connected',
    credential: renews
      ? 'connected app, refresh token from SALESFORCE_REFRESH_TOKEN'
      : 'access token from the environment',
    renews,
    missing: [],
  };
}

export async function salesforceTenantState(): Promise<ConnectionState> {
  return { token: 'connected', credential: 'connected app (OAuth refresh token)', renews: true, missing: [] };
}
