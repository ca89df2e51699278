// One portal's connector with the app's limits: HubSpot counts calls per app and portal over a rolling
// 10 s, so every worker spends one budget per portal kept in Redis; it also keeps what HubSpot's
// answers say is left (the window, and the daily allocation of private apps).
import { redisCallBudget } from '../call-budget.ts';
import type { CrmRuntime } from '../descriptor.ts';
import { recordRefusal } from '../permission-refusals.ts';
import type { CrmConnector } from '../types.ts';
import type { HubSpotApp } from './config.ts';
import { createHubSpotConnector } from './connector.ts';
import { HUBSPOT_CALL_SCOPES } from './scopes.ts';

export function hubspotConnection(
  app: HubSpotApp,
  portal: { portalId: string; accessToken: string },
  runtime: CrmRuntime,
): CrmConnector {
  return createHubSpotConnector({
    accessToken: portal.accessToken,
    portalId: portal.portalId,
    basePath: app.basePath,
    ...(app.timeoutMs ? { fetchTimeoutMs: app.timeoutMs } : {}),
    ...(app.idProperties ? { idProperties: app.idProperties } : {}),
    budget: redisCallBudget({
      redis: runtime.redis,
      prefix: runtime.prefix,
      crm: 'hubspot',
      tenant: portal.portalId,
      limit: app.callsPer10s,
      windowMs: 10_000,
    }),
    onCall: (e) => runtime.recordCall({ operation: e.operation, status: e.status, durationMs: e.durationMs }),
    // The record links' domain is no permission the connection lacks (scopes.ts, `links`): refused, the
    // links stay on app.hubspot.com and nothing else is affected.
    onMissingScopes: async (operation, missing) =>
      HUBSPOT_CALL_SCOPES[operation]?.feature === 'links'
        ? undefined
        : recordRefusal(runtime.redis, runtime.prefix, {
            crm: 'hubspot',
            tenant: portal.portalId,
            missing: [...missing],
            operation,
            at: Date.now(),
          }),
  });
}
