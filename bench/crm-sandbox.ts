// The CRM emulator of a backfill run at the real limits (HubSpot: a Professional private app's 190 / 10 s
// and 625,000 a day; Salesforce: an Enterprise org's 100,000 a day), and how its existing accounts are
// put in its store directly (they cost no API call).
import { startHubSpotSandbox } from '../emulators/hubspot/server.ts';
import { startSalesforceSandbox } from '../emulators/salesforce/server.ts';
import type { SandboxEndpoints } from '../emulators/settings.ts';
import { HUBSPOT_CAPACITY, SALESFORCE_CAPACITY } from './bound.ts';

export async function crmSandbox(kind: 'hubspot' | 'salesforce', latencyMs: number) {
  const faults = { latencyMs };
  if (kind === 'hubspot') {
    const hs = await startHubSpotSandbox({
      rateLimits: { tenSecondly: HUBSPOT_CAPACITY.requestsPer10s, daily: HUBSPOT_CAPACITY.daily },
      faults,
    });
    return {
      endpoints: { hubspot: hs } satisfies Partial<SandboxEndpoints>,
      tenant: String(hs.portalId),
      stats: hs.stats,
      limits: {
        requestsPer10s: HUBSPOT_CAPACITY.requestsPer10s,
        daily: HUBSPOT_CAPACITY.daily,
      } as Record<string, number>,
      seed: (a: { name: string; state: string; domain?: string }) =>
        hs.store.createCompany(
          { name: a.name, ...(a.state ? { state: a.state } : {}), ...(a.domain ? { domain: a.domain } : {}) },
          { source: 'CRM_UI' },
        ),
      close: () => hs.close(),
    };
  }
  const sf = await startSalesforceSandbox({ dailyApiRequests: SALESFORCE_CAPACITY.dailyRequests, faults });
  return {
    endpoints: { salesforce: sf } satisfies Partial<SandboxEndpoints>,
    tenant: sf.orgId,
    stats: sf.stats,
    limits: { dailyRequests: SALESFORCE_CAPACITY.dailyRequests } as Record<string, number>,
    seed: (a: { name: string; state: string; domain?: string }) =>
      sf.store.create('Account', {
        Name: a.name,
        ...(a.state ? { BillingState: a.state } : {}),
        ...(a.domain ? { Website: `https://www.${a.domain}` } : {}),
      }),
    close: () => sf.close(),
  };
}
