// What the console's Connections page says of a HubSpot portal: an OAuth install's access token lives
// 30 minutes and renews itself with the refresh token; a private-app token never expires. The scopes
// are the grant HubSpot named at install or at the last refresh (kept beside the session, encrypted),
// compared with what the enabled features need. A private-app token cannot be asked what it holds:
// its lacks show up as refusals (permission-refusals.ts), which the core adds.
import type { ConnectionState, CrmFeatures, CrmRuntime, TenantSession } from '../descriptor.ts';
import { readStoredToken } from '../token-refresh.ts';
import { missingHubSpotScopes } from './scopes.ts';

const PRIVATE_APP: Omit<ConnectionState, 'missing'> = {
  token: 'connected',
  credential: 'private-app token (does not expire)',
  renews: false,
};

export function hubspotConfiguredState(): ConnectionState {
  return { ...PRIVATE_APP, credential: 'private-app token from HUBSPOT_ACCESS_TOKEN', missing: [] };
}

/** What a stored portal's record says (tenants.ts's schema), without importing it: no cycle. */
interface PortalRecord {
  refreshToken?: string | undefined;
  scopes?: string[] | undefined;
  accessTokenExpiresAt?: number | undefined;
}

export async function hubspotTenantState(
  record: PortalRecord,
  session: TenantSession,
  runtime: Pick<CrmRuntime, 'redis'>,
  features: CrmFeatures,
  now = Date.now(),
): Promise<ConnectionState> {
  if (!record.refreshToken) return { ...PRIVATE_APP, missing: [] };
  // The session is a cache: without it, the token the install stored is the one in use.
  const stored = await readStoredToken(runtime.redis, session.key, session.codec).catch(() => null);
  const expiresAt = stored ? stored.expiresAt : record.accessTokenExpiresAt;
  const granted = stored?.scopes ?? record.scopes;
  return {
    token: expiresAt === undefined ? 'connected' : expiresAt > now ? 'expiring' : 'expired',
    credential: 'OAuth install',
    ...(expiresAt !== undefined ? { expiresAt } : {}),
    renews: true,
    ...(granted ? { granted } : {}),
    missing: granted ? missingHubSpotScopes(granted, features) : [],
  };
}
