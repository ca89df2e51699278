// `buyer-intel-sync doctor` as a real process against the sandboxes and a private redis-server
// configured as BullMQ wants it (then reconfigured badly): one line per check, exit 0 / 1, no secrets.
import { type ChildProcess, execFile, execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningBuyerIntelSandbox } from '../../emulators/buyer-intel/server.ts';
import { type RunningHubSpotSandbox, startHubSpotSandbox } from '../../emulators/hubspot/server.ts';
import { type RunningSalesforceSandbox, startSalesforceSandbox } from '../../emulators/salesforce/server.ts';
import { startSandbox } from '../helpers/buyer-intel-sandbox.ts';
import { sandboxCliEnv } from '../helpers/cli.ts';
import { freshPostgresDatabase, itWithPostgres } from '../helpers/databases.ts';
import { freePort } from '../helpers/ports.ts';

const CLI = new URL('../../src/cli.ts', import.meta.url).pathname;
const SHARED_REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

function hasRedisServer(): boolean {
  try {
    execFileSync('redis-server', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}
const REDIS_SERVER = hasRedisServer();

let bi: RunningBuyerIntelSandbox;
let hs: RunningHubSpotSandbox;
let sf: RunningSalesforceSandbox;
let redisServer: ChildProcess | undefined;
let redisDir: string | undefined;
let privateRedisUrl: string | undefined;
/** A migrated database of its own, where the machine has a PostgreSQL (CI does). */
let database: { url: string; drop(): Promise<void> } | undefined;

beforeAll(async () => {
  [bi, hs, sf, database] = await Promise.all([
    startSandbox(),
    startHubSpotSandbox({}),
    startSalesforceSandbox({}),
    freshPostgresDatabase(),
  ]);
  hs.store.createCompany({ name: 'City of Austin', state: 'TX' }, { source: 'CRM_UI' });
  if (REDIS_SERVER) {
    const port = await freePort();
    redisDir = mkdtempSync(join(tmpdir(), 'doctor-redis-'));
    redisServer = spawn(
      'redis-server',
      [
        '--port',
        String(port),
        '--bind',
        '127.0.0.1',
        '--maxmemory-policy',
        'noeviction',
        '--appendonly',
        'yes',
        '--save',
        '',
        '--dir',
        redisDir,
      ],
      { stdio: 'ignore' },
    );
    privateRedisUrl = `redis://127.0.0.1:${port}`;
    // Ready when it answers PING.
    const probe = new Redis(privateRedisUrl, { retryStrategy: () => 50, maxRetriesPerRequest: null });
    probe.on('error', () => undefined);
    await probe.ping();
    probe.disconnect();
  }
}, 60_000);

afterAll(async () => {
  if (redisServer) {
    const exited = new Promise((resolve) => redisServer?.once('exit', resolve));
    redisServer.kill('SIGTERM');
    await exited;
  }
  if (redisDir) rmSync(redisDir, { recursive: true, force: true });
  await Promise.all([bi?.close(), hs?.close(), sf?.close(), database?.drop()]);
});

const env = (overrides: Record<string, string> = {}): Record<string, string> => ({
  PATH: process.env.PATH ?? '',
  REDIS_URL: privateRedisUrl ?? SHARED_REDIS_URL,
  ...sandboxCliEnv(bi, hs),
  // The database check reads the migrations there; without a PostgreSQL it warns (embedded database).
  PGLITE_DIR: 'memory',
  ...(database ? { DATABASE_URL: database.url } : {}),
  SALESFORCE_INSTANCE_URL: sf.url,
  SALESFORCE_LOGIN_URL: sf.url,
  SALESFORCE_CLIENT_ID: sf.clientId,
  SALESFORCE_CLIENT_SECRET: sf.clientSecret,
  SALESFORCE_REFRESH_TOKEN: sf.refreshToken,
  SALESFORCE_ORG_ID: sf.orgId,
  // Where the HubSpot app would post (unset: WARN, its own test below).
  PUBLIC_BASE_URL: 'https://sync.example.com',
  ...overrides,
});

const doctor = (environment: Record<string, string>) =>
  promisify(execFile)(process.execPath, [CLI, 'doctor', '--timeout-ms', '8000'], { env: environment }).then(
    (r) => ({ code: 0, stdout: r.stdout, stderr: r.stderr }),
    (e: { code: number; stdout: string; stderr: string }) => ({
      code: e.code,
      stdout: e.stdout,
      stderr: e.stderr,
    }),
  );

/** The status word of the line of one check. */
function status(stdout: string, check: string): string | undefined {
  const line = stdout.split('\n').find((l) => l.slice(6).startsWith(`${check}  `) || l.slice(6) === check);
  return line?.slice(0, 4);
}

function expectNoSecrets(stdout: string, environment: Record<string, string>) {
  for (const key of [
    'BUYER_INTEL_TOKEN',
    'HUBSPOT_ACCESS_TOKEN',
    'HUBSPOT_CLIENT_SECRET',
    'SALESFORCE_CLIENT_SECRET',
    'SALESFORCE_REFRESH_TOKEN',
  ]) {
    const value = environment[key];
    if (value) expect(stdout).not.toContain(value);
  }
}

describe('buyer-intel-sync doctor', () => {
  it.skipIf(!REDIS_SERVER)(
    'passes every check against the sandboxes and a Redis configured for BullMQ',
    async () => {
      const e = env();
      const run = await doctor(e);
      expect(run.stdout).toMatch(/^PASS {2}config/m);
      for (const check of [
        'config',
        'public base url',
        'redis',
        'redis version',
        'redis maxmemory-policy',
        'redis persistence',
        'buyer intelligence api',
        'hubspot',
        'salesforce',
        ...(database ? ['database'] : []),
      ])
        expect({ check, status: status(run.stdout, check) }).toEqual({ check, status: 'PASS' });
      expect(run.stdout).toContain('AOF on');
      // Nothing consumes this private Redis's queues yet: a warning, not a failure.
      expect(status(run.stdout, 'workers')).toBe('WARN');
      expect(run.stdout).toContain(
        `All checks passed (${database ? 1 : 2} warnings)`.replace('(1 warnings)', '(1 warning)'),
      );
      expect(run.code).toBe(0);
      expectNoSecrets(run.stdout, e);
    },
    60_000,
  );

  it.skipIf(!REDIS_SERVER)(
    'warns without persistence (exit 0) and fails on an evicting Redis (exit 1)',
    async () => {
      const admin = new Redis(privateRedisUrl as string);
      try {
        await admin.config('SET', 'appendonly', 'no');
        await admin.config('SET', 'save', '');
        const noPersistence = await doctor(env());
        expect(status(noPersistence.stdout, 'redis persistence')).toBe('WARN');
        expect(noPersistence.stdout).toContain('queued jobs are lost when Redis restarts');
        expect(noPersistence.code).toBe(0);

        await admin.config('SET', 'maxmemory-policy', 'allkeys-lru');
        const evicting = await doctor(env());
        expect(status(evicting.stdout, 'redis maxmemory-policy')).toBe('FAIL');
        expect(evicting.stdout).toContain('allkeys-lru');
        expect(evicting.stdout).toContain('1 check failed');
        expect(evicting.code).toBe(1);
      } finally {
        await admin.config('SET', 'maxmemory-policy', 'noeviction');
        await admin.config('SET', 'appendonly', 'yes');
        admin.disconnect();
      }
    },
    60_000,
  );

  it('fails the redis check on a closed port and skips what is read from Redis', async () => {
    const run = await doctor(env({ REDIS_URL: `redis://127.0.0.1:${await freePort()}` }));
    expect(status(run.stdout, 'redis')).toBe('FAIL');
    expect(run.stdout).toMatch(/^FAIL {2}redis {2,}cannot reach .*connection refused/m);
    expect(status(run.stdout, 'workers')).toBe('SKIP');
    expect(run.code).toBe(1);
  }, 60_000);

  it('fails with a clear line on a wrong Buyer Intelligence token, and never prints it', async () => {
    const e = env({ BUYER_INTEL_TOKEN: 'wrong-token-0123456789abcdef' });
    const run = await doctor(e);
    expect(status(run.stdout, 'buyer intelligence api')).toBe('FAIL');
    expect(run.stdout).toMatch(/FAIL {2}buyer intelligence api .*401.*BUYER_INTEL_TOKEN was refused/);
    expect(status(run.stdout, 'hubspot')).toBe('PASS');
    expect(run.code).toBe(1);
    expectNoSecrets(run.stdout, e);
  }, 60_000);

  it('fails with a clear line on a wrong HubSpot token, and never prints it', async () => {
    const e = env({ HUBSPOT_ACCESS_TOKEN: 'pat-na1-00000000-wrong-token-0000' });
    const run = await doctor(e);
    expect(run.stdout).toMatch(/FAIL {2}hubspot .*HUBSPOT_ACCESS_TOKEN was refused/);
    expect(status(run.stdout, 'buyer intelligence api')).toBe('PASS');
    expect(status(run.stdout, 'salesforce')).toBe('PASS');
    expect(run.code).toBe(1);
    expectNoSecrets(run.stdout, e);
  }, 60_000);

  it('fails naming the scope when follow-ups are on and the private app lacks crm.objects.owners.read', async () => {
    const all = hs.auth.authenticate(`Bearer ${hs.auth.privateAppToken}`).scopes;
    hs.auth.setPrivateAppScopes([...all].filter((s) => s !== 'crm.objects.owners.read'));
    try {
      // Follow-ups off: owners are never read, so the token is enough.
      const off = await doctor(env({}));
      expect(status(off.stdout, 'hubspot')).toBe('PASS');
      const on = await doctor(env({ FOLLOW_UP_TASK_TYPES: 'RFP' }));
      expect(on.stdout).toMatch(/FAIL {2}hubspot .*HUBSPOT_ACCESS_TOKEN lacks crm\.objects\.owners\.read/);
      expect(on.stdout).toMatch(/crm\.objects\.owners\.read: needed for company owners/);
      expect(on.code).toBe(1);
    } finally {
      hs.auth.setPrivateAppScopes([...all]);
    }
  }, 60_000);

  itWithPostgres(
    'fails on a database with migrations pending, or one that does not answer',
    async () => {
      const bare = await freshPostgresDatabase({ migrated: false });
      try {
        const pending = await doctor(env({ DATABASE_URL: bare?.url ?? '' }));
        expect(pending.stdout).toMatch(
          /FAIL {2}database .*\d+ pending migrations: run `buyer-intel-sync migrate`/,
        );
        expect(pending.code).toBe(1);
      } finally {
        await bare?.drop();
      }
      const closed = await doctor(env({ DATABASE_URL: 'postgres://postgres@127.0.0.1:1/none' }));
      expect(closed.stdout).toMatch(
        /FAIL {2}database +cannot reach \S*127\.0\.0\.1:1\S*: connect ECONNREFUSED/,
      );
      expect(closed.code).toBe(1);
      const embedded = await doctor({ ...env(), DATABASE_URL: '' });
      expect(status(embedded.stdout, 'database')).toBe('WARN');
    },
    60_000,
  );

  it('says the PUBLIC_BASE_URL in use, warns when unset with HubSpot on, fails a malformed one', async () => {
    const [set, unset, withQuery, notUrl] = await Promise.all([
      doctor(env()),
      doctor(env({ PUBLIC_BASE_URL: '' })),
      doctor(env({ PUBLIC_BASE_URL: 'https://sync.example.com/?from=proxy' })),
      doctor(env({ PUBLIC_BASE_URL: 'sync.example.com' })),
    ]);
    expect(set.stdout).toMatch(
      /^PASS {2}public base url +https:\/\/sync\.example\.com: signed URLs are checked as https:\/\/sync\.example\.com\/webhooks\/hubspot/m,
    );
    expect(status(unset.stdout, 'public base url')).toBe('WARN');
    expect(unset.stdout).toMatch(
      /^WARN {2}public base url +PUBLIC_BASE_URL is unset: HubSpot signs .*Host header/m,
    );
    expect(status(withQuery.stdout, 'public base url')).toBe('FAIL');
    expect(withQuery.stdout).toMatch(
      /PUBLIC_BASE_URL has a query or fragment .*set it to https:\/\/sync\.example\.com$/m,
    );
    expect(withQuery.code).toBe(1);
    // Not a URL: the configuration fails too, and the line still names what to set.
    expect(notUrl.stdout).toMatch(
      /^FAIL {2}public base url +PUBLIC_BASE_URL must be an absolute http\(s\) URL/m,
    );
    expect(status(notUrl.stdout, 'config')).toBe('FAIL');
    expect(notUrl.code).toBe(1);
  }, 60_000);

  it('lists every configuration problem and skips the checks that need a configuration', async () => {
    const e = env({ BUYER_INTEL_TOKEN: '', HUBSPOT_PORTAL_ID: 'not-a-number', PORT: 'eighty' });
    const run = await doctor(e);
    expect(status(run.stdout, 'config')).toBe('FAIL');
    expect(run.stdout).toContain('- BUYER_INTEL_TOKEN is required');
    expect(run.stdout).toContain('- HUBSPOT_PORTAL_ID must be the numeric portal (hub) id');
    expect(run.stdout).toMatch(/- PORT /);
    expect(status(run.stdout, 'redis')).toBe('PASS');
    expect(status(run.stdout, 'hubspot')).toBe('SKIP');
    expect(run.code).toBe(1);
    expectNoSecrets(run.stdout, e);
  }, 60_000);
});
