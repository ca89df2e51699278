// Each image's file layout, built the way its Dockerfile builds it, runs: nothing here can build an
// image (no Docker), so the test reads each Dockerfile's COPY lines, copies those files of a clean clone
// (git's tracked files, less its .dockerignore) into a directory, gives it what its `npm ci --omit=dev`
// installs (production dependencies only, by the lockfile: productionDependencies; both Dockerfiles
// run the same install on the same package files, so one install serves both layouts, as one cached
// layer would) and runs the image's commands from there: the product's `--help`, `doctor` and `start`
// (answering /healthz), the sandbox image's `sandbox` with compose's command. A dev dependency the
// image's code imports fails here (the sandbox imported the SMTP sink's `smtp-server` through the demo).
import { type ChildProcess, execFile, execFileSync, spawn } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningBuyerIntelSandbox, startBuyerIntelSandbox } from '../../emulators/buyer-intel/server.ts';
import type { RunningEmulator } from '../../emulators/descriptor.ts';
import { EMULATORS } from '../../emulators/registry.ts';
import { freePort } from '../helpers/ports.ts';
import { REDIS_URL, testPrefix } from '../helpers/redis.ts';
import { sharedDatabase } from '../helpers/test-database.ts';
import { ROOT, service } from './compose-file.ts';

const run = promisify(execFile);

/** The files a Dockerfile's final stage copies from the context: `COPY <dir> ./<dir>` (not `--from`). */
function copiedPaths(dockerfile: string): string[] {
  const last = dockerfile.split(/^FROM /m).at(-1) ?? '';
  return [...last.matchAll(/^COPY (?!--from)(.+)$/gm)].flatMap((m) => {
    const parts = (m[1] ?? '').trim().split(/\s+/);
    return parts.slice(0, -1);
  });
}

/** Whether .dockerignore's patterns leave `path` out (patterns match from the context's root; `!` re-includes). */
function ignored(path: string, patterns: readonly string[]): boolean {
  let out = false;
  for (const raw of patterns) {
    const line = raw.trim();
    if (!line || line.startsWith('#')) continue;
    const negate = line.startsWith('!');
    const pattern = negate ? line.slice(1) : line;
    const regex = new RegExp(
      `^${pattern
        .replace(/[.+^${}()|[\]\\]/g, '\\$&')
        .replace(/\*/g, '[^/]*')
        .replace(/\?/g, '[^/]')}(/|$)`,
    );
    if (regex.test(path)) out = !negate;
  }
  return out;
}

/** Lays out what `dockerfile` copies, from git's tracked files less what `ignoreFile` leaves out. */
function layout(dir: string, dockerfile: string, ignoreFile: string): void {
  const patterns = readFileSync(join(ROOT, ignoreFile), 'utf8').split('\n');
  const tracked = execFileSync('git', ['ls-files', '-z'], { cwd: ROOT, encoding: 'utf8' }).split('\0');
  for (const source of copiedPaths(readFileSync(join(ROOT, dockerfile), 'utf8'))) {
    for (const file of tracked.filter((f) => f === source || f.startsWith(`${source}/`))) {
      if (ignored(file, patterns)) continue;
      mkdirSync(dirname(join(dir, file)), { recursive: true });
      cpSync(join(ROOT, file), join(dir, file));
    }
  }
}

/** An environment with nothing of this machine's but PATH: the image's own, plus `extra`. */
const bare = (extra: Record<string, string>) => ({ PATH: process.env.PATH ?? '', HOME: tmpdir(), ...extra });

let base: string;
const children: ChildProcess[] = [];

/**
 * The production dependencies as `npm ci --omit=dev` installs them: every package of the lockfile that
 * npm does not mark `dev`, hard-linked from this clone's node_modules (seconds, where an offline
 * `npm ci` spends ~50 s extracting 266 packages on a loaded 2-core machine). IMAGE_LAYOUT_NPM_CI=1 runs
 * the Dockerfiles' own `npm ci --omit=dev`, offline from the local npm cache, instead.
 */
async function productionDependencies(deps: string): Promise<void> {
  for (const file of ['package.json', 'package-lock.json']) cpSync(join(ROOT, file), join(deps, file));
  if (process.env.IMAGE_LAYOUT_NPM_CI === '1') {
    await run('npm', ['ci', '--omit=dev', '--offline', '--no-audit', '--no-fund'], {
      cwd: deps,
      env: bare({ npm_config_cache: process.env.npm_config_cache ?? join(process.env.HOME ?? '', '.npm') }),
      timeout: 170_000,
    });
    return;
  }
  const lock = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8')) as {
    packages: Record<string, { dev?: boolean; optional?: boolean }>;
  };
  const entries = Object.entries(lock.packages).filter(([path]) => path.startsWith('node_modules/'));
  const top = (path: string) => !path.slice('node_modules/'.length).includes('/node_modules/');
  // Grouped by the folder they go into (node_modules/, node_modules/@scope/): one `cp` per folder.
  const byParent = new Map<string, string[]>();
  for (const [path, entry] of entries) {
    if (entry.dev || !top(path)) continue;
    if (!existsSync(join(ROOT, path))) {
      // An optional package of another platform: npm leaves it out here too.
      if (entry.optional) continue;
      throw new Error(`${path} is in the lockfile but not installed: run npm ci`);
    }
    const parent = dirname(path);
    byParent.set(parent, [...(byParent.get(parent) ?? []), path]);
  }
  for (const [parent, paths] of byParent) {
    mkdirSync(join(deps, parent), { recursive: true });
    try {
      execFileSync('cp', ['-al', ...paths.map((p) => join(ROOT, p)), join(deps, parent)], {
        stdio: 'ignore',
      });
    } catch {
      // Another file system (a tmpfs /tmp): no hard links across it, so a copy.
      for (const path of paths) {
        rmSync(join(deps, path), { recursive: true, force: true });
        cpSync(join(ROOT, path), join(deps, path), { recursive: true, verbatimSymlinks: true });
      }
    }
  }
  // A dev-only package nested under a production one is not installed by --omit=dev either.
  for (const [path, entry] of entries)
    if (entry.dev && !top(path)) rmSync(join(deps, path), { recursive: true, force: true });
}

beforeAll(async () => {
  base = mkdtempSync(join(tmpdir(), 'image-layout-'));
  const deps = join(base, 'deps');
  mkdirSync(deps);
  // Both Dockerfiles' deps stage: the same install of the same package files, so one serves both.
  await productionDependencies(deps);
  for (const [name, dockerfile, ignoreFile] of [
    ['product', 'Dockerfile', '.dockerignore'],
    ['sandbox', 'emulators/Dockerfile', 'emulators/Dockerfile.dockerignore'],
  ] as const) {
    const dir = join(base, name);
    mkdirSync(dir);
    layout(dir, dockerfile, ignoreFile);
    symlinkSync(join(deps, 'node_modules'), join(dir, 'node_modules'));
  }
}, 180_000);

afterAll(() => {
  for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
  if (base) rmSync(base, { recursive: true, force: true });
});

/** Runs `node <args>` in a layout; resolves with its exit code and output. */
function node(
  dir: string,
  args: string[],
  env: Record<string, string>,
  until?: (stdout: string) => boolean,
): {
  child: ChildProcess;
  done: Promise<{ code: number | null; stdout: string; stderr: string }>;
  ready: Promise<string>;
} {
  const child = spawn(process.execPath, args, { cwd: join(base, dir), env: bare(env) });
  children.push(child);
  let stdout = '';
  let stderr = '';
  let markReady: (s: string) => void = () => {};
  const ready = new Promise<string>((resolve) => {
    markReady = resolve;
  });
  child.stdout?.on('data', (d) => {
    stdout += d;
    if (until?.(stdout)) markReady(stdout);
  });
  child.stderr?.on('data', (d) => {
    stderr += d;
  });
  const done = new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) =>
    child.on('close', (code) => {
      markReady(stdout);
      resolve({ code, stdout, stderr });
    }),
  );
  return { child, done, ready };
}

describe('reading the Dockerfiles as Docker does', () => {
  it('takes the COPY sources of the final stage, and .dockerignore’s patterns from the context root', () => {
    expect(copiedPaths(readFileSync(join(ROOT, 'Dockerfile'), 'utf8'))).toEqual([
      'package.json',
      'src',
      'connectors',
      'queues',
    ]);
    const root = readFileSync(join(ROOT, '.dockerignore'), 'utf8').split('\n');
    expect(ignored('emulators/cli.ts', root)).toBe(true);
    expect(ignored('.env', root)).toBe(true);
    expect(ignored('.env.example', root)).toBe(false);
    expect(ignored('src/cli.ts', root)).toBe(false);
    // `*.md` matches at the root only, as Docker's patterns do.
    expect(ignored('README.md', root)).toBe(true);
    expect(ignored('connectors/README.md', root)).toBe(false);
  });
});

describe('the product image’s layout (Dockerfile, production dependencies only)', () => {
  it('holds no emulator and no test, and answers --help', async () => {
    expect(() => readFileSync(join(base, 'product/emulators/cli.ts'))).toThrow();
    const { done } = node('product', ['src/cli.ts', '--help'], { NODE_ENV: 'production' });
    const { code, stdout, stderr } = await done;
    expect(code, stderr).toBe(0);
    expect(stdout).toMatch(/^ {2}start\s/m);
    expect(stdout).toMatch(/^ {2}doctor\s/m);
  }, 60_000);

  describe('against the emulators', () => {
    let bi: RunningBuyerIntelSandbox;
    const crms: RunningEmulator[] = [];
    let env: Record<string, string>;
    beforeAll(async () => {
      bi = await startBuyerIntelSandbox({ rateLimit: false });
      const exports: string[] = [];
      for (const emulator of EMULATORS) {
        const running = await emulator.start();
        crms.push(running);
        exports.push(...emulator.describe(running, '').exports);
      }
      const db = await sharedDatabase();
      env = {
        NODE_ENV: 'production',
        BUYER_INTEL_BASE_URL: bi.url,
        BUYER_INTEL_TOKEN: bi.token,
        ...Object.fromEntries(
          exports.map((l) =>
            l
              .replace(/^export /, '')
              .split(/=(.*)/s)
              .slice(0, 2),
          ),
        ),
        REDIS_URL,
        REDIS_PREFIX: testPrefix('image-layout'),
        ...db.env,
      };
      // The schema first, as compose's `migrate` service runs it before `app` and `worker`.
      const migrate = await node('product', ['src/cli.ts', 'migrate'], env).done;
      expect(migrate.code, migrate.stderr).toBe(0);
    }, 120_000);
    afterAll(async () => {
      await Promise.all([bi?.close(), ...crms.map((c) => c.close())]);
    });

    it('passes doctor', async () => {
      const { code, stdout, stderr } = await node('product', ['src/cli.ts', 'doctor'], env).done;
      expect(code, `${stdout}\n${stderr}`).toBe(0);
    }, 60_000);

    it('starts, answers /healthz, and stops on SIGTERM with exit code 0', async () => {
      const port = await freePort();
      const started = node('product', ['src/cli.ts', 'start'], {
        ...env,
        HOST: '127.0.0.1',
        PORT: String(port),
      });
      const deadline = Date.now() + 45_000;
      let status = 0;
      while (Date.now() < deadline && started.child.exitCode === null) {
        status = await fetch(`http://127.0.0.1:${port}/healthz`).then(
          (r) => r.status,
          () => 0,
        );
        if (status === 200) break;
        await new Promise((r) => setTimeout(r, 250));
      }
      if (status !== 200) {
        started.child.kill('SIGKILL');
        const { stderr } = await started.done;
        expect.fail(`start did not answer /healthz: ${stderr.split('\n').slice(0, 5).join(' / ')}`);
      }
      started.child.kill('SIGTERM');
      expect((await started.done).code).toBe(0);
    }, 60_000);
  });
});

describe('the sandbox image’s layout (emulators/Dockerfile)', () => {
  it('runs compose’s sandbox command and sends the events to the service named there', async () => {
    const command = service('sandbox').command ?? [];
    expect(command[0]).toBe('node');
    // Every port on 0: the compose ports may be taken on this machine; the options are the same.
    const args = [
      ...command.slice(1),
      '--port',
      '0',
      ...EMULATORS.flatMap((e) => [`--${e.kind}-port`, '0']),
      // Not 0.0.0.0 here: this machine's other tests need no listener on every interface.
      '--host',
      '127.0.0.1',
    ];
    const sandbox = node('sandbox', args, {}, (out) => out.includes('Ctrl-C stops them.'));
    const stdout = await sandbox.ready;
    if (sandbox.child.exitCode === null) sandbox.child.kill('SIGTERM');
    const { code, stderr } = await sandbox.done;
    expect(stdout, stderr).toContain('Ctrl-C stops them.');
    expect(code).toBe(0);
    const serviceUrl = command[command.indexOf('--service-url') + 1];
    expect(stdout).toContain(`Events go to the service at ${serviceUrl}:`);
    expect(stdout).toContain(`export PUBLIC_BASE_URL=${serviceUrl}`);
  }, 60_000);

  it('says in one line that the demo needs the dev dependencies', async () => {
    const { code, stdout, stderr } = await node('sandbox', ['emulators/cli.ts', 'demo'], {}).done;
    expect(code).toBe(1);
    expect(stdout).toBe('');
    expect(stderr).toMatch(
      /^buyer-intel-sync demo: the demo needs the dev dependencies \(.*smtp-server.*\): run `npm ci`/,
    );
    expect(stderr.trim().split('\n')).toHaveLength(1);
  }, 60_000);
});
