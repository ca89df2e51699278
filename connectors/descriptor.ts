// What one CRM supplies to the service: everything CRM-specific, behind one descriptor per folder
// (connectors/<crm>/index.ts) and one line in the registry. The core builds connections, mounts
// webhooks, authenticates CRM-signed API calls, stores tenants and runs doctor checks only through
// this, so it never names a CRM. No SDK type appears here.
import type { Router } from 'express';
import type { Redis } from 'ioredis';
import type { z } from 'zod';
import type { LogPort } from '../src/shared/log.ts';
import type { AccountEvent, CrmConnector, InboundEventHandler, InboundRequest } from './types.ts';

/** What the service lends a CRM's slice: shared infrastructure, never another CRM's state. */
export interface CrmRuntime {
  /** A connection for locks, budgets and token stores (never used for blocking commands). */
  redis: Redis;
  /** Namespace of this install's Redis keys. */
  prefix: string;
  /** One upstream call finished (for metrics). */
  recordCall(event: { operation: string; status: number | string; durationMs: number }): void;
  log: LogPort;
}

/** Encrypts what a tenant's connector stores about itself (refreshed tokens), bound to that tenant. */
export interface SecretCodec {
  encode(plain: string): string;
  decode(blob: string): string;
}

export interface TenantSession {
  key: string;
  codec: SecretCodec;
  /**
   * Keeps a rotated refresh token in the tenant's record (the database): the session under `key` is a
   * cache Redis may lose, and the refresh token the record holds is revoked once rotated.
   */
  keepRefreshToken?: (refreshToken: string) => Promise<void>;
}

/** A source of account events that is not an HTTP delivery, e.g. a streaming subscription. */
export interface EventSource {
  readonly name: string;
  /** Starts delivering; `emit` resolves once the events are safely queued. */
  start(emit: (events: AccountEvent[]) => Promise<void>): Promise<{ close(): Promise<void> }>;
}

/** The connections a configuration names, and their event sources. */
export interface CrmConnections {
  /** `inboundSecrets`: what the tenant's deliveries must carry (e.g. an outbound-message token). */
  /** `requestSecrets`: what the tenant's own signed API calls are signed with (e.g. a quick action's). */
  connections: {
    tenant: string;
    connector: CrmConnector;
    inboundSecrets?: readonly string[];
    requestSecrets?: readonly string[];
  }[];
  eventSources: EventSource[];
}

/**
 * Who signed an API request from inside the CRM (the card, the quick action): the tenant, and the CRM
 * user when the signature covers one (recorded as who made a review decision).
 */
export type SignedCaller =
  | { ok: true; tenant?: string | undefined; user?: string | undefined }
  | { ok: false; message: string };

/** What a signed-request check knows of the tenants served: each one's own secrets. */
export interface SignedTenants {
  /** The tenants served now (each CRM's canonical ids). */
  tenants(): readonly string[];
  /** The secrets that tenant's signed calls may use: a signature made with them acts on it alone. */
  requestSecretsOf(id: string): readonly string[];
}

export interface SignedRequests {
  /** The lower-case header whose presence says the request claims this CRM's signature. */
  header: string;
  /** Checks the signature over the raw request (and any replay protection). */
  verify(request: InboundRequest): Promise<SignedCaller>;
}

/** CRM connections kept in Redis (several portals / orgs), credentials encrypted by the core. */
export interface TenantSupport<T extends { crm: string }, C = unknown> {
  /** A stored record, credentials included. */
  schema: z.ZodType<T>;
  idOf(record: T): string;
  /** The secrets the tenant's deliveries must carry (e.g. its outbound-message tokens), from its record. */
  inboundSecrets?(record: T): readonly string[];
  /** The secrets the tenant's own signed API calls are signed with (one, or two while rotating). */
  requestSecrets?(record: T): readonly string[];
  /** `session`: where the connector keeps what it refreshes (a Redis key, values encrypted by `codec`). */
  /** `config`: the CRM's configuration (its app credentials), none when the environment lacks it. */
  connect(
    record: T,
    config: C | undefined,
    session: TenantSession,
    runtime: CrmRuntime,
  ): Promise<CrmConnector>;
  /** `tenants add <kind>`: its options (option → record member) and the credentials read from stdin. */
  /** The console's view of a stored tenant's connection, from its record and its cached session. */
  state?(
    record: T,
    session: TenantSession,
    runtime: Pick<CrmRuntime, 'redis'>,
    features: CrmFeatures,
  ): Promise<ConnectionState>;
  cli: {
    /** The usage lines of `tenants add|remove <kind>`. */
    usage: string;
    /** The option that names the tenant, e.g. `portal-id`. */
    idOption: string;
    options: Record<string, string>;
    /** One line for `tenants list` (never a secret). */
    describe(record: T): string;
  };
}

/**
 * What the service will ask of a CRM beyond reading and updating accounts and their fields, from its
 * configuration: a connector asks for (and checks) the permissions these need, and no more.
 */
export interface CrmFeatures {
  /** Notes on accounts (signals, digests), read back to avoid duplicates and removed on undo. */
  notes: boolean;
  /** Tasks for an account's owner (follow-ups). */
  tasks: boolean;
  /** The CRM's users as owners (follow-ups, the per-owner digest). */
  owners: boolean;
}

export const ALL_CRM_FEATURES: CrmFeatures = { notes: true, tasks: true, owners: true };

export interface HttpContext {
  redis: Redis;
  prefix: string;
  publicBaseUrl: string | undefined;
  /** What the configuration turns on (an install asks for exactly the permissions these need). */
  features: CrmFeatures;
  /** Stores a tenant (validated with the kind's schema, encrypted) and makes the service load it. */
  addTenant?: ((record: { crm: string }) => Promise<void>) | undefined;
}

export interface DoctorCheck {
  status: 'pass' | 'warn' | 'fail';
  detail: string;
  /** Further lines under it (e.g. each missing permission and what needs it). */
  more?: string[];
}

/**
 * How one tenant's connection stands, for the console's Connections page. Never a token or a secret:
 * only what a person needs to act (reinstall, grant a scope).
 */
export interface ConnectionState {
  /** `connected`: no expiry that matters; `expiring`: valid until `expiresAt`; `expired`. */
  token: 'connected' | 'expiring' | 'expired';
  /** The kind of credential, for people: "OAuth install", "private-app token". */
  credential: string;
  /** When the access token expires (ms since epoch), when the CRM said. */
  expiresAt?: number;
  /** A refresh token is kept: an expired access token renews itself on the next call. */
  renews: boolean;
  /** What the grant holds, when the CRM said; undefined when it does not (refusals show what lacks). */
  granted?: readonly string[];
  /** Needed permissions the grant lacks, each with what needs it (for people). */
  missing: readonly { scope: string; neededFor: string }[];
}

export interface CrmDescriptor<C = unknown, T extends { crm: string } = { crm: string }> {
  readonly kind: string;
  /** For people: "HubSpot". */
  readonly label: string;
  /** What the CRM calls an account, for people: "company", "Account". */
  readonly accountNoun: string;
  /** What the CRM calls a tenant, for people: "portal", "org". */
  readonly tenantNoun: string;
  /** The canonical form of a tenant id, or undefined when `raw` is not one. */
  tenantId(raw: string): string | undefined;
  /**
   * The one canonical form of an account id (a Salesforce id's 18 characters, a HubSpot id's decimal
   * text), or undefined when `raw` is not one by its format: every entry (webhook, API, CLI, card)
   * passes an id through this before it goes into a path, a query, a job id or a stored key, so one
   * account never has two rows or two inbound windows.
   */
  accountId(raw: string): string | undefined;
  config: {
    /** This CRM's environment variables, validated in the one configuration schema. */
    variables: z.ZodRawShape;
    /** CONFIG_FILE keys (dotted) → variable names. */
    fileKeys?: Record<string, string>;
    /**
     * From the validated variables (absent ones undefined): the CRM's settings, or none when it is not
     * configured, and a problem per variable a half-done configuration lacks.
     */
    read(
      vars: Record<string, unknown>,
      options: { tenantsInRedis: boolean },
    ): { config?: C; problems: string[] };
    /** How to configure it, for "no CRM configured": e.g. "HUBSPOT_ACCESS_TOKEN, … for HubSpot". */
    hint: string;
  };
  /** The tenant ids the configuration names itself (without connecting). */
  configuredTenants(config: C): string[];
  connect(config: C, runtime: CrmRuntime): CrmConnections;
  tenants?: TenantSupport<T, C>;
  /** Verifies and parses the CRM's deliveries to POST /webhooks/<kind>; none when not configured. */
  webhook?(
    config: C,
    context: {
      isKnownTenant(id: string): boolean;
      /** The secrets a tenant's deliveries must carry (configured, or in its stored record). */
      inboundSecretsOf(id: string): readonly string[];
      /** The tenants served now (each CRM's canonical ids). */
      tenants(): readonly string[];
    },
  ): InboundEventHandler | undefined;
  /** API requests signed by code running inside the CRM; none when not configured. */
  signedRequests?(config: C, runtime: CrmRuntime, tenants: SignedTenants): SignedRequests | undefined;
  /** How those requests are signed, for the OpenAPI document (name → security scheme object). */
  signedRequestScheme?: { name: string; scheme: Record<string, unknown> };
  /** Extra HTTP routes (e.g. an app install flow), mounted at their path. */
  routes?(config: C, context: HttpContext): { path: string; router: Router }[];
  /**
   * `doctor`: one real read with the configured credentials, and whether they hold the permissions the
   * enabled features need.
   */
  doctor?(config: C, timeoutMs: number, features: CrmFeatures): Promise<DoctorCheck>;
  /** The console's view of a tenant the configuration names (its credential is the environment's). */
  configuredState?(config: C, tenant: string, features: CrmFeatures): ConnectionState;
  /** Where a person connects another tenant or reinstalls one (one of `routes`), when configured. */
  connectLink?(config: C): { href: string; label: string } | undefined;
  /** Request headers that carry a secret or signature: redacted from every log line. */
  secretHeaders?: readonly string[];
  /** For the OpenAPI document: what POST /webhooks/<kind> accepts. */
  webhookSummary?: string;
  /**
   * Set when the CRM signs the full URL it calls (its webhooks, its signed API calls): what it signs,
   * for `doctor`'s PUBLIC_BASE_URL line. Those checks rebuild the URL from PUBLIC_BASE_URL, or from
   * each request when it is unset, so a wrong one refuses every delivery (401).
   */
  signsUrl?: string;
}
