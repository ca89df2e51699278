// One portal's connector with the app's limits: HubSpot counts calls per app and portal over a rolling
// 10 s, so every worker spends one budget per portal kept in Redis; it also keeps what HubSpot's
// answers say is left (the window, and the daily allocation of private apps).
import { redisCallBudget } from '../call-budget.ts';
import type { CrmRuntime } from '../descriptor.ts';
import { recordRefusal } from '../permission-refusals.ts';
import type { CrmConnector } from '../types.ts';
import type { HubSpotApp } from './config.ts';
import { createHubSpotConnector } from './connector.ts';

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
    onMissingScopes: (operation, missing) =>
      recordRefusal(runtime.redis, runtime.prefix, {
        crm: 'hubspot',
        tenant: portal.portalId,
        missing: [...missing],
        operation,
        at: Date.now(),
      }),
  });
}
