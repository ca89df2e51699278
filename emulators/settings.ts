// Service settings that point at the local sandboxes: what the demo, the benchmark and the end-to-end
// tests run, so all three exercise the same wiring as production.
import type { HubSpotConfig } from '../connectors/hubspot/config.ts';
import type { SalesforceConfig } from '../connectors/salesforce/config.ts';
import { coreSchema } from '../src/config/env.ts';
import { DEFAULT_MAPPING } from '../src/map/default-mapping.ts';
import type { ServiceSettings } from '../src/service/runtime.ts';

/**
 * The provider pace a deployment gets when it sets nothing (BUYER_INTEL_RATE_PER_SECOND, _BURST), read
 * from the config schema: what the demo and the bench's customer runs pace to.
 */
export const SERVICE_PROVIDER_RATE = {
  ratePerSecond: coreSchema.shape.BUYER_INTEL_RATE_PER_SECOND.parse(undefined),
  burst: coreSchema.shape.BUYER_INTEL_BURST.parse(undefined),
} as const;

/** The sandbox org's Outbound Message token (a sandbox value: no secret). */
export const SANDBOX_OUTBOUND_TOKEN = 'sandbox-outbound-token-0000000000000000';

export interface SandboxEndpoints {
  buyerIntel: { url: string; token: string };
  hubspot?: {
    url: string;
    accessToken: string;
    portalId: string | number;
    clientSecret: string;
    appId: string | number;
  };
  salesforce?: {
    url: string;
    orgId: string;
    clientId: string;
    clientSecret: string;
    accessToken: string;
    refreshToken: string;
  };
}

export function sandboxSettings(
  endpoints: SandboxEndpoints,
  base: { redisUrl: string; prefix: string },
  overrides: {
    buyerIntel?: Partial<ServiceSettings['buyerIntel']>;
    signals?: Partial<ServiceSettings['signals']>;
    worker?: Partial<ServiceSettings['worker']>;
  } = {},
): ServiceSettings {
  return {
    buyerIntel: {
      baseUrl: endpoints.buyerIntel.url,
      token: endpoints.buyerIntel.token,
      timeoutMs: 10_000,
      maxAttempts: 4,
      ratePerSecond: 50,
      burst: 50,
      ...overrides.buyerIntel,
    },
    redisUrl: base.redisUrl,
    prefix: base.prefix,
    crms: {
      ...(endpoints.hubspot
        ? {
            hubspot: {
              app: {
                clientSecret: endpoints.hubspot.clientSecret,
                appId: String(endpoints.hubspot.appId),
                basePath: endpoints.hubspot.url,
              },
              portal: {
                portalId: String(endpoints.hubspot.portalId),
                accessToken: endpoints.hubspot.accessToken,
              },
            } satisfies HubSpotConfig,
          }
        : {}),
      ...(endpoints.salesforce
        ? {
            salesforce: {
              app: {
                clientId: endpoints.salesforce.clientId,
                clientSecret: endpoints.salesforce.clientSecret,
                loginUrl: endpoints.salesforce.url,
                apiVersion: '62.0',
              },
              org: {
                orgId: endpoints.salesforce.orgId,
                instanceUrl: endpoints.salesforce.url,
                accessToken: endpoints.salesforce.accessToken,
                refreshToken: endpoints.salesforce.refreshToken,
                // Outbound Messages must carry it: point the emulator at `…/webhooks/salesforce?token=`.
                outboundTokens: [SANDBOX_OUTBOUND_TOKEN],
              },
            } satisfies SalesforceConfig,
          }
        : {}),
    },
    mapping: DEFAULT_MAPPING,
    match: { acceptThreshold: 0.75, ambiguityMargin: 0.1 },
    signals: {
      filterType: [],
      status: [],
      period: 'LastThreeMonths',
      sort: 'Date',
      maxNotesPerRun: 5,
      ...overrides.signals,
    },
    worker: { concurrency: 10, attempts: 5, writeBatchWaitMs: 0, ...overrides.worker },
  };
}
