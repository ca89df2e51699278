// `buyer-intel-sync tenants` as a real process: credentials only from standard input, stored
// encrypted in the database, listed without any secret, removed; bad input exits 2 naming the field, not the value.
import { randomBytes, randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { Store } from '../../src/store/store.ts';
import { cliDatabase, runCli } from '../helpers/cli.ts';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const prefix = `test-tenants-cli-${randomUUID().slice(0, 8)}`;
const KEY = randomBytes(32).toString('base64');
const redis = new Redis(REDIS_URL);
afterAll(async () => {
  const keys = await redis.keys(`${prefix}:*`);
  if (keys.length) await redis.del(...keys);
  await redis.quit();
});

const cli = (args: string[], stdin = '') =>
  runCli(
    ['tenants', ...args],
    {
      REDIS_PREFIX: prefix,
      TOKEN_ENCRYPTION_KEY: KEY,
      BUYER_INTEL_BASE_URL: 'http://127.0.0.1:9',
      BUYER_INTEL_TOKEN: 'unused',
      HUBSPOT_CLIENT_SECRET: 'app-secret',
    },
    stdin,
  );

describe('buyer-intel-sync tenants', () => {
  it('adds from stdin, lists without secrets, removes', async () => {
    const token = `pat-${randomBytes(8).toString('hex')}`;
    const refresh = `rt-${randomBytes(8).toString('hex')}`;
    const added = await cli(
      ['add', 'hubspot', '--portal-id', '5150'],
      JSON.stringify({ accessToken: token, refreshToken: refresh }),
    );
    expect(added).toMatchObject({ code: 0, stdout: 'stored hubspot 5150 (encrypted)\n' });
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
