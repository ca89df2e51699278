// Production auth for the Salesforce connector against the Salesforce sandbox over real HTTP, with the
// unmodified jsforce 3 and a real Redis: the JWT bearer flow (a key pair made here, the sandbox holding
// the public key), a wrong key refused, and one refresh at a time across connectors sharing a tokenStore
// (the winner's token and a rotated refresh token in Redis, picked up by a connector started later).
import { generateKeyPairSync, randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createSalesforceConnector,
  type SalesforceConnectorOptions,
} from '../../connectors/salesforce/connector.ts';
import { SalesforceTransientError } from '../../connectors/salesforce/errors.ts';
import { signJwtAssertion } from '../../connectors/salesforce/jwt.ts';
import { lockedRefresh, readStoredToken } from '../../connectors/token-refresh.ts';
import { CrmAuthError } from '../../connectors/types.ts';
import type { SalesforceSandboxOptions } from '../../emulators/salesforce/app.ts';
import { type RunningSalesforceSandbox, startSalesforceSandbox } from '../../emulators/salesforce/server.ts';

const PREFIX = `test:sf-auth:${randomUUID()}:`;
let redis: Redis;
beforeAll(() => {
  redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
});

const sandboxes: RunningSalesforceSandbox[] = [];
async function start(options: SalesforceSandboxOptions = {}): Promise<RunningSalesforceSandbox> {
  const sandbox = await startSalesforceSandbox(options);
  sandboxes.push(sandbox);
  return sandbox;
}
afterAll(async () => {
  await Promise.all(sandboxes.map((s) => s.close()));
  const keys = await redis.keys(`${PREFIX}*`);
  if (keys.length) await redis.del(...keys);
  await redis.quit();
});

const keyPair = () =>
  generateKeyPairSync('rsa', {
    modulusLength: 2048,
    publicKeyEncoding: { type: 'spki', format: 'pem' },
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  });

const baseOptions = (
  sf: RunningSalesforceSandbox,
  extra: Partial<SalesforceConnectorOptions> = {},
): SalesforceConnectorOptions => ({
  instanceUrl: sf.url,
  loginUrl: sf.url,
  clientId: sf.clientId,
  clientSecret: sf.clientSecret,
  apiVersion: '62.0',
  orgId: sf.orgId,
  ...extra,
});

const createAccount = (sf: RunningSalesforceSandbox) =>
  sf.store.create('Account', { Name: 'City of Austin', BillingState: 'TX' });

describe('signJwtAssertion', () => {
  it('signs RS256 with iss, sub, aud and a short exp', async () => {
    const { privateKey } = keyPair();
    const jwt = await signJwtAssertion({
      clientId: 'cid',
      username: 'u@example.com',
      audience: 'https://login.salesforce.com',
      privateKey,
    });
    const [h = '', p = ''] = jwt.split('.');
    expect(JSON.parse(Buffer.from(h, 'base64url').toString())).toMatchObject({ alg: 'RS256' });
    const claims = JSON.parse(Buffer.from(p, 'base64url').toString()) as Record<string, unknown>;
    expect(claims).toMatchObject({ iss: 'cid', sub: 'u@example.com', aud: 'https://login.salesforce.com' });
    const exp = claims.exp as number;
    expect(exp * 1000 - Date.now()).toBeGreaterThan(170_000);
    expect(exp * 1000 - Date.now()).toBeLessThanOrEqual(180_000);
  });
});

describe('JWT bearer flow', () => {
  it('authenticates without any token and refreshes an expired session with the JWT grant', async () => {
    const { publicKey, privateKey } = keyPair();
    const sf = await start({ auth: { jwtPublicKey: publicKey } });
    const account = createAccount(sf);
    const connector = createSalesforceConnector(
      baseOptions(sf, { jwt: { username: sf.username, privateKey } }),
    );
    const before = sf.stats.count('oauth2.token', 200);
    expect((await connector.getAccount(account.id, [])).name).toBe('City of Austin');
    expect(sf.stats.count('oauth2.token', 200)).toBe(before + 1);

    sf.auth.expire();
    expect((await connector.getAccount(account.id, [])).name).toBe('City of Austin');
    expect(sf.stats.count('oauth2.token', 200)).toBe(before + 2);
  });

  it('is refused with CrmAuthError when signed with another key', async () => {
    const { publicKey } = keyPair();
    const other = keyPair();
    const sf = await start({ auth: { jwtPublicKey: publicKey } });
    const account = createAccount(sf);
    const connector = createSalesforceConnector(
      baseOptions(sf, { jwt: { username: sf.username, privateKey: other.privateKey } }),
    );
    const err = await connector.getAccount(account.id, []).then(
      () => {
        throw new Error('expected a refusal');
      },
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(CrmAuthError);
    expect(sf.stats.count('oauth2.token', 400)).toBe(1);
  });
});

describe('a refresh that fails', () => {
  const failure = (p: Promise<unknown>) =>
    p.then(
      () => {
        throw new Error('expected a failure');
      },
      (e: unknown) => e,
    );

  it('is retried, not taken for revoked credentials, when the token endpoint answers 503', async () => {
    const sf = await start();
    const account = createAccount(sf);
    const connector = createSalesforceConnector(
      baseOptions(sf, { accessToken: sf.accessToken, refreshToken: sf.refreshToken }),
    );
    sf.auth.expire();
    sf.faults.inject({ kind: 'status', status: 503, match: 'oauth2.token' });
    const err = await failure(connector.getAccount(account.id, []));
    expect(err).toBeInstanceOf(SalesforceTransientError);
    expect(err).not.toBeInstanceOf(CrmAuthError);
    expect(String((err as Error).message)).not.toContain(sf.refreshToken);
    // The retry refreshes and succeeds.
    expect((await connector.getAccount(account.id, [])).name).toBe('City of Austin');
  });

  it('is retried when Redis fails under the refresh lock', async () => {
    const sf = await start();
    const account = createAccount(sf);
    // Nothing listens on port 1: every command fails at once.
    const down = new Redis('redis://127.0.0.1:1', {
      lazyConnect: true,
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      retryStrategy: () => null,
    });
    down.on('error', () => undefined);
    const connector = createSalesforceConnector(
      baseOptions(sf, {
        accessToken: sf.accessToken,
        refreshToken: sf.refreshToken,
        tokenStore: { redis: down, key: `${PREFIX}down` },
      }),
    );
    sf.auth.expire();
    const err = await failure(connector.getAccount(account.id, []));
    expect(err).toBeInstanceOf(SalesforceTransientError);
    expect(sf.stats.count('oauth2.token', 200)).toBe(0);
    down.disconnect();
  });

  it('with a revoked refresh token fails as CrmAuthError', async () => {
    const sf = await start();
    const account = createAccount(sf);
    const connector = createSalesforceConnector(
      baseOptions(sf, { accessToken: sf.accessToken, refreshToken: sf.refreshToken }),
    );
    sf.auth.revokeRefreshToken(sf.refreshToken);
    sf.auth.expire();
    expect(await failure(connector.getAccount(account.id, []))).toBeInstanceOf(CrmAuthError);
  });
});

describe('tokenStore: one refresh at a time across workers', () => {
  it('two connectors on an expired session refresh once, share the token and store the rotated refresh token', async () => {
    const sf = await start({ auth: { rotateRefreshTokens: true } });
    const account = createAccount(sf);
    const key = `${PREFIX}rotate`;
    const options = baseOptions(sf, {
      accessToken: sf.accessToken,
      refreshToken: sf.refreshToken,
      tokenStore: { redis, key },
    });
    const a = createSalesforceConnector(options);
    const b = createSalesforceConnector(options);
    sf.auth.expire();
    const before = sf.stats.count('oauth2.token');

    const [ra, rb] = await Promise.all([a.getAccount(account.id, []), b.getAccount(account.id, [])]);
    expect(ra.name).toBe('City of Austin');
    expect(rb.name).toBe('City of Austin');
    expect(sf.stats.count('oauth2.token')).toBe(before + 1);

    const stored = await readStoredToken(redis, key);
    expect(stored?.accessToken).toBeTruthy();
    expect(stored?.accessToken).not.toBe(sf.accessToken);
    expect(stored?.refreshToken).toBeTruthy();
    expect(stored?.refreshToken).not.toBe(sf.refreshToken);

    // A connector started later (with only the original, now revoked, refresh token) uses the stored session.
    const later = createSalesforceConnector(
      baseOptions(sf, { refreshToken: sf.refreshToken, tokenStore: { redis, key } }),
    );
    expect((await later.getAccount(account.id, [])).name).toBe('City of Austin');
    expect(sf.stats.count('oauth2.token')).toBe(before + 1);

    // Its next refresh presents the stored (rotated) refresh token, not the revoked one.
    sf.auth.expire();
    expect((await later.getAccount(account.id, [])).name).toBe('City of Austin');
    expect(sf.stats.count('oauth2.token', 200)).toBe(before + 2);
    const again = await readStoredToken(redis, key);
    expect(again?.refreshToken).not.toBe(stored?.refreshToken);
  });

  it('JWT connectors sharing a tokenStore refresh once', async () => {
    const { publicKey, privateKey } = keyPair();
    const sf = await start({ auth: { jwtPublicKey: publicKey } });
    const account = createAccount(sf);
    const options = baseOptions(sf, {
      jwt: { username: sf.username, privateKey },
      tokenStore: { redis, key: `${PREFIX}jwt` },
    });
    const connectors = [1, 2, 3].map(() => createSalesforceConnector(options));
    const before = sf.stats.count('oauth2.token');
    const results = await Promise.all(connectors.map((c) => c.getAccount(account.id, [])));
    expect(results.map((r) => r.name)).toEqual(['City of Austin', 'City of Austin', 'City of Austin']);
    expect(sf.stats.count('oauth2.token')).toBe(before + 1);
  });
});

describe('lockedRefresh', () => {
  it('waits for the holder and returns its token instead of refreshing', async () => {
    const key = `${PREFIX}lock`;
    let calls = 0;
    const refresh = async () => {
      calls++;
      await new Promise((r) => setTimeout(r, 100));
      return { accessToken: `token-${calls}`, refreshToken: 'rt' };
    };
    const results = await Promise.all([
      lockedRefresh(redis, key, refresh, { pollMs: 10 }),
      lockedRefresh(redis, key, refresh, { pollMs: 10 }),
      lockedRefresh(redis, key, refresh, { pollMs: 10 }),
    ]);
    expect(calls).toBe(1);
    expect(new Set(results.map((r) => r.accessToken))).toEqual(new Set(['token-1']));
    expect(await redis.exists(`${key}:lock`)).toBe(0);
  });

  it('gives up after the wait timeout when the lock is never released', async () => {
    const key = `${PREFIX}stuck`;
    await redis.set(`${key}:lock`, 'someone-else', 'PX', 10_000);
    await expect(
      lockedRefresh(redis, key, async () => ({ accessToken: 'x' }), { waitTimeoutMs: 200, pollMs: 20 }),
    ).rejects.toThrow(/longer than 200 ms/);
  });
});
