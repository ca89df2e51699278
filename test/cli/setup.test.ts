// `buyer-intel-sync setup` in process (runCliInProcess) against the HubSpot emulator: it creates the id properties
// a person types an account's ids in (ours only), and refuses an id property that enrichment writes.
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningBuyerIntelSandbox } from '../../emulators/buyer-intel/server.ts';
import { type RunningHubSpotSandbox, startHubSpotSandbox } from '../../emulators/hubspot/server.ts';
import { startSandbox } from '../helpers/buyer-intel-sandbox.ts';
import { runCliInProcess, sandboxCliEnv } from '../helpers/cli.ts';

const ID_PROPERTIES = [
  'buyer_intel_match_nces_id',
  'buyer_intel_match_ipeds_id',
  'buyer_intel_match_census_id',
  'buyer_intel_match_buyer_id',
];

const prefix = `test-setup-${randomUUID().slice(0, 8)}`;
let bi: RunningBuyerIntelSandbox;
let hs: RunningHubSpotSandbox;

beforeAll(async () => {
  bi = await startSandbox();
  hs = await startHubSpotSandbox({});
});
afterAll(async () => {
  await Promise.all([bi.close(), hs.close()]);
  const redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
  const keys = await redis.keys(`${prefix}:*`);
  if (keys.length) await redis.del(...keys);
  redis.disconnect();
});

const env = (extra: Record<string, string> = {}) => ({
  ...sandboxCliEnv(bi, hs),
  REDIS_PREFIX: prefix,
  ...extra,
});

describe('buyer-intel-sync setup', () => {
  it('creates our id properties as text, and nothing on a second run', async () => {
    const first = await runCliInProcess(['setup', '--crm', 'hubspot'], env());
    expect(first.code, first.stderr).toBe(0);
    for (const name of ID_PROPERTIES) {
      expect(first.stdout).toContain(`  + ${name}\n`);
      expect(hs.store.property('companies', name)).toMatchObject({ type: 'string', fieldType: 'text' });
    }
    const second = await runCliInProcess(['setup', '--crm', 'hubspot'], env());
    expect(second.code, second.stderr).toBe(0);
    expect(second.stdout).toMatch(/: 0 fields created, \d+ already there/);
  });

  it('leaves a property the customer named alone, and refuses one enrichment writes', async () => {
    const own = await runCliInProcess(
      ['setup', '--crm', 'hubspot'],
      env({ HUBSPOT_ID_PROPERTIES: 'nces=district_nces' }),
    );
    expect(own.code, own.stderr).toBe(0);
    expect(hs.store.property('companies', 'district_nces')).toBeUndefined();

    const clash = await runCliInProcess(
      ['setup', '--crm', 'hubspot'],
      env({ HUBSPOT_ID_PROPERTIES: 'nces=buyer_intel_nces_id' }),
    );
    expect(clash.code).toBe(1);
    expect(clash.stderr).toContain(
      'the nces id field buyer_intel_nces_id is the field enrichment writes as buyer_intel_nces_id: name another one',
    );
  });
});
