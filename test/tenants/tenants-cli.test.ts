// `buyer-intel-sync tenants` as a real process: credentials only from standard input, stored
// encrypted in the database, our fields created in the portal at once, listed without any secret,
// removed; bad input exits 2 naming the field, not the value.
import { randomBytes, randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningHubSpotSandbox, startHubSpotSandbox } from '../../emulators/hubspot/server.ts';
import { PROVENANCE_FIELDS as P } from '../../src/map/field-definitions.ts';
import { Store } from '../../src/store/store.ts';
import { cliDatabase, runCli, runCliInProcess } from '../helpers/cli.ts';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const prefix = `test-tenants-cli-${randomUUID().slice(0, 8)}`;
const KEY = randomBytes(32).toString('base64');
const redis = new Redis(REDIS_URL);
const token = `pat-${randomBytes(8).toString('hex')}`;
let hs: RunningHubSpotSandbox;
beforeAll(async () => {
  hs = await startHubSpotSandbox({ portalId: 5150, auth: { privateAppToken: token } });
});
afterAll(async () => {
  await hs?.close();
  const keys = await redis.keys(`${prefix}:*`);
  if (keys.length) await redis.del(...keys);
  await redis.quit();
});

// In this process unless the command reads standard input (a subprocess adds nothing else here).
const cli = (args: string[], stdin = '') => {
  const env = {
    REDIS_PREFIX: prefix,
    TOKEN_ENCRYPTION_KEY: KEY,
    BUYER_INTEL_BASE_URL: 'http://127.0.0.1:9',
    BUYER_INTEL_TOKEN: 'unused',
    HUBSPOT_CLIENT_SECRET: 'app-secret',
    HUBSPOT_BASE_PATH: hs.url,
  };
  return stdin ? runCli(['tenants', ...args], env, stdin) : runCliInProcess(['tenants', ...args], env);
};

describe('buyer-intel-sync tenants', () => {
  it('adds from stdin with our fields, lists without secrets, removes', async () => {
    const refresh = `rt-${randomBytes(8).toString('hex')}`;
    const added = await cli(
      ['add', 'hubspot', '--portal-id', '5150'],
      JSON.stringify({ accessToken: token, refreshToken: refresh }),
    );
    expect(added.code, added.stderr).toBe(0);
    expect(added.stdout).toMatch(
      /^stored hubspot 5150 \(encrypted\)\nhubspot 5150: \d+ fields created, 0 already there\n$/,
    );
    expect(hs.store.property('companies', P.status)).toBeDefined();
    // In the database (the CLI has exited, so an embedded one can be opened), encrypted; not in Redis.
    const store = new Store((await cliDatabase()).settings);
    const rows = await (await store.open()).tenants.list().finally(() => store.close());
    expect(rows).toEqual([{ crm: 'hubspot', tenant: '5150', record: expect.stringMatching(/^v1\./) }]);
    expect(JSON.stringify(rows)).not.toContain(token);
    expect(await redis.exists(`${prefix}:tenants`)).toBe(0);
    const list = await cli(['list']);
    expect(list.stdout).toBe('hubspot\t5150\toauth\n');
    expect(list.stdout + list.stderr).not.toContain(token);
    expect((await cli(['remove', 'hubspot', '5150'])).code).toBe(0);
    expect((await cli(['list'])).stdout).toBe('');
  }, 90_000);

  it('keeps a portal whose fields the CRM refused, and says how to try again', async () => {
    const refused = await cli(
      ['add', 'hubspot', '--portal-id', '6160'],
      JSON.stringify({ accessToken: 'pat-unknown-xyz' }),
    );
    expect(refused.code).toBe(1);
    expect(refused.stdout).toBe('stored hubspot 6160 (encrypted)\n');
    expect(refused.stderr.trim().split('\n')).toHaveLength(1);
    expect(refused.stderr).toContain('its fields could not be created');
    expect(refused.stderr).toContain('setup --tenant 6160');
    expect(refused.stderr).not.toContain('pat-unknown-xyz');
    expect((await cli(['list'])).stdout).toContain('hubspot\t6160\t');
    expect((await cli(['remove', 'hubspot', '6160'])).code).toBe(0);
  }, 90_000);

  it('exits 2 naming the bad field, never echoing a credential', async () => {
    const bad = await cli(
      ['add', 'hubspot', '--portal-id', 'abc'],
      JSON.stringify({ accessToken: 'secret-value-xyz' }),
    );
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('portalId');
    expect(bad.stderr).not.toContain('secret-value-xyz');
    expect((await cli(['add', 'hubspot', '--portal-id', '1'], 'not json')).code).toBe(2);
    expect((await cli(['frobnicate'])).code).toBe(2);
  });
});
