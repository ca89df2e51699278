// Redis as a managed service hands it out: TLS only (a private CA, the client presenting its own
// certificate), an ACL user with a password and without the dangerous commands (no CONFIG, KEYS,
// FLUSHALL...). A private redis-server started by this test, certificates made with openssl. The
// service runs over it end to end; `doctor` passes, and says why when the password or the CA is wrong.
import { type ChildProcess, execFileSync, spawn, spawnSync } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import which from 'which';
import '../helpers/memory-crm.ts';
import { memoryCrm } from '../../connectors/memory/store.ts';
import type { RunningBuyerIntelSandbox } from '../../emulators/buyer-intel/server.ts';
import { sandboxSettings } from '../../emulators/settings.ts';
import { redisClient } from '../../queues/redis-url.ts';
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
const prefix = `{managed-${randomUUID().slice(0, 8)}}`;
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
) => `rediss://app:${password}@localhost:${port}?${query}`;

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
      ...[
        '--user',
        'default',
        'off',
        '--user',
        'app',
        'on',
        `>${PASSWORD}`,
        '~*',
        '&*',
        '+@all',
        '-@dangerous',
        '+info',
      ],
    ],
    { stdio: 'ignore' },
  );
  const probe = redisClient(urlWith(PASSWORD), {
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
  probe.disconnect();
  bi = await startSandbox();
  const settings = sandboxSettings({ buyerIntel: bi }, { redisUrl: urlWith(PASSWORD), prefix });
  service = await createTestService({ ...settings, crms: { 'memory-crm': { workspace } } });
  await service.connector('memory-crm', workspace).ensureFields(fieldDefinitions(DEFAULT_MAPPING));
  service.startWorker();
  await service.startChangeEvents();
});

afterAll(async () => {
  await service?.close().catch(() => undefined);
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
      expect(ok.stdout).not.toContain(PASSWORD);

      const wrong = await runCli(['doctor', '--timeout-ms', '5000'], env(urlWith('not-the-password')));
      expect(line(wrong.stdout, 'redis')).toContain('authentication failed: wrong user or password');
      const noCa = await runCli(
        ['doctor', '--timeout-ms', '5000'],
        env(urlWith(PASSWORD, `ssl_certfile=${file('client.pem')}&ssl_keyfile=${file('client.key')}`)),
      );
      expect(line(noCa.stdout, 'redis')).toContain('self-signed certificate');
    });
  },
);
