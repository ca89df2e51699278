// The `buyer-intel-sync` binary as a newcomer runs it: `npx buyer-intel-sync` in a clone (on the project's
// own Node), the same file on whatever `node` their shell finds (one line when it cannot run TypeScript),
// and the built package, which has dist/ and no src/.
import { execFile } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join, sep } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = new URL('../../', import.meta.url).pathname;
const LAUNCHER = join(ROOT, 'bin/buyer-intel-sync.js');
const USAGE = 'Usage: buyer-intel-sync <command> [options]';
const PACKAGE_VERSION = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string })
  .version;
const TOO_OLD =
  'buyer-intel-sync needs Node ≥ 22.18 (the project brings Node 24): run it as `npx buyer-intel-sync …` or `npm run cli -- …` from the project folder\n';

// A shell's PATH, without the node_modules/.bin that npm or vitest may have put first: what a person has
// when they type a command after `npm ci`.
const SHELL_PATH = (process.env.PATH ?? '')
  .split(delimiter)
  .filter((dir) => !dir.split(sep).includes('node_modules'))
  .join(delimiter);

/** The `node` that shell finds (the system's, v20 on the development machine). */
function shellNode(): string {
  for (const dir of SHELL_PATH.split(delimiter)) {
    const candidate = join(dir, 'node');
    if (dir && existsSync(candidate)) return candidate;
  }
  throw new Error(`no node on PATH outside node_modules (${SHELL_PATH})`);
}

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

function run(file: string, args: string[], cwd = ROOT, env: NodeJS.ProcessEnv = {}): Promise<Run> {
  return promisify(execFile)(file, args, { cwd, env: { ...process.env, PATH: SHELL_PATH, ...env } }).then(
    (r) => ({ code: 0, stdout: r.stdout, stderr: r.stderr }),
    (e: { code: number; stdout: string; stderr: string }) => ({
      code: e.code,
      stdout: e.stdout,
      stderr: e.stderr,
    }),
  );
}

describe('from a clone', () => {
  it('`npx buyer-intel-sync --help` prints the usage and exits 0', async () => {
    const help = await run('npx', ['buyer-intel-sync', '--help']);
    expect(help.code).toBe(0);
    expect(help.stdout.startsWith(USAGE)).toBe(true);
    expect(help.stdout).toContain('enrich ');
  });

  it('`npx buyer-intel-sync --version` prints the package’s version', async () => {
    const version = await run('npx', ['buyer-intel-sync', '--version']);
    expect(version).toMatchObject({ code: 0, stdout: `buyer-intel-sync ${PACKAGE_VERSION}\n` });
  });

  // Issue 48: npx's first call in a clone installs the project into npx's cache, and npm, on the
  // shell's Node 20, printed ten lines of EBADENGINE for the project's `engines` (and its update
  // banner): nothing but the version now.
  it('`npx buyer-intel-sync --version` on a fresh npm cache prints the version and nothing else', async () => {
    const cache = mkdtempSync(join(tmpdir(), 'bis-npx-cache-'));
    try {
      const first = await run('npx', ['buyer-intel-sync', '--version'], ROOT, { npm_config_cache: cache });
      expect(first).toEqual({ code: 0, stdout: `buyer-intel-sync ${PACKAGE_VERSION}\n`, stderr: '' });
    } finally {
      rmSync(cache, { recursive: true, force: true });
    }
  }, 60_000);

  it('passes the CLI’s exit codes through: 2 for an unknown command', async () => {
    const unknown = await run('npx', ['buyer-intel-sync', 'nope']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('buyer-intel-sync: unknown command "nope"');
  });

  it('`npm run cli -- --help` prints the usage and exits 0', async () => {
    const help = await run('npm', ['run', '--silent', 'cli', '--', '--help']);
    expect(help.code).toBe(0);
    expect(help.stdout.startsWith(USAGE)).toBe(true);
  });

  it('on the shell’s own node: one line saying how to run it when that Node cannot strip types', async () => {
    const node = shellNode();
    const probe = await run(node, ['-p', 'Boolean(process.features.typescript)']);
    expect(probe.code).toBe(0);
    const result = await run(node, [LAUNCHER, '--help']);
    if (probe.stdout.trim() === 'false') {
      expect(result).toEqual({ code: 1, stdout: '', stderr: TOO_OLD });
    } else {
      expect(result.code).toBe(0);
      expect(result.stdout.startsWith(USAGE)).toBe(true);
    }
  });
});

describe('from the built package (dist/, no src/)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'bis-package-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('`npm run build` output runs through the same launcher', { timeout: 120_000 }, async () => {
    const build = await run(process.execPath, [
      join(ROOT, 'node_modules/typescript/bin/tsc'),
      '-p',
      join(ROOT, 'tsconfig.build.json'),
      '--outDir',
      join(dir, 'dist'),
      // Emit only: `npm run typecheck` checks the types; this checks that what is emitted runs.
      '--noCheck',
    ]);
    expect(build).toMatchObject({ code: 0, stderr: '' });
    cpSync(join(ROOT, 'bin'), join(dir, 'bin'), { recursive: true });
    cpSync(join(ROOT, 'package.json'), join(dir, 'package.json'));
    symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'));
    expect(existsSync(join(dir, 'src'))).toBe(false);

    const help = await run(process.execPath, [join(dir, 'bin/buyer-intel-sync.js'), '--help'], dir);
    expect(help.code).toBe(0);
    expect(help.stdout.startsWith(USAGE)).toBe(true);
    const usage = await run(process.execPath, [join(dir, 'bin/buyer-intel-sync.js'), 'enrich'], dir);
    expect(usage.code).toBe(2);
    expect(usage.stderr).toContain('--account <id> is required');
    const version = await run(process.execPath, [join(dir, 'bin/buyer-intel-sync.js'), '--version'], dir);
    expect(version).toMatchObject({ code: 0, stdout: `buyer-intel-sync ${PACKAGE_VERSION}\n` });
    // On an older Node (the shell's, v20 on the development machine) the package says so in one line.
    const node = shellNode();
    const major = Number((await run(node, ['-p', 'process.versions.node'])).stdout.split('.')[0]);
    const old = await run(node, [join(dir, 'bin/buyer-intel-sync.js'), '--version'], dir);
    if (major < 24)
      expect(old).toMatchObject({
        code: 1,
        stdout: '',
        stderr: expect.stringMatching(/^buyer-intel-sync needs Node ≥ 24; this is Node [\d.]+\n$/),
      });
    else expect(old.code).toBe(0);
  });
});
