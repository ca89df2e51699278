// Service settings that point at the local sandboxes: what the demo, the benchmark and the end-to-end
// tests run, so all three exercise the same wiring as production. Each CRM's section comes from its
// emulator's descriptor (emulators/registry.ts).
import { coreSchema } from '../src/config/env.ts';
import { DEFAULT_MAPPING } from '../src/map/default-mapping.ts';
import type { ServiceSettings } from '../src/service/runtime.ts';
import { EMULATORS } from './registry.ts';

/**
 * The provider pace a deployment gets when it sets nothing (BUYER_INTEL_RATE_PER_SECOND, _BURST), read
 * from the config schema: what the demo and the bench's customer runs pace to.
 */
export const SERVICE_PROVIDER_RATE = {
  ratePerSecond: coreSchema.shape.BUYER_INTEL_RATE_PER_SECOND.parse(undefined),
  burst: coreSchema.shape.BUYER_INTEL_BURST.parse(undefined),
} as const;

/**
 * The provider's endpoint, and under each CRM kind the emulator (or its plain data) to point that CRM
 * at: what emulators/registry.ts's descriptor of the kind reads. A kind left out is not configured.
 */
export interface SandboxEndpoints {
  buyerIntel: { url: string; token: string };
  [kind: string]: unknown;
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
    crms: Object.fromEntries(
      EMULATORS.flatMap((emulator) => {
        const endpoint = endpoints[emulator.kind];
        return endpoint ? [[emulator.kind, emulator.settings(endpoint)]] : [];
      }),
    ),
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
