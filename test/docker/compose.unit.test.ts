// The production-relevant settings of docker-compose.yml and the Dockerfile, read as data; and
// `docker compose config -q` (or docker-compose v1) when a compose CLI is installed.
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { WORKER_ENV, WORKER_NODE_FLAGS } from '../../bench/workers.ts';
import { EMULATORS } from '../../emulators/registry.ts';
import {
  COMPOSE_FILE,
  compose,
  ROOT,
  SECRETS,
  sandboxPortProblems,
  sandboxPortRange,
  service,
} from './compose-file.ts';

const dockerfile = readFileSync(join(ROOT, 'Dockerfile'), 'utf8');

/** The compose CLI here: `docker compose` (v2), `docker-compose` (v1), or none. */
function composeCli(): string[] | undefined {
  for (const cli of [['docker', 'compose'], ['docker-compose']]) {
    try {
      execFileSync(cli[0] as string, [...cli.slice(1), 'version'], { stdio: 'ignore' });
      return cli;
    } catch {}
  }
  return undefined;
}
const CLI = composeCli();

describe('docker-compose.yml', () => {
  it('runs Redis the way BullMQ needs it, persisted on a named volume, with a healthcheck', () => {
    const redis = service('redis');
    expect(redis.image).toMatch(/^redis:7/);
    const command = (redis.command ?? []).join(' ');
    expect(command).toContain('--appendonly yes');
    expect(command).toContain('--appendfsync everysec');
    expect(command).toContain('--maxmemory-policy noeviction');
    expect(redis.volumes).toContain('redis-data:/data');
    expect(Object.keys(compose.volumes)).toContain('redis-data');
    expect(redis.healthcheck?.test).toEqual(['CMD', 'redis-cli', 'ping']);
  });

  it('runs PostgreSQL 16 as the system of record, persisted on a named volume, health-checked', () => {
    const postgres = service('postgres');
    expect(postgres.image).toMatch(/^postgres:16/);
    expect(postgres.volumes).toContain('postgres-data:/var/lib/postgresql/data');
    expect(Object.keys(compose.volumes)).toContain('postgres-data');
    expect(postgres.healthcheck?.test?.join(' ')).toContain('pg_isready');
    for (const name of ['app', 'worker']) {
      const s = service(name);
      expect(s.environment?.DATABASE_URL).toMatch(/^postgres:\/\/.*@postgres:5432\//);
      expect(s.depends_on?.postgres?.condition).toBe('service_healthy');
    }
  });

  it('runs the HTTP role as app: serve, port 3000, .env, waits for a healthy Redis, health-checked', () => {
    const app = service('app');
    expect(app.command).toEqual(['node', 'src/cli.ts', 'serve']);
    expect(app.ports?.some((p) => p.endsWith(':3000'))).toBe(true);
    expect(app.env_file).toBe('.env');
    expect(app.environment?.REDIS_URL).toBe('redis://redis:6379');
    expect(app.depends_on?.redis?.condition).toBe('service_healthy');
    expect(app.healthcheck?.test?.join(' ')).toContain('/healthz');
  });

  it('runs workers that scale: worker command, no container_name, no ports, time to drain', () => {
    const worker = service('worker');
    // With the heap flags and the environment the bench measured its memory and CPU with
    // (bench/workers.ts), and still the stack's Redis and PostgreSQL (a worker's own environment
    // replaces the shared one unless it merges it).
    expect(worker.command).toEqual(['node', ...WORKER_NODE_FLAGS, 'src/cli.ts', 'worker']);
    expect(worker.environment).toMatchObject(WORKER_ENV);
    expect(worker.environment?.REDIS_URL).toBe('redis://redis:6379');
    expect(worker.environment?.DATABASE_URL).toBe(service('app').environment?.DATABASE_URL);
    expect(worker.container_name).toBeUndefined();
    expect(worker.ports).toBeUndefined();
    expect(worker.env_file).toBe('.env');
    expect(worker.depends_on?.redis?.condition).toBe('service_healthy');
    // Its own /healthz on METRICS_LISTEN: a live worker that consumes nothing is restarted.
    expect(worker.environment?.METRICS_LISTEN).toBe('0.0.0.0:9464');
    expect(worker.healthcheck?.test?.join(' ')).toContain('http://127.0.0.1:9464/healthz');
    expect(worker.stop_grace_period).toBeDefined();
    expect(worker.image).toBe(service('app').image);
  });

  it('offers the sandbox only behind a profile, from an image of its own', () => {
    const sandbox = service('sandbox');
    expect(sandbox.profiles).toEqual(['sandbox']);
    expect(sandbox.command?.slice(0, 3)).toEqual(['node', 'emulators/cli.ts', 'sandbox']);
    expect(sandbox.build).toEqual({ context: '.', dockerfile: 'emulators/Dockerfile' });
    // One port range on the host's loopback only, EXPOSE'd by its image, holding Buyer Intelligence's
    // port and every registered CRM emulator's: a new CRM on a free port in it changes neither file.
    expect(sandboxPortRange()).toEqual({ from: 4010, to: 4049 });
    expect(sandboxPortProblems(EMULATORS)).toEqual([]);
    expect(EMULATORS.filter((e) => e.port !== 0).length).toBeGreaterThanOrEqual(2);
    expect(sandbox.image).not.toBe(service('app').image);
    // Its webhooks go to the service that receives them, over a network both are on (not to the
    // sandbox container's own 127.0.0.1:3000).
    const target = new URL(sandbox.command?.[(sandbox.command?.indexOf('--service-url') ?? -2) + 1] ?? '');
    expect(target.hostname).toBe('app');
    expect(target.port).toBe('3000');
    expect(service('app').command).toContain('serve');
    expect(service('app').networks?.some((n) => sandbox.networks?.includes(n))).toBe(true);
    // The check itself: a port outside the range, or one taken twice, is named.
    expect(sandboxPortProblems([{ kind: 'x', port: 4050 }])).toEqual([
      'x: port 4050 is outside the published 4010-4049',
    ]);
    expect(sandboxPortProblems([{ kind: 'x', port: 4010 }])).toEqual([
      "x: port 4010 is the Buyer Intelligence sandbox's too",
    ]);
    for (const name of ['redis', 'postgres', 'app', 'worker']) expect(service(name).profiles).toBeUndefined();
  });

  it.skipIf(!CLI)(`is valid for the compose CLI (${CLI?.join(' ') ?? 'none installed'})`, () => {
    // env_file .env must exist; a copy next to an empty one keeps the check independent of a local .env.
    const dir = mkdtempSync(join(tmpdir(), 'compose-'));
    try {
      copyFileSync(COMPOSE_FILE, join(dir, 'docker-compose.yml'));
      writeFileSync(
        join(dir, '.env'),
        SECRETS.map((name) => `${name}=dummy-${name.toLowerCase()}\n`).join(''),
      );
      const cli = CLI as string[];
      execFileSync(cli[0] as string, [...cli.slice(1), '--profile', 'sandbox', 'config', '-q'], {
        cwd: dir,
        stdio: 'pipe',
      });
      // Without them, compose refuses, naming the first one missing.
      writeFileSync(join(dir, '.env'), '');
      let refused = '';
      try {
        execFileSync(cli[0] as string, [...cli.slice(1), 'config', '-q'], { cwd: dir, stdio: 'pipe' });
      } catch (err) {
        refused = String((err as { stderr?: Buffer }).stderr ?? err);
      }
      expect(refused).toMatch(/set [A-Z_]+ in \.env/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('Dockerfile', () => {
  const stages = dockerfile.match(/^FROM .*$/gm) ?? [];

  it('builds on node:24 slim in stages, with production dependencies only', () => {
    expect(stages.length).toBeGreaterThanOrEqual(2);
    for (const from of stages) expect(from).toMatch(/^FROM node:24\.\d+\.\d+-slim@sha256:/);
    expect(dockerfile).toMatch(/^RUN npm ci --omit=dev\b/m);
  });

  it('runs as the non-root node user, exposes 3000, health-checks /healthz, starts the combined role', () => {
    const lastUser = (dockerfile.match(/^USER .*$/gm) ?? []).at(-1);
    expect(lastUser).toBe('USER node');
    expect(dockerfile).toMatch(/^EXPOSE 3000$/m);
    expect(dockerfile).toMatch(/^HEALTHCHECK [\s\S]*\/healthz/m);
    expect(dockerfile).toMatch(/^CMD \["node", ?"src\/cli\.ts", ?"start"\]$/m);
  });

  it('ships a warm compile cache the node user can extend (the bench measures workers with one)', () => {
    const dir = dockerfile.match(/^ENV NODE_COMPILE_CACHE=(\S+)$/m)?.[1];
    expect(dir).toBeDefined();
    const warm = dockerfile.search(/^RUN node src\/cli\.ts --help\b.*&& chown -R node:node (\S+)$/m);
    expect(warm).toBeGreaterThan(dockerfile.indexOf(`ENV NODE_COMPILE_CACHE=${dir}`));
    expect(warm).toBeGreaterThan(dockerfile.indexOf('COPY queues ./queues'));
    expect(warm).toBeLessThan(dockerfile.lastIndexOf('USER node'));
  });

  it('copies what the service runs and .dockerignore keeps secrets, tests and emulators out', () => {
    for (const dir of ['src', 'connectors', 'queues']) expect(dockerfile).toContain(`COPY ${dir} ./${dir}`);
    expect(dockerfile).not.toContain('emulators');
    const ignored = readFileSync(join(ROOT, '.dockerignore'), 'utf8').split('\n');
    for (const entry of ['.env', 'node_modules', 'test', '.git', 'emulators'])
      expect(ignored).toContain(entry);
  });
});

describe('emulators/Dockerfile', () => {
  const sandboxfile = readFileSync(join(ROOT, 'emulators/Dockerfile'), 'utf8');

  it('adds the emulators to what the service runs, and keeps secrets out of its own context', () => {
    for (const dir of ['src', 'connectors', 'queues', 'emulators'])
      expect(sandboxfile).toContain(`COPY ${dir} ./${dir}`);
    expect(sandboxfile).toMatch(/^RUN npm ci --omit=dev\b/m);
    expect((sandboxfile.match(/^USER .*$/gm) ?? []).at(-1)).toBe('USER node');
    // BuildKit reads <Dockerfile>.dockerignore next to the Dockerfile instead of the root one.
    const ignored = readFileSync(join(ROOT, 'emulators/Dockerfile.dockerignore'), 'utf8').split('\n');
    for (const entry of ['.env', 'node_modules', 'test', '.git']) expect(ignored).toContain(entry);
    expect(ignored).not.toContain('emulators');
  });
});
