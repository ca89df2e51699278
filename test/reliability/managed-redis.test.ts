// Redis as a managed service hands it out: TLS only (a private CA, the client presenting its own
// certificate) and an ACL user with a password. The ACL is the line docs/operations.md gives, read
// from the page itself (so the page and this test cannot drift), applied with ACL SETUSER by an admin
// user. A private redis-server started by this test, certificates made with openssl. The service runs
// over it end to end with nothing refused; `doctor` passes it, says why when the password or the CA is
// wrong, and FAILs (as every command's start refuses) a user lacking a command the service needs.
import { type ChildProcess, execFileSync, spawn, spawnSync } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import which from 'which';
import '../helpers/memory-crm.ts';
import type { Redis } from 'ioredis';
import { memoryCrm } from '../../connectors/memory/store.ts';
import type { RunningBuyerIntelSandbox } from '../../emulators/buyer-intel/server.ts';
import { sandboxSettings } from '../../emulators/settings.ts';
import { redisClient } from '../../queues/redis-url.ts';
import { requireRedis } from '../../src/cli/redis-check.ts';
import { DEFAULT_MAPPING } from '../../src/map/default-mapping.ts';
import { fieldDefinitions, PROVENANCE_FIELDS as P } from '../../src/map/field-definitions.ts';
import type { Service } from '../../src/service/runtime.ts';
import { startSandbox } from '../helpers/buyer-intel-sandbox.ts';
import { runCli } from '../helpers/cli.ts';
import { mustRunEverywhere } from '../helpers/databases.ts';
import { freePort, waitFor } from '../helpers/reliability-env.ts';
import { createTestService, finishedJob } from '../helpers/service.ts';

/**
 * Why this machine cannot run a TLS redis-server (none installed, or one built without TLS), or
 * undefined. Skipped with that reason here; CI (Debian's redis-server 7, built with TLS) must run it.
 */
function tlsRedisMissing(): string | undefined {
  for (const cmd of ['redis-server', 'openssl'])
    if (!which.sync(cmd, { nothrow: true })) return `${cmd} is not installed`;
  // A build with TLS refuses the missing key file; one without refuses the directive itself.
  const probe = spawnSync('redis-server', ['--port', '0', '--tls-port', '1', '--save', ''], {
    encoding: 'utf8',
    timeout: 10_000,
  });
  return /tls/i.test(probe.stdout) && !/Bad directive|wrong number of arguments/i.test(probe.stdout)
    ? undefined
    : 'redis-server was built without TLS';
}
const missing = mustRunEverywhere ? undefined : tlsRedisMissing();

const dir = mkdtempSync(join(tmpdir(), 'managed-redis-'));
const file = (name: string) => join(dir, name);
const PASSWORD = randomBytes(12).toString('hex');
const ADMIN_PASSWORD = randomBytes(12).toString('hex');
const bare = `managed-${randomUUID().slice(0, 8)}`;
const prefix = `{${bare}}`;

/**
 * The documented ACL line, word for word, with its placeholders filled: the password, and `bis` (the
 * default REDIS_PREFIX) in its key patterns. Answers the user's name and its rules.
 */
function documentedAcl(): { user: string; rules: string[] } {
  const page = readFileSync(new URL('../../docs/operations.md', import.meta.url), 'utf8');
  const lines = page.split('\n').filter((l) => l.startsWith('ACL SETUSER '));
  if (lines.length !== 1) throw new Error(`docs/operations.md has ${lines.length} ACL SETUSER lines, not 1`);
  const [, , user, ...rules] = (lines[0] as string).trim().split(/\s+/);
  if (!user || !rules.includes('>CHANGE-ME')) throw new Error('the ACL line has no user or no >CHANGE-ME');
  return {
    user,
    rules: rules.map((r) =>
      r === '>CHANGE-ME' ? `>${PASSWORD}` : r.startsWith('~') ? r.replace('bis', bare) : r,
    ),
  };
}
const acl = documentedAcl();
let admin: Redis | undefined;
const workspace = `tls-${randomUUID().slice(0, 8)}`;
let port: number;
let server: ChildProcess | undefined;
let bi: RunningBuyerIntelSandbox;
let service: Service | undefined;

const openssl = (...args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: 'ignore' });
/** The URL an operator would set: user, password, CA and client certificate. */
const urlWith = (
  password: string,
  query = `ssl_ca_certs=${file('ca.pem')}&ssl_certfile=${file('client.pem')}&ssl_keyfile=${file('client.key')}`,
  user = acl.user,
) => `rediss://${user}:${password}@localhost:${port}?${query}`;

beforeAll(async () => {
  if (missing) return;
  openssl(
    'req',
    '-x509',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-keyout',
    'ca.key',
    '-out',
    'ca.pem',
    '-days',
    '2',
    '-subj',
    '/CN=test-ca',
  );
  writeFileSync(file('ext'), 'subjectAltName=DNS:localhost,IP:127.0.0.1');
  for (const who of ['server', 'client']) {
    openssl(
      'req',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-keyout',
      `${who}.key`,
      '-out',
      `${who}.csr`,
      '-subj',
      `/CN=${who === 'server' ? 'localhost' : 'app'}`,
    );
    openssl(
      'x509',
      '-req',
      '-in',
      `${who}.csr`,
      '-CA',
      'ca.pem',
      '-CAkey',
      'ca.key',
      '-CAcreateserial',
      '-out',
      `${who}.pem`,
      '-days',
      '2',
      '-extfile',
      'ext',
    );
  }
  port = await freePort();
  server = spawn(
    'redis-server',
    [
      ...['--port', '0', '--tls-port', String(port), '--bind', '127.0.0.1'],
      ...['--tls-cert-file', file('server.pem'), '--tls-key-file', file('server.key')],
      ...['--tls-ca-cert-file', file('ca.pem'), '--tls-auth-clients', 'yes'],
      ...['--save', '', '--appendonly', 'no', '--maxmemory-policy', 'noeviction'],
      // The operator's own user, which sets the service's up.
      ...['--user', 'default', 'on', `>${ADMIN_PASSWORD}`, '~*', '&*', '+@all'],
    ],
    { stdio: 'ignore' },
  );
  const probe = redisClient(urlWith(ADMIN_PASSWORD, undefined, 'default'), {
    lazyConnect: true,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
  });
  probe.on('error', () => undefined);
  await waitFor('the TLS redis-server', async () => {
    try {
      if (probe.status !== 'ready') await probe.connect();
      return (await probe.ping()) === 'PONG';
    } catch {
      probe.disconnect();
      return false;
    }
  });
  admin = probe;
  expect(await admin.call('ACL', 'SETUSER', acl.user, ...acl.rules)).toBe('OK');
  // Users the service must refuse: the line without one command it needs, and the rule of many guides.
  const withoutEvalsha = acl.rules.filter((r) => r !== '+evalsha');
  expect(withoutEvalsha).toHaveLength(acl.rules.length - 1);
  await admin.call('ACL', 'SETUSER', 'no-evalsha', ...withoutEvalsha);
  await admin.call('ACL', 'SETUSER', 'no-info', 'reset', 'on', `>${PASSWORD}`, '~*', '+@all', '-@dangerous');
  await admin.call('ACL', 'LOG', 'RESET');
  bi = await startSandbox();
  const settings = sandboxSettings({ buyerIntel: bi }, { redisUrl: urlWith(PASSWORD), prefix });
  service = await createTestService({ ...settings, crms: { 'memory-crm': { workspace } } });
  await service.connector('memory-crm', workspace).ensureFields(fieldDefinitions(DEFAULT_MAPPING));
  service.startWorker();
  await service.startChangeEvents();
});

afterAll(async () => {
  await service?.close().catch(() => undefined);
  admin?.disconnect();
  server?.kill('SIGKILL');
  await bi?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe.skipIf(missing)(
  `a managed Redis: TLS with certificates and an ACL user${missing ? ` — skipped: ${missing}` : ''}`,
  () => {
    it('runs the pipeline: an account created in the CRM is enriched through the queue', async () => {
      const crm = memoryCrm(workspace);
      const id = crm.createAccount({
        name: 'City of Austin',
        state: 'TX',
        website: 'https://austintexas.gov',
      });
      expect((await finishedJob(service as Service, id)).status).toBe('enriched');
      expect(crm.accounts.get(id)?.fields.get(P.status)).toBe('enriched');
      // Nothing the service ran was refused to the documented user (a refusal it got past is logged too).
      const log = (await admin?.call('ACL', 'LOG')) as unknown[][];
      const refused = log
        .map((entry) => Object.fromEntries(chunks(entry.map(String))))
        .filter((e) => e.username === acl.user);
      expect(refused).toEqual([]);
    });

    it('doctor passes it, and names a wrong password or an unknown CA in one line', async () => {
      const env = (url: string) => ({ REDIS_URL: url, REDIS_PREFIX: prefix });
      const line = (stdout: string, check: string) =>
        stdout.split('\n').find((l) => l.slice(6).startsWith(`${check} `)) ?? '';
      const ok = await runCli(['doctor', '--timeout-ms', '5000'], env(urlWith(PASSWORD)));
      expect(line(ok.stdout, 'redis')).toMatch(/^PASS {2}redis +PONG from rediss:\/\/localhost:\d+$/);
      expect(line(ok.stdout, 'redis mode')).toMatch(/^PASS .* standalone$/);
      // CONFIG is one of the commands the user may not run, as on most managed Redis: checked by INFO.
      expect(line(ok.stdout, 'redis maxmemory-policy')).toMatch(/^PASS .* noeviction$/);
      expect(line(ok.stdout, 'redis permissions')).toMatch(
        /^PASS .* every command the service runs is permitted/,
      );
      // No Redis line FAILs (the configuration does: this run sets only Redis).
      expect(ok.stdout.split('\n').filter((l) => /^FAIL {2}redis/.test(l))).toEqual([]);
      expect(ok.stdout).not.toContain(PASSWORD);

      const wrong = await runCli(['doctor', '--timeout-ms', '5000'], env(urlWith('not-the-password')));
      expect(line(wrong.stdout, 'redis')).toContain('authentication failed: wrong user or password');
      const noCa = await runCli(
        ['doctor', '--timeout-ms', '5000'],
        env(urlWith(PASSWORD, `ssl_certfile=${file('client.pem')}&ssl_keyfile=${file('client.key')}`)),
      );
      expect(line(noCa.stdout, 'redis')).toContain('self-signed certificate');
    });

    it('FAILs a user lacking a command the service needs, naming it, and every command refuses to start', async () => {
      const env = (user: string) => ({ REDIS_URL: urlWith(PASSWORD, undefined, user), REDIS_PREFIX: prefix });
      const line = (stdout: string, check: string) =>
        stdout.split('\n').find((l) => l.slice(6).startsWith(`${check} `)) ?? '';
      const noEvalsha = await runCli(['doctor', '--timeout-ms', '5000'], env('no-evalsha'));
      expect(noEvalsha.code).toBe(1);
      const failed = line(noEvalsha.stdout, 'redis permissions');
      expect(failed).toMatch(
        /^FAIL .*may not run EVALSHA, which the service needs: add \+evalsha to its ACL/,
      );
      // The same line stops `worker`, `serve`, `backfill`… before they take work.
      const detail = failed.replace(/^FAIL {2}redis permissions +/, '');
      await expect(requireRedis(env('no-evalsha').REDIS_URL, prefix)).rejects.toThrow(detail);

      // `+@all -@dangerous` takes INFO away too: named, and the checks that read it cannot be made.
      const noInfo = await runCli(['doctor', '--timeout-ms', '5000'], env('no-info'));
      expect(noInfo.code).toBe(1);
      expect(line(noInfo.stdout, 'redis permissions')).toMatch(/^FAIL .*may not run INFO.*add \+info/);
      expect(line(noInfo.stdout, 'redis version')).toMatch(/^WARN .*cannot check \(INFO is not permitted\)/);
      expect(line(noInfo.stdout, 'redis maxmemory-policy')).toMatch(/^WARN .*cannot check/);
      expect(noInfo.stdout).toMatch(/\n\d+ checks? failed/);
    });
  },
);

/** `[k1, v1, k2, v2…]` as pairs. */
function chunks(flat: string[]): [string, string][] {
  const out: [string, string][] = [];
  for (let i = 0; i + 1 < flat.length; i += 2) out.push([flat[i] as string, flat[i + 1] as string]);
  return out;
}
