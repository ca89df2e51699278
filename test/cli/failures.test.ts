// What a person sees when something is down: each failure one line on stderr (no stack unless
// --verbose) naming where and why, a non-zero exit code, within 5 seconds — the deadline the issue
// sets, so this file measures each run's wall time. Most runs go through the CLI's own `main` in this
// process (runCliInProcess), timed once that command's modules are loaded (by the same run with Redis
// unreachable just before, which fails right after its imports), so the deadline measures the failure path and not Node's start on a loaded machine. One
// case of each family stays a real child process (`binary`), for what only a process shows: that it
// exits, with that code and that line, once a role's start fails or a library's retry timer is left
// (jsforce's). A child's deadline counts from when its command is loaded: the time of the same run
// with Redis unreachable, which fails right after those imports, is added to it (a `--help` run no
// longer loads them: commands import their service graph once the arguments are valid).
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningBuyerIntelSandbox } from '../../emulators/buyer-intel/server.ts';
import { type RunningHubSpotSandbox, startHubSpotSandbox } from '../../emulators/hubspot/server.ts';
import { startSandbox } from '../helpers/buyer-intel-sandbox.ts';
import { CLI_PATH, cliDatabase, runCliInProcess, sandboxCliEnv } from '../helpers/cli.ts';
import { CLOSED_PORT } from '../helpers/ports.ts';
import { testPrefix } from '../helpers/redis.ts';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
/** The deadline for any failure to be said, once the CLI has started. */
const DEADLINE_AFTER_START_MS = 5_000;

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
  ms: number;
  /** The command run (its module is what a start loads). */
  command: string;
  /** Whether it ran as a child process (its time includes Node's start and the imports). */
  binary: boolean;
}

const commandOf = (args: string[]) => args.find((a) => !a.startsWith('-')) ?? '';

/** Runs the real CLI with exactly `env` (plus PATH); kills it after 20 s so a hang fails instead of stalling. */
async function binary(args: string[], env: Record<string, string>): Promise<Run> {
  const database = 'DATABASE_URL' in env || 'PGLITE_DIR' in env ? {} : (await cliDatabase()).env;
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI_PATH, ...args], {
      env: { PATH: process.env.PATH ?? '', ...database, ...env },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => {
      stdout += d;
    });
    child.stderr.on('data', (d) => {
      stderr += d;
    });
    const killer = setTimeout(() => child.kill('SIGKILL'), 20_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(killer);
      resolve({
        code,
        stdout,
        stderr,
        ms: performance.now() - started,
        command: commandOf(args),
        binary: true,
      });
    });
    child.stdin.end();
  });
}

/** The CLI's `main` in this process, timed. */
async function cli(args: string[], env: Record<string, string>): Promise<Run> {
  const started = performance.now();
  const run = await runCliInProcess(args, env);
  return { ...run, ms: performance.now() - started, command: commandOf(args), binary: false };
}

/**
 * `cli`, timed from when the command's modules are loaded: the same run with Redis unreachable goes
 * first, failing at its first step, right after the command's imports.
 */
async function timedCli(args: string[], env: Record<string, string>): Promise<Run> {
  await runCliInProcess(args, { ...env, REDIS_URL: `redis://127.0.0.1:${CLOSED_PORT}` });
  return cli(args, env);
}

/**
 * The run took at most the deadline from when its command was loaded: in this process, from the
 * run's start; a child process, less what starting its command takes now: `loaded`, the same run
 * failing at its first step (Redis refused), whose time is Node's start and the command's imports.
 */
async function expectWithinDeadline(run: Run, loaded?: () => Promise<Run>): Promise<void> {
  if (run.binary && !loaded) throw new Error('a child process needs the run that measures its start');
  const start = loaded ? (await loaded()).ms : 0;
  expect(run.ms).toBeLessThanOrEqual(DEADLINE_AFTER_START_MS + start);
}

/** stderr as its lines, without the final newline. */
const lines = (stderr: string) => stderr.replace(/\n$/, '').split('\n');
const STACK_FRAME = /^\s+at /m;

let bi: RunningBuyerIntelSandbox;
let hs: RunningHubSpotSandbox;
let deadRedisUrl: string;
let deadPort: number;

beforeAll(async () => {
  [bi, hs] = await Promise.all([startSandbox(), startHubSpotSandbox({})]);
  deadRedisUrl = `redis://127.0.0.1:${CLOSED_PORT}`;
  deadPort = CLOSED_PORT;
});
afterAll(() => Promise.all([bi?.close(), hs?.close()]));

/** A valid configuration for every command: the sandboxes, tenants in Redis, a digest schedule. */
const env = (overrides: Record<string, string> = {}): Record<string, string> => ({
  REDIS_URL,
  REDIS_PREFIX: testPrefix('test-failures'),
  HOST: '127.0.0.1',
  PORT: '0',
  ...sandboxCliEnv(bi, hs),
  // No database named: the file's own (cliDatabase), on the test server when there is one. An enrich
  // opens it before asking the CRM, and an embedded one in memory would add its ~4 s of CPU to start
  // (WASM and migrations) to every run's deadline.
  TOKEN_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
  DIGEST_PER_ACCOUNT_CRON: '0 8 * * 1',
  ...overrides,
});

describe('an unreachable Redis', () => {
  const commands: [string, string[]][] = [
    ['enrich', ['enrich', '--crm', 'hubspot', '--account', '1', '--dry-run']],
    ['start', ['start']],
    ['serve', ['serve']],
    ['worker', ['worker']],
    ['backfill', ['backfill', '--crm', 'hubspot']],
    ['digest', ['digest', '--now']],
    ['tenants', ['tenants', 'list']],
    ['setup', ['setup', '--crm', 'hubspot']],
  ];

  it.each(commands)(
    '%s says so in one line naming the URL and the cause, within 5 s, exit 1',
    async (_, args) => {
      const run = await timedCli(args, env({ REDIS_URL: deadRedisUrl }));
      expect(run.code).toBe(1);
      expect(lines(run.stderr)).toEqual([
        `buyer-intel-sync ${args[0]}: Redis does not answer at ${deadRedisUrl} (connection refused): start Redis or set REDIS_URL`,
      ]);
      await expectWithinDeadline(run);
    },
  );

  it('start as the real binary exits 1 with the same one line', async () => {
    const run = await binary(['start'], env({ REDIS_URL: deadRedisUrl }));
    expect(run.code).toBe(1);
    expect(lines(run.stderr)).toEqual([
      `buyer-intel-sync start: Redis does not answer at ${deadRedisUrl} (connection refused): start Redis or set REDIS_URL`,
    ]);
  });

  // What lets this file run the roles in its own process: a failed start takes back the SIGTERM/SIGINT
  // and error listeners it added (left behind, a SIGTERM to this process would no longer stop it).
  it('a role that fails to start leaves the process its signal and error listeners as they were', async () => {
    const events = ['SIGTERM', 'SIGINT', 'uncaughtException', 'unhandledRejection'] as const;
    const counts = () => events.map((e) => process.listenerCount(e));
    const before = counts();
    for (const role of ['start', 'serve', 'worker'])
      expect((await cli([role], env({ REDIS_URL: deadRedisUrl }))).code).toBe(1);
    expect(counts()).toEqual(before);
  });

  it('never prints the password of REDIS_URL', async () => {
    const url = `redis://:s3cret-passw0rd@${deadRedisUrl.slice('redis://'.length)}`;
    const run = await cli(['tenants', 'list'], env({ REDIS_URL: url }));
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`Redis does not answer at ${deadRedisUrl} (connection refused)`);
    expect(run.stderr).not.toContain('s3cret-passw0rd');
  });

  it('shows the stack only with --verbose, before or after the command name', async () => {
    const quiet = await cli(['enrich', '--account', '1'], env({ REDIS_URL: deadRedisUrl }));
    expect(quiet.stderr).not.toMatch(STACK_FRAME);
    for (const args of [
      ['enrich', '--account', '1', '--verbose'],
      ['--verbose', 'enrich', '--account', '1'],
    ]) {
      const verbose = await cli(args, env({ REDIS_URL: deadRedisUrl }));
      expect(verbose.code).toBe(1);
      const [first, ...rest] = lines(verbose.stderr);
      expect(first).toBe(
        `buyer-intel-sync enrich: Redis does not answer at ${deadRedisUrl} (connection refused): start Redis or set REDIS_URL`,
      );
      expect(rest.join('\n')).toMatch(STACK_FRAME);
      expect(rest.join('\n')).toContain('redis-check.ts');
    }
  });
});

describe('an unreachable API', () => {
  const enrich = ['enrich', '--crm', 'hubspot', '--account', '1', '--dry-run'];

  it('names the HubSpot URL and "connection refused" in one line, within 5 s', async () => {
    const url = `http://127.0.0.1:${deadPort}`;
    const run = await timedCli(enrich, env({ HUBSPOT_BASE_PATH: url }));
    expect(run.code).toBe(1);
    expect(lines(run.stderr)).toEqual([
      `buyer-intel-sync enrich: HubSpot crm.companies.batchApi.read got no answer from ${url}: connection refused`,
    ]);
    expect(run.stderr).not.toContain(hs.accessToken);
    await expectWithinDeadline(run);
  });

  const salesforceArgs = ['enrich', '--crm', 'salesforce', '--account', '001Dn000000LmjeIAC', '--dry-run'];
  const salesforceEnv = () => ({
    ...env(),
    SALESFORCE_INSTANCE_URL: `http://127.0.0.1:${deadPort}`,
    SALESFORCE_LOGIN_URL: `http://127.0.0.1:${deadPort}`,
    SALESFORCE_CLIENT_ID: 'client-id',
    SALESFORCE_CLIENT_SECRET: 'client-secret',
    SALESFORCE_REFRESH_TOKEN: 'refresh-token',
    SALESFORCE_ORG_ID: '00D5g0000007C9R',
  });
  const expectSalesforceRefused = (run: Run) => {
    const url = `http://127.0.0.1:${deadPort}`;
    expect(run.code).toBe(1);
    expect(lines(run.stderr)).toHaveLength(1);
    expect(run.stderr).toMatch(
      new RegExp(
        `^buyer-intel-sync enrich: Salesforce .* ${url.replace(/[.:/]/g, '\\$&')}.*connection refused`,
      ),
    );
    expect(run.stderr).not.toContain('refresh-token');
  };

  it('names the Salesforce URL and "connection refused" in one line, within 5 s (no silent retries)', async () => {
    const run = await timedCli(salesforceArgs, salesforceEnv());
    expectSalesforceRefused(run);
    await expectWithinDeadline(run);
  });

  // The real binary: jsforce's retry timer, left behind, must not keep the process (or its exit code)
  // waiting. Its time is not measured here: two Node starts on a loaded machine vary by seconds.
  it('the real binary exits 1 with that line, whatever jsforce left running', async () => {
    expectSalesforceRefused(await binary(salesforceArgs, salesforceEnv()));
  });

  it('says "host not found" for a host DNS does not know', async () => {
    const run = await timedCli(enrich, env({ HUBSPOT_BASE_PATH: 'http://no-such-host.invalid' }));
    expect(run.code).toBe(1);
    expect(lines(run.stderr)).toHaveLength(1);
    expect(run.stderr).toMatch(
      /^buyer-intel-sync enrich: HubSpot .* got no answer from http:\/\/no-such-host\.invalid: host not found/,
    );
    await expectWithinDeadline(run);
  });

  it('says "TLS handshake failed" for https:// on a port that speaks plain HTTP', async () => {
    const url = hs.url.replace(/^http:/, 'https:');
    const run = await cli(enrich, env({ HUBSPOT_BASE_PATH: url }));
    expect(run.code).toBe(1);
    expect(lines(run.stderr)).toEqual([
      `buyer-intel-sync enrich: HubSpot crm.companies.batchApi.read got no answer from ${url}: TLS handshake failed`,
    ]);
  });

  it('names the Buyer Intelligence URL and the cause in one line, within 5 s', async () => {
    const id = hs.store.createCompany({ name: 'Travis County', state: 'TX' }, { source: 'CRM_UI' }).id;
    const url = `http://127.0.0.1:${deadPort}`;
    const run = await timedCli(
      ['enrich', '--crm', 'hubspot', '--account', id, '--dry-run'],
      env({ BUYER_INTEL_BASE_URL: url }),
    );
    expect(run.code).toBe(1);
    expect(lines(run.stderr)).toHaveLength(1);
    expect(run.stderr).toMatch(
      new RegExp(
        `^buyer-intel-sync enrich: \\w+: could not reach the Buyer Intelligence API at ${url}: connection refused\\n$`,
      ),
    );
    expect(run.stderr).not.toContain(bi.token);
    await expectWithinDeadline(run);
  });
});

describe('doctor', () => {
  it('fails the redis check on an invalid REDIS_URL and tests no other Redis', async () => {
    const run = await cli(['doctor', '--timeout-ms', '4000'], env({ REDIS_URL: 'nonsense' }));
    expect(run.code).toBe(1);
    const redisLines = run.stdout.split('\n').filter((l) => / {2}redis/.test(l));
    expect(redisLines[0]).toMatch(
      /^FAIL {2}redis {2,}REDIS_URL must be a redis:\/\/ or rediss:\/\/ URL, got "nonsense"$/,
    );
    expect(redisLines.filter((l) => l.startsWith('PASS'))).toEqual([]);
    expect(run.stdout).not.toContain('127.0.0.1:6379');
  });

  it('does not echo an invalid REDIS_URL that may hold a password', async () => {
    const run = await cli(
      ['doctor', '--timeout-ms', '4000'],
      env({ REDIS_URL: 'redis//:hunter2-pass@host' }),
    );
    expect(run.stdout).toMatch(/^FAIL {2}redis {2,}REDIS_URL must be a redis:\/\/ or rediss:\/\/ URL/m);
    expect(run.stdout).not.toContain('hunter2-pass');
  });

  it('names the cause when the Redis it was given does not answer', async () => {
    const run = await cli(['doctor', '--timeout-ms', '4000'], env({ REDIS_URL: deadRedisUrl }));
    expect(run.stdout).toMatch(
      new RegExp(`^FAIL {2}redis {2,}cannot reach ${deadRedisUrl}: connection refused$`, 'm'),
    );
  });
});

describe('usage errors', () => {
  it('an unknown option is one clean line, exit 2', async () => {
    const run = await cli(['enrich', '--foo'], env());
    expect(run.code).toBe(2);
    expect(lines(run.stderr)).toEqual([
      'buyer-intel-sync enrich: unknown option --foo (see buyer-intel-sync enrich --help)',
    ]);
  });

  // As the real binary: `enrich` checks its arguments before it imports the service graph
  // (src/cli/enrich.ts), so a mistyped option is answered without the ~1 s of CPU that loading costs.
  it('a bad argument to the real enrich is one clean line, exit 2', async () => {
    const run = await binary(['enrich', '--crm', 'hubspot'], env());
    expect(run.code).toBe(2);
    expect(lines(run.stderr)).toEqual([
      'buyer-intel-sync enrich: --account <id> is required (see buyer-intel-sync enrich --help)',
    ]);
  });

  it('a missing option value is one clean line, exit 2', async () => {
    const run = await cli(['enrich', '--crm', 'hubspot', '--account'], env());
    expect(run.code).toBe(2);
    expect(lines(run.stderr)).toEqual([
      'buyer-intel-sync enrich: --account needs a value (see buyer-intel-sync enrich --help)',
    ]);
  });

  it('an unknown command is one line listing the commands, exit 2', async () => {
    // The real binary: the one case that loads no command's module, so the cheapest real run.
    const run = await binary(['enrihc'], env());
    expect(run.code).toBe(2);
    expect(lines(run.stderr)).toHaveLength(1);
    expect(run.stderr).toContain('unknown command "enrihc"');
    expect(run.stderr).toContain('enrich');
  });
});
