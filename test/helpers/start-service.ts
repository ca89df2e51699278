// The one start-up of a service under test: the emulators it talks to (the provider's and every CRM
// emulator of emulators/registry.ts), the service on its own Redis prefix and store, optionally its HTTP
// server, worker, our CRM fields and stored Salesforce orgs; and the one close that removes all of it.
// Test files vary only in what they pass.
import { randomBytes, randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import type { RunningBuyerIntelSandbox } from '../../emulators/buyer-intel/server.ts';
import type { RunningEmulator } from '../../emulators/descriptor.ts';
import type { RunningHubSpotSandbox } from '../../emulators/hubspot/server.ts';
import { EMULATORS } from '../../emulators/registry.ts';
import type { RunningSalesforceSandbox } from '../../emulators/salesforce/server.ts';
import { sandboxSettings } from '../../emulators/settings.ts';
import { DEFAULT_MAPPING } from '../../src/map/default-mapping.ts';
import { fieldDefinitions } from '../../src/map/field-definitions.ts';
import type { Service, ServiceSettings } from '../../src/service/runtime.ts';
import { TokenCipher } from '../../src/tenants/cipher.ts';
import { TenantStore } from '../../src/tenants/store.ts';
import { startSandbox } from './buyer-intel-sandbox.ts';
import { closeService, createTestService } from './service.ts';

export const TEST_REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

export interface TestServiceOptions {
  /** Names the Redis prefix (`test-<name>-<random>`), so a left-over key says which file left it. */
  name: string;
  /** CRM kinds whose emulators not to start (every registered one runs by default). */
  without?: readonly string[];
  worker?: Partial<ServiceSettings['worker']>;
  /** Changes to the settings the emulators give, before the service is created. */
  settings?: (base: ServiceSettings) => ServiceSettings;
  /** Salesforce orgs kept as stored tenants (encrypted in the store), besides the environment's. */
  storedOrgs?: { orgId: string; requestSecrets?: string[] }[];
  /** Create our fields in each CRM first (what `setup` does). */
  fields?: boolean;
  /** Serve HTTP on a free port (`base`). Default true. */
  http?: boolean;
  /** Run the workers in this process. Default false: some tests count what a request queues. */
  startWorker?: boolean;
}

export interface TestService {
  bi: RunningBuyerIntelSandbox;
  /** Every CRM emulator started, by kind. */
  emulators: Record<string, RunningEmulator>;
  /** The HubSpot emulator, typed (undefined when left out: `without`). */
  hs: RunningHubSpotSandbox;
  /** The Salesforce emulator, typed; undefined when left out (`without: ['salesforce']`). */
  sf: RunningSalesforceSandbox | undefined;
  service: Service;
  /** The HTTP server's URL ('' without `http`). */
  base: string;
  prefix: string;
  redisUrl: string;
  close(): Promise<void>;
}

export async function startTestService(options: TestServiceOptions): Promise<TestService> {
  const prefix = `test-${options.name}-${randomUUID().slice(0, 8)}`;
  const wanted = EMULATORS.filter((e) => !options.without?.includes(e.kind));
  const [bi, ...crms] = await Promise.all([startSandbox(), ...wanted.map((e) => e.start())]);
  const emulators = Object.fromEntries(wanted.map((e, i) => [e.kind, crms[i] as RunningEmulator]));
  const hs = emulators.hubspot as RunningHubSpotSandbox;
  const sf = emulators.salesforce as RunningSalesforceSandbox | undefined;
  const closeEmulators = () => Promise.all([bi.close(), ...crms.map((c) => c.close())]);
  let service: Service | undefined;
  try {
    const cipher = options.storedOrgs
      ? TokenCipher.fromBase64(randomBytes(32).toString('base64'))
      : undefined;
    let settings = sandboxSettings(
      { buyerIntel: bi, ...emulators },
      { redisUrl: TEST_REDIS_URL, prefix },
      options.worker ? { worker: options.worker } : {},
    );
    if (cipher) settings = { ...settings, tenants: { cipher } };
    settings = options.settings?.(settings) ?? settings;
    service = await createTestService(settings);
    if (cipher && sf) await storeOrgs(service, cipher, prefix, sf.url, options.storedOrgs ?? []);
    if (options.fields) {
      const fields = fieldDefinitions(DEFAULT_MAPPING);
      for (const [i, emulator] of wanted.entries()) {
        const running = crms[i] as RunningEmulator;
        await service.connector(emulator.kind, emulator.tenantOf(running)).ensureFields(fields);
      }
    }
    const base = options.http === false ? '' : (await service.startHttp(0, '127.0.0.1')).url;
    if (options.startWorker) service.startWorker();
    const running = service;
    return {
      bi,
      emulators,
      hs,
      sf,
      service: running,
      base,
      prefix,
      redisUrl: TEST_REDIS_URL,
      close: async () => {
        await closeService(running, TEST_REDIS_URL, prefix);
        await closeEmulators();
      },
    };
  } catch (err) {
    await closeService(service, TEST_REDIS_URL, prefix);
    await closeEmulators();
    throw err;
  }
}

async function storeOrgs(
  service: Service,
  cipher: TokenCipher,
  prefix: string,
  instanceUrl: string,
  orgs: NonNullable<TestServiceOptions['storedOrgs']>,
): Promise<void> {
  const redis = new Redis(TEST_REDIS_URL, { maxRetriesPerRequest: null });
  try {
    const tenants = new TenantStore(async () => (await service.store.open()).tenants, redis, prefix, cipher);
    for (const org of orgs)
      await tenants.put({
        crm: 'salesforce',
        orgId: org.orgId,
        instanceUrl,
        refreshToken: 'not-used-by-these-tests',
        ...(org.requestSecrets ? { requestSecrets: org.requestSecrets } : {}),
      });
  } finally {
    redis.disconnect();
  }
  await service.loadTenants();
}
