// An org that rotates refresh tokens revokes the one a tenant was added with at its first refresh. The
// new one is kept in the tenant's record in the database, not only in the session Redis caches: after
// Redis lost every key of the service, a new process (same database) still connects the org.
import { randomBytes, randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningBuyerIntelSandbox } from '../../emulators/buyer-intel/server.ts';
import { type RunningSalesforceSandbox, startSalesforceSandbox } from '../../emulators/salesforce/server.ts';
import { sandboxSettings } from '../../emulators/settings.ts';
import type { Service } from '../../src/service/runtime.ts';
import type { DatabaseSettings } from '../../src/store/db.ts';
import { TokenCipher } from '../../src/tenants/cipher.ts';
import { TenantStore } from '../../src/tenants/store.ts';
import { startSandbox } from '../helpers/buyer-intel-sandbox.ts';
import { waitFor } from '../helpers/reliability-env.ts';
import { createTestService } from '../helpers/service.ts';
import { sharedDatabase } from '../helpers/test-database.ts';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const prefix = `test-rotate-${randomUUID().slice(0, 8)}`;
/** The one database both processes of the test use (each process its own Redis session). */
let database: DatabaseSettings;
const cipher = new TokenCipher(randomBytes(32));
let redis: Redis;
let bi: RunningBuyerIntelSandbox;
let sf: RunningSalesforceSandbox;

const serviceOn = () => {
  const settings = sandboxSettings({ buyerIntel: bi }, { redisUrl: REDIS_URL, prefix });
  return createTestService({
    ...settings,
    database,
    crms: {
      salesforce: {
        app: { clientId: sf.clientId, clientSecret: sf.clientSecret, loginUrl: sf.url, apiVersion: '62.0' },
      },
    },
    tenants: { cipher },
  });
};
const tenantsOf = (service: Service) =>
  new TenantStore(async () => (await service.store.open()).tenants, redis, prefix, cipher);

/** Deletes every key of this test's prefix: Redis losing the service's data (the shared Redis is not flushed). */
async function loseRedis(): Promise<void> {
  const keys = await redis.keys(`${prefix}:*`);
  if (keys.length) await redis.del(...keys);
}

beforeAll(async () => {
  redis = new Redis(REDIS_URL);
  database = (await sharedDatabase()).settings;
  bi = await startSandbox();
  sf = await startSalesforceSandbox({ auth: { rotateRefreshTokens: true } });
});

afterAll(async () => {
  await loseRedis();
  redis?.disconnect();
  await Promise.all([bi?.close(), sf?.close()]);
});

describe('a rotated refresh token', () => {
  it('is kept in the database, so the org stays connected after Redis lost its session', async () => {
    const org = sf.orgId.slice(0, 15);
    const account = sf.store.create('Account', { Name: 'Travis County', BillingState: 'TX' }).id;
    const first = await serviceOn();
    try {
      await tenantsOf(first).put({
        crm: 'salesforce',
        orgId: sf.orgId,
        instanceUrl: sf.url,
        refreshToken: sf.refreshToken,
      });
      await first.loadTenants();
      sf.auth.expire();
      expect((await first.connector('salesforce', org).getAccount(account, [])).name).toBe('Travis County');
      // The org rotated: the token the tenant was added with is revoked; the record holds the new one.
      await waitFor('the rotated refresh token in the record', async () => {
        const { tenants } = await tenantsOf(first).list();
        const kept = tenants[0]?.refreshToken;
        return typeof kept === 'string' && kept !== sf.refreshToken;
      });
    } finally {
      await first.close();
    }

    await loseRedis();
    sf.auth.expire();
    const second = await serviceOn();
    try {
      expect((await second.loadTenants()).loaded).toEqual([`salesforce:${org}`]);
      expect((await second.connector('salesforce', org).getAccount(account, [])).name).toBe('Travis County');
    } finally {
      await second.close();
    }
  });
});
