// `doctor` for the portal the environment names: one company read with its private-app token, then a
// read per feature the configuration turns on that needs a scope of its own (notes, owners), so a
// token that lacks one says so here and not on the first webhook. A private-app token cannot be asked
// what it holds (HubSpot's introspection serves OAuth tokens), and a write cannot be tried without
// changing the portal: write scopes are confirmed by the first write, which names a missing one.
import { withTimeout } from '../../src/shared/deadline.ts';
import { isIntegrationError } from '../../src/shared/errors.ts';
import type { CrmFeatures, DoctorCheck } from '../descriptor.ts';
import { CrmAuthError } from '../types.ts';
import { createHubSpotCalls, type HubSpotCalls } from './client.ts';
import type { HubSpotConfig } from './config.ts';
import { listAccounts } from './read.ts';
import { hubspotScopes, missingHubSpotScopes } from './scopes.ts';

/** One read per scope a feature adds; each is in HUBSPOT_CALL_SCOPES. */
const PROBES: {
  feature: keyof CrmFeatures;
  scope: string;
  read: (calls: HubSpotCalls) => Promise<unknown>;
}[] = [
  {
    feature: 'notes',
    scope: 'crm.objects.contacts.read',
    read: (calls) =>
      calls.call('crm.objects.notes.basicApi.getPage', () =>
        calls.notes.basicApi.getPageWithHttpInfo(1, undefined, [], undefined, undefined, false),
      ),
  },
  {
    feature: 'owners',
    scope: 'crm.objects.owners.read',
    read: (calls) =>
      calls.call('crm.owners.ownersApi.getPage', () =>
        calls.owners.ownersApi.getPageWithHttpInfo(undefined, undefined, 1, false),
      ),
  },
];

export async function hubspotDoctor(
  config: HubSpotConfig,
  timeoutMs: number,
  features: CrmFeatures,
): Promise<DoctorCheck> {
  const { portal, app } = config;
  if (!portal) return { status: 'pass', detail: 'app credentials only (portals come from tenants)' };
  const calls = createHubSpotCalls({
    accessToken: portal.accessToken,
    basePath: app.basePath,
    fetchTimeoutMs: timeoutMs,
  });
  let n: number;
  try {
    n = (await withTimeout(listAccounts(calls, [], { limit: 1 }), timeoutMs, 'list companies')).accounts
      .length;
  } catch (err) {
    const why = err instanceof Error ? err.message : String(err);
    return {
      status: 'fail',
      detail:
        err instanceof CrmAuthError && !err.missingPermissions
          ? `HUBSPOT_ACCESS_TOKEN was refused: ${why}`
          : why,
    };
  }
  const lacking: string[] = [];
  const confirmed: string[] = [];
  for (const probe of PROBES.filter((p) => features[p.feature])) {
    try {
      await withTimeout(probe.read(calls), timeoutMs, probe.scope);
      confirmed.push(probe.scope);
    } catch (err) {
      if (isIntegrationError(err) && err.missingPermissions) lacking.push(probe.scope);
      else throw err;
    }
  }
  const read = `read ${n} compan${n === 1 ? 'y' : 'ies'} of portal ${portal.portalId} at ${app.basePath}`;
  // What the reads showed missing; the rest is taken as granted until a call says otherwise.
  const missing = missingHubSpotScopes(
    hubspotScopes(features).filter((s) => !lacking.includes(s)),
    features,
  );
  if (missing.length)
    return {
      status: 'fail',
      detail: `${read}, but HUBSPOT_ACCESS_TOKEN lacks ${missing.map((m) => m.scope).join(', ')}: add ${missing.length === 1 ? 'it' : 'them'} to the private app's scopes`,
      more: missing.map((m) => `${m.scope}: needed for ${m.neededFor}`),
    };
  return {
    status: 'pass',
    detail: `${read}${confirmed.length ? `; ${confirmed.join(', ')} confirmed by a read` : ''}; write scopes are confirmed by the first write`,
  };
}
