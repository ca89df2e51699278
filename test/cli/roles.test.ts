// The service roles as real processes against the sandboxes and real Redis: `serve` answers HTTP and
// runs no worker, `worker` runs workers and no HTTP, and both drain and exit 0 on SIGTERM.
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningBuyerIntelSandbox } from '../../emulators/buyer-intel/server.ts';
import { type RunningHubSpotSandbox, startHubSpotSandbox } from '../../emulators/hubspot/server.ts';
import { startSandbox } from '../helpers/buyer-intel-sandbox.ts';
import { sandboxCliEnv } from '../helpers/cli.ts';
import { itWithPostgres } from '../helpers/databases.ts';
import { concurrentDatabase } from '../helpers/test-database.ts';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const CLI = new URL('../../src/cli.ts', import.meta.url).pathname;
const prefix = `test-roles-${randomUUID().slice(0, 8)}`;

let bi: RunningBuyerIntelSandbox;
let hs: RunningHubSpotSandbox;
let redis: Redis;
let queue: Queue;
/** serve and worker share a database: a real PostgreSQL (the embedded one serves one process). */
let database: Record<string, string>;
const children: ChildProcessWithoutNullStreams[] = [];

beforeAll(async () => {
  [bi, hs] = await Promise.all([startSandbox(), startHubSpotSandbox({})]);
  redis = new Redis(REDIS_URL);
  queue = new Queue('enrich', { connection: redis, prefix });
  database = (await concurrentDatabase()).env;
});
afterAll(async () => {
  for (const child of children)
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  await queue.obliterate({ force: true }).catch(() => undefined);
  await queue.close();
  const keys = await redis.keys(`${prefix}:*`);
  if (keys.length) await redis.del(...keys);
  await redis.quit();
  await Promise.all([bi.close(), hs.close()]);
});

const env = (): Record<string, string> => ({
  PATH: process.env.PATH ?? '',
  ...database,
  REDIS_URL,
  REDIS_PREFIX: prefix,
  HOST: '127.0.0.1',
  PORT: '0',
  ...sandboxCliEnv(bi, hs),
  API_KEYS: 'k'.repeat(32),
});

interface Running {
  child: ChildProcessWithoutNullStreams;
  started: Record<string, unknown>;
  stderr: () => string;
}

/** Spawns a role and resolves with its `started` log line. */
function run(role: string, extra: Record<string, string> = {}): Promise<Running> {
  const child = spawn(process.execPath, [CLI, role], { env: { ...env(), ...extra } });
  children.push(child);
  let stderr = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${role} did not start:\n${stderr}`)), 30_000);
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      for (const line of stderr.split('\n')) {
        if (!line.startsWith('{')) continue;
        const entry = JSON.parse(line) as Record<string, unknown>;
        if (entry.msg === 'started') {
          clearTimeout(timer);
          resolve({ child, started: entry, stderr: () => stderr });
          return;
        }
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${role} exited with ${code} before starting:\n${stderr}`));
    });
  });
}

/** Sends SIGTERM; resolves with the exit code and how long the process took to stop. */
function stop(child: ChildProcessWithoutNullStreams): Promise<{ code: number | null; ms: number }> {
  const t0 = Date.now();
  return new Promise((resolve) => {
    child.once('exit', (code) => resolve({ code, ms: Date.now() - t0 }));
    child.kill('SIGTERM');
  });
}

describe('buyer-intel-sync serve', () => {
  itWithPostgres(
    'answers /healthz and a 401 on an unsigned /api/refresh, runs no worker, exits 0 on SIGTERM',
    async () => {
      const serve = await run('serve');
      expect(serve.started.role).toBe('serve');
      const url = String(serve.started.url);
      expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);

      const health = await fetch(`${url}/healthz`);
      expect(health.status).toBe(200);

      const refresh = await fetch(`${url}/api/refresh`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ crm: 'hubspot', accountId: '1' }),
      });
      expect(refresh.status).toBe(401);
      expect(refresh.headers.get('content-type')).toMatch(/json/);
      expect(await refresh.json()).toBeTypeOf('object');

      expect(await queue.getWorkersCount()).toBe(0);

      const stopped = await stop(serve.child);
      expect(stopped.code).toBe(0);
      expect(stopped.ms).toBeLessThan(5_000);
      expect(serve.stderr()).toContain('"msg":"stopped"');
    },
    60_000,
  );
});

describe('buyer-intel-sync worker', () => {
  itWithPostgres(
    'runs the enrich worker without HTTP and exits 0 on SIGTERM',
    async () => {
      const worker = await run('worker');
      expect(worker.started.role).toBe('worker');
      expect(worker.started.url).toBeUndefined();
      await expect.poll(() => queue.getWorkersCount(), { timeout: 5_000 }).toBeGreaterThan(0);

      const stopped = await stop(worker.child);
      expect(stopped.code).toBe(0);
      expect(stopped.ms).toBeLessThan(5_000);
      expect(worker.stderr()).toContain('"msg":"stopped"');
    },
    60_000,
  );
});

describe('serve and worker without DATABASE_URL', () => {
  for (const role of ['serve', 'worker'])
    it(`${role} stops at start with one line saying to set DATABASE_URL`, async () => {
      const { DATABASE_URL: _, ...rest } = env();
      const child = spawn(process.execPath, [CLI, role], { env: rest });
      let stderr = '';
      child.stderr.on('data', (d: Buffer) => {
        stderr += d.toString();
      });
      const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
      expect(code).toBe(1);
      expect(stderr).toBe(
        `buyer-intel-sync ${role}: serve and worker run as separate processes and need a shared database: set DATABASE_URL (PostgreSQL)\n`,
      );
    });
});

describe('buyer-intel-sync start', () => {
  it('still runs both: HTTP and a worker in one process, on the embedded database; exits 0 on SIGTERM', async () => {
    // One process: the embedded database is enough (and what a small install runs).
    const start = await run('start', { DATABASE_URL: '', PGLITE_DIR: 'memory' });
    expect(start.started.role).toBe('start');
    expect((await fetch(`${String(start.started.url)}/healthz`)).status).toBe(200);
    await expect.poll(() => queue.getWorkersCount(), { timeout: 5_000 }).toBeGreaterThan(0);

    const stopped = await stop(start.child);
    expect(stopped.code).toBe(0);
    expect(stopped.ms).toBeLessThan(5_000);
  }, 60_000);
});
