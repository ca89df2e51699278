// Vitest's globalSetup (vitest.config.ts): before any test file runs, make sure what the suite needs from
// the machine is there. A Redis: the one at REDIS_URL when it answers, otherwise a private redis-server
// started here for this run only. Debian's Chromium, for the admin page. A missing one stops the run at
// once with one line naming the package to install, rather than dozens of failing tests or a silent skip.
//
// Starting redis-server is done by hand (spawn, wait for PING) rather than with redis-memory-server: that
// library's model is to download and build its own Redis, which a machine without that download cannot do,
// and with the system binary it would replace only these few lines at the cost of a dozen dependencies.
import { type ChildProcess, spawn } from 'node:child_process';
import { constants } from 'node:fs';
import { access, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import getPort from 'get-port';
import { Redis } from 'ioredis';
import which from 'which';

export const DEFAULT_REDIS_URL = 'redis://127.0.0.1:6379';
export const DEFAULT_CHROMIUM_PATH = '/usr/bin/chromium';

/** A prerequisite the machine lacks; `message` is the one line the run stops with. */
export class MissingPrerequisite extends Error {
  override name = 'MissingPrerequisite';
}

/** What `ask` learns from the Redis at `url`, or undefined when none answers within `timeoutMs`. */
async function askRedis<T>(url: string, timeoutMs: number, ask: (redis: Redis) => Promise<T>) {
  const probe = new Redis(url, {
    lazyConnect: true,
    connectTimeout: timeoutMs,
    // Something that accepts the connection but never speaks Redis must not hang the run either.
    commandTimeout: timeoutMs,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
  });
  probe.on('error', () => undefined);
  try {
    await probe.connect();
    return await ask(probe);
  } catch {
    return undefined;
  } finally {
    probe.disconnect();
  }
}

/** Whether a Redis answers PING at `url` within `timeoutMs` (refused, unknown host, silence: all false). */
export async function redisAnswers(url: string, timeoutMs = 1000): Promise<boolean> {
  return (await askRedis(url, timeoutMs, (redis) => redis.ping())) === 'PONG';
}

export interface TestRedis {
  url: string;
  /** True when this run started the redis-server itself. */
  started: boolean;
  /** The private server's data folder (removed by stop), when started. */
  dir?: string | undefined;
  stop(): Promise<void>;
}

export interface RedisOptions {
  url: string;
  /** Where to look for redis-server (default: PATH). */
  searchPath?: string | undefined;
}

/** Either Redis answers at the URL, or the redis-server to start: decided without starting anything. */
export type RedisPlan = { answers: true } | { answers: false; server: string };

/** MissingPrerequisite when nothing answers at `url` and no redis-server is installed. */
export async function planRedis({ url, searchPath }: RedisOptions): Promise<RedisPlan> {
  if (await redisAnswers(url)) return { answers: true };
  const server = await which('redis-server', { path: searchPath, nothrow: true });
  if (!server) {
    throw new MissingPrerequisite(
      `Redis does not answer at ${url} and redis-server is not installed: apt-get install -y redis-server (or set REDIS_URL)`,
    );
  }
  return { answers: false, server };
}

/**
 * The Redis the tests use: `url` when it answers; else a private redis-server on a free port (nothing
 * persisted, its files in a temporary folder), when one is installed; else MissingPrerequisite.
 */
export async function ensureRedis(options: RedisOptions): Promise<TestRedis> {
  const plan = await planRedis(options);
  if (plan.answers) return { url: options.url, started: false, stop: async () => undefined };
  return startPrivateRedis(plan.server, options.url);
}

async function startPrivateRedis(server: string, wanted: string): Promise<TestRedis> {
  const dir = await mkdtemp(join(tmpdir(), 'buyer-intel-test-redis-'));
  let lastFailure = '';
  // A free port can be taken between asking and binding (other test runs start in parallel): try again.
  for (let attempt = 0; attempt < 3; attempt++) {
    const port = await getPort({ host: '127.0.0.1' });
    const child = spawn(
      server,
      ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--save', '', '--appendonly', 'no'],
      { stdio: 'ignore' },
    );
    const url = `redis://127.0.0.1:${port}`;
    const failure = await untilAnswers(child, url);
    if (!failure) {
      // Should the run die without its teardown (an uncaught error in the runner), take the server along.
      const killOnExit = () => child.kill('SIGKILL');
      process.once('exit', killOnExit);
      return {
        url,
        started: true,
        dir,
        stop: async () => {
          process.removeListener('exit', killOnExit);
          await stopChild(child);
          await rm(dir, { recursive: true, force: true });
        },
      };
    }
    lastFailure = failure;
    await stopChild(child);
  }
  await rm(dir, { recursive: true, force: true });
  throw new MissingPrerequisite(
    `Redis does not answer at ${wanted} and a private redis-server (${server}) did not start: ${lastFailure}`,
  );
}

/** Resolves undefined once the server answers PING, or why it never will. */
async function untilAnswers(child: ChildProcess, url: string): Promise<string | undefined> {
  let exited: string | undefined;
  child.once('error', (err) => {
    exited = err.message;
  });
  child.once('exit', (code, signal) => {
    exited = `it exited (${signal ?? `code ${code}`})`;
  });
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline) {
    if (exited) return exited;
    // The server's own pid, not just any answer: another run may have taken the port first.
    const pid = await askRedis(
      url,
      500,
      async (redis) => /process_id:(\d+)/.exec(await redis.info('server'))?.[1],
    );
    if (pid !== undefined && Number(pid) === child.pid) return undefined;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return 'it did not answer PING within 10 s';
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
  await exited;
  clearTimeout(timer);
}

/** The admin-page test drives this executable (test/admin/admin-page.test.ts); MissingPrerequisite if absent. */
export async function checkChromium(path: string): Promise<void> {
  try {
    await access(path, constants.X_OK);
  } catch {
    throw new MissingPrerequisite(
      'Chromium is not installed: apt-get install -y chromium (or set CHROMIUM_PATH)',
    );
  }
}

/** Vitest globalSetup: runs once in the main process; the forked test workers inherit its environment. */
export default async function setup(): Promise<() => Promise<void>> {
  const url = process.env.REDIS_URL ?? DEFAULT_REDIS_URL;
  // Both checked before anything is started, so that a machine missing both hears of both at once.
  const [chromium, redisPlan] = await Promise.allSettled([
    checkChromium(process.env.CHROMIUM_PATH ?? DEFAULT_CHROMIUM_PATH),
    planRedis({ url }),
  ]);
  const missing = [chromium, redisPlan].flatMap((r) => (r.status === 'rejected' ? [r.reason] : []));
  if (missing.length > 0) stopRun(missing);
  if (redisPlan.status === 'rejected' || redisPlan.value.answers) {
    process.env.REDIS_URL = url;
    return async () => undefined;
  }
  let redis: TestRedis;
  try {
    redis = await startPrivateRedis(redisPlan.value.server, url);
  } catch (err) {
    stopRun([err]);
  }
  console.log(`Redis does not answer at ${url}: the tests use a private redis-server at ${redis.url}`);
  process.env.REDIS_URL = redis.url;
  return () => redis.stop();
}

function stopRun(errors: unknown[]): never {
  const lines = errors.map((err) => {
    if (err instanceof MissingPrerequisite) return `${err.message}\n`;
    throw err;
  });
  // Vitest would frame a thrown error with its own banner and a stack; the line alone says it all.
  process.stderr.write(lines.join(''));
  process.exit(1);
}
