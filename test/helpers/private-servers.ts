// Servers of a test's own, so a fault it applies (a stop, a restart) disturbs nobody else's tests: a
// PostgreSQL cluster initdb'd under /tmp on a free port (run as the `postgres` user: initdb refuses
// root), and a redis-server with its AOF on a directory of its own. Never the shared ones.
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { freePort } from './ports.ts';

export const PG_BIN = [
  '/usr/lib/postgresql/17/bin',
  '/usr/lib/postgresql/16/bin',
  '/usr/lib/postgresql/15/bin',
].find((d) => existsSync(join(d, 'pg_ctl')));

export interface PrivatePostgres {
  url: string;
  /** Stops it at once (`-m immediate`: connections cut, as a crash would). */
  stop(): void;
  start(): void;
  remove(): void;
}

export async function privatePostgres(): Promise<PrivatePostgres> {
  const dir = mkdtempSync(join(tmpdir(), 'bis-pg-'));
  execFileSync('chown', ['postgres', dir]);
  const port = await freePort();
  // stdio ignored: a started server keeps inherited pipes open, and the call would wait for them.
  const pg = (tool: string, args: string[]) =>
    execFileSync('runuser', ['-u', 'postgres', '--', join(PG_BIN ?? '', tool), ...args], { stdio: 'ignore' });
  const data = join(dir, 'data');
  pg('initdb', ['-D', data, '-U', 'postgres', '--auth=trust', '-E', 'UTF8']);
  const start = () =>
    pg('pg_ctl', [
      '-D',
      data,
      '-l',
      join(dir, 'log'),
      '-o',
      `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c max_connections=200`,
      '-w',
      'start',
    ]);
  const stop = () => pg('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']);
  start();
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    stop,
    start,
    remove: () => {
      try {
        stop();
      } catch {}
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export interface PrivateRedis {
  url: string;
  /** SIGTERM (Redis fsyncs its AOF and exits), then started again on the same directory. */
  restart(): Promise<void>;
  remove(): Promise<void>;
}

export async function privateRedis(): Promise<PrivateRedis> {
  const dir = mkdtempSync(join(tmpdir(), 'bis-redis-'));
  const port = await freePort();
  const url = `redis://127.0.0.1:${port}`;
  let proc: ChildProcess | undefined;
  const args = ['--port', String(port), '--bind', '127.0.0.1', '--appendonly', 'yes'];
  const start = async () => {
    proc = spawn('redis-server', [...args, '--appendfsync', 'everysec', '--dir', dir, '--save', ''], {
      stdio: 'ignore',
    });
    const probe = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
    probe.on('error', () => undefined);
    try {
      for (const deadline = Date.now() + 20_000; Date.now() < deadline; ) {
        try {
          if (probe.status !== 'ready') await probe.connect();
          if ((await probe.ping()) === 'PONG') return;
        } catch {
          probe.disconnect();
        }
        await new Promise((r) => setTimeout(r, 50));
      }
      throw new Error('the private redis-server did not answer');
    } finally {
      probe.disconnect();
    }
  };
  const stop = async () => {
    const running = proc;
    if (!running || running.exitCode !== null || running.signalCode !== null) return;
    const exited = new Promise<void>((r) => running.once('exit', () => r()));
    running.kill('SIGTERM');
    await exited;
  };
  await start();
  return {
    url,
    restart: async () => {
      await stop();
      await start();
    },
    remove: async () => {
      await stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
