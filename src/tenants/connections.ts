// Every tenant this process serves, as the console's Connections page shows it: its CRM, where its
// credential comes from, the token's state and expiry, the permissions it lacks for what the
// configuration turns on, the last refusal, and where to connect or reinstall. Each CRM's descriptor
// says how its tokens stand (`state`, `configuredState`); the lacks a refused call found (any worker's,
// connectors/permission-refusals.ts) are added to the grant's, so a private-app token that cannot be
// asked what it holds still shows what it lacks. Nothing here carries a token or a secret.
import type { Redis } from 'ioredis';
import type { ConnectionState, CrmFeatures } from '../../connectors/descriptor.ts';
import type { PermissionRefusal } from '../../connectors/permission-refusals.ts';
import { crmOf } from '../../connectors/registry.ts';
import { type TenantStore, tenantIdOf } from './store.ts';

export interface TenantConnection {
  crm: string;
  /** "HubSpot", and what it calls a tenant ("portal"). */
  crmLabel: string;
  tenantNoun: string;
  tenant: string;
  source: 'configured' | 'stored';
  state: ConnectionState;
  /** The newest refusal of the last day. */
  lastError?: { at: number; operation: string; missing: readonly string[] };
}

export interface ConnectionsView {
  tenants: TenantConnection[];
  /** Where a person connects a tenant (or reinstalls one), per CRM that has an install flow. */
  connect: { crmLabel: string; href: string; label: string }[];
  /** Stored tenants that cannot be decrypted or read (`crm:tenant`): not served, so not listed above. */
  unreadable: string[];
}

export interface ServedTenants {
  kinds(): string[];
  tenantsOf(crm: string): string[];
  isStored(crm: string, tenant: string): boolean;
  configOf(crm: string): unknown;
}

const UNKNOWN: ConnectionState = {
  token: 'connected',
  credential: 'not described',
  renews: false,
  missing: [],
};

export async function tenantConnections(options: {
  served: ServedTenants;
  store: TenantStore | undefined;
  redis: Redis;
  features: CrmFeatures;
  refusals: () => Promise<PermissionRefusal[]>;
}): Promise<ConnectionsView> {
  const { served, store, redis, features } = options;
  const [listed, refusals] = await Promise.all([
    store ? store.list() : { tenants: [], unreadable: [] },
    // What Redis cannot say is left out: the connections still show.
    options.refusals().catch(() => []),
  ]);
  const records = listed.tenants;
  const out: TenantConnection[] = [];
  const links: ConnectionsView['connect'] = [];
  for (const crm of served.kinds()) {
    const descriptor = crmOf(crm);
    const config = served.configOf(crm);
    const connect = descriptor.connectLink?.(config);
    if (connect) links.push({ crmLabel: descriptor.label, ...connect });
    for (const tenant of served.tenantsOf(crm).sort()) {
      const stored = served.isStored(crm, tenant);
      const record = stored ? records.find((r) => r.crm === crm && tenantIdOf(r) === tenant) : undefined;
      let state = UNKNOWN;
      if (record && store && descriptor.tenants?.state)
        state = await descriptor.tenants.state(record, store.session(crm, tenant), { redis }, features);
      else if (!stored && descriptor.configuredState)
        state = descriptor.configuredState(config, tenant, features);
      const mine = refusals.filter((r) => r.crm === crm && r.tenant === tenant);
      const known = new Set(state.missing.map((m) => m.scope));
      const refused = mine.flatMap((r) =>
        // A refusal names the permissions any one of which would do: shown together, once.
        known.has(r.missing.join(' or ')) || r.missing.some((m) => known.has(m))
          ? []
          : [{ scope: r.missing.join(' or '), neededFor: `refused: ${r.operation}` }],
      );
      const newest = mine[0];
      out.push({
        crm,
        crmLabel: descriptor.label,
        tenantNoun: descriptor.tenantNoun,
        tenant,
        source: stored ? 'stored' : 'configured',
        state: { ...state, missing: [...state.missing, ...dedupe(refused)] },
        ...(newest
          ? { lastError: { at: newest.at, operation: newest.operation, missing: newest.missing } }
          : {}),
      });
    }
  }
  return { tenants: out, connect: links, unreadable: listed.unreadable.map((u) => u.field) };
}

function dedupe<T extends { scope: string }>(items: T[]): T[] {
  const seen = new Set<string>();
  return items.filter((i) => !seen.has(i.scope) && seen.add(i.scope));
}
