// The CRM connections this process serves, by kind and tenant: those the configuration names and those
// kept in the database as tenants. Everything CRM-specific comes from the registry's descriptors.

import type { CrmRuntime, EventSource } from '../../connectors/descriptor.ts';
import { CRMS, crmOf } from '../../connectors/registry.ts';
import type { CrmConnector, CrmKind } from '../../connectors/types.ts';
import type { TenantStore } from '../tenants/store.ts';
import { tenantIdOf } from '../tenants/store.ts';

export class CrmConnections {
  readonly #byKey = new Map<string, CrmConnector>();
  readonly #configured = new Set<string>();
  /** Each tenant's inbound secrets (e.g. a Salesforce org's outbound tokens), by connection key. */
  readonly #inboundSecrets = new Map<string, readonly string[]>();
  /** Each tenant's request-signing secrets (e.g. a Salesforce org's quick-action secrets), by key. */
  readonly #requestSecrets = new Map<string, readonly string[]>();
  readonly #sources: EventSource[] = [];
  readonly #crms: Record<string, unknown>;
  readonly #runtime: (crm: CrmKind) => CrmRuntime;
  readonly #store: TenantStore | undefined;

  constructor(options: {
    crms: Record<string, unknown>;
    runtime: (crm: CrmKind) => CrmRuntime;
    store?: TenantStore | undefined;
  }) {
    this.#crms = options.crms;
    this.#runtime = options.runtime;
    this.#store = options.store;
    for (const [kind, config] of Object.entries(options.crms)) {
      const built = crmOf(kind).connect(config, this.#runtime(kind));
      for (const { tenant, connector, inboundSecrets, requestSecrets } of built.connections) {
        this.#byKey.set(this.#key(kind, tenant), connector);
        this.#configured.add(this.#key(kind, tenant));
        if (inboundSecrets) this.#inboundSecrets.set(this.#key(kind, tenant), inboundSecrets);
        if (requestSecrets) this.#requestSecrets.set(this.#key(kind, tenant), requestSecrets);
      }
      this.#sources.push(...built.eventSources);
    }
    if (!this.#byKey.size && !this.#store)
      throw new Error(
        `no CRM connection configured: give the settings of ${CRMS.map((c) => c.label).join(' or ')}, or tenants`,
      );
  }

  /** Connections are keyed by each CRM's canonical tenant id (e.g. a 15-character Salesforce org id). */
  #key(crm: CrmKind, tenant: string): string {
    return `${crm}:${crmOf(crm).tenantId(tenant) ?? tenant}`;
  }

  /** The configured CRM kinds (their settings given), whether or not a connection is up yet. */
  kinds(): string[] {
    return Object.keys(this.#crms);
  }

  configOf(crm: CrmKind): unknown {
    return this.#crms[crm];
  }

  get eventSources(): readonly EventSource[] {
    return this.#sources;
  }

  has(crm: CrmKind, tenant: string): boolean {
    return this.#byKey.has(this.#key(crm, tenant));
  }

  /** A tenant kept in the database (added with `tenants add` or an install), not named by the configuration. */
  isStored(crm: CrmKind, tenant: string): boolean {
    const key = this.#key(crm, tenant);
    return this.#byKey.has(key) && !this.#configured.has(key);
  }

  /** The secrets a tenant's deliveries must carry (its configuration's and its stored record's). */
  inboundSecretsOf(crm: CrmKind, tenant: string): readonly string[] {
    return this.#inboundSecrets.get(this.#key(crm, tenant)) ?? [];
  }

  /** The secrets a tenant's own signed API calls use (its configuration's or its stored record's). */
  requestSecretsOf(crm: CrmKind, tenant: string): readonly string[] {
    return this.#requestSecrets.get(this.#key(crm, tenant)) ?? [];
  }

  get(crm: CrmKind, tenant: string): CrmConnector {
    const connector = this.#byKey.get(this.#key(crm, tenant));
    if (!connector) throw new Error(`no ${crm} connection for ${tenant}`);
    return connector;
  }

  tenantsOf(crm: CrmKind): string[] {
    return [...this.#byKey.keys()].filter((k) => k.startsWith(`${crm}:`)).map((k) => k.slice(crm.length + 1));
  }

  /** Adds the tenants stored in the database, drops removed ones; configured (environment) tenants stay. */
  async loadTenants(): Promise<{ loaded: string[]; unreadable: { field: string; reason: string }[] }> {
    if (!this.#store) return { loaded: [], unreadable: [] };
    const { tenants, unreadable } = await this.#store.list();
    const seen = new Set<string>();
    for (const record of tenants) {
      const id = tenantIdOf(record);
      const key = this.#key(record.crm, id);
      seen.add(key);
      const support = crmOf(record.crm).tenants;
      if (!support) continue;
      // Read on every load, so a rotated token is taken without a restart.
      if (!this.#configured.has(key)) {
        this.#inboundSecrets.set(key, support.inboundSecrets?.(record) ?? []);
        this.#requestSecrets.set(key, support.requestSecrets?.(record) ?? []);
      }
      if (this.#byKey.has(key)) continue;
      const runtime = this.#runtime(record.crm);
      const session = this.#store.session(record.crm, id, record);
      this.#byKey.set(key, await support.connect(record, this.#crms[record.crm], session, runtime));
    }
    for (const key of [...this.#byKey.keys()])
      if (!this.#configured.has(key) && !seen.has(key)) {
        this.#byKey.delete(key);
        this.#inboundSecrets.delete(key);
        this.#requestSecrets.delete(key);
      }
    return { loaded: [...seen], unreadable };
  }
}
