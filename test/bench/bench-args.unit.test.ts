// The bench scripts' flags as a person meets them: `--help` lists every flag with what it does and its
// default and exits 0; a flag a script does not take is one line naming it and pointing at --help,
// exit 2, never node's TypeError with its stack. Each script runs as a subprocess, as `npm run bench --`
// runs it; it stops at its flags, before it starts anything. The bounds on the subprocess tests are for
// node's start on a loaded machine, not a measure of anything.
import { execFile } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { RUN_COMMAND } from '../../bench/run-options.ts';

const BENCH = new URL('../../bench/', import.meta.url).pathname;

function bench(script: string, args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [`bench/${script}`, ...args], { cwd: `${BENCH}..` }, (err, stdout, stderr) =>
      resolve({ code: err ? Number(err.code ?? -1) : 0, stdout, stderr }),
    );
  });
}

/** The bench files that read flags: each must take them through bench/args.ts. */
const flagged = readdirSync(BENCH)
  .filter((f) => f.endsWith('.ts') && f !== 'args.ts')
  .filter((f) => /\bbenchArgs\(|\bparseArgs\(/.test(readFileSync(`${BENCH}${f}`, 'utf8')));

describe('node bench/run.ts --help', () => {
  it('lists every option of its config, each with what it does and its default, and exits 0', async () => {
    const { code, stdout, stderr } = await bench('run.ts', ['--help']);
    expect(code).toBe(0);
    expect(stderr).toBe('');
    const lines = stdout.split('\n');
    for (const [name, option] of Object.entries(RUN_COMMAND.options)) {
      const line = lines.find((l) => l.trimStart().startsWith(`--${name} `) || l.trim() === `--${name}`);
      expect(line, `--${name} is not in the usage text`).toBeDefined();
      // A flag added without its line of help shows as one without a description.
      const describe: unknown = (option as { describe?: unknown }).describe;
      expect(typeof describe === 'string' && describe.trim().length > 0, `--${name} has no help`).toBe(true);
      expect(line).toContain(describe);
      // An empty default (no run of that kind) reads "none".
      expect(line).toContain(`(default ${option.default === '' ? 'none' : option.default})`);
    }
    expect(stdout).toMatch(/^\s+-h, --help\s+\S/m);
    // -h is the same text.
    expect((await bench('run.ts', ['-h'])).stdout).toBe(stdout);
  }, 120_000);

  it('an unknown option: one line naming it and pointing at --help, exit 2, nothing on stdout', async () => {
    const { code, stdout, stderr } = await bench('run.ts', ['--acounts', '10']);
    expect(code).toBe(2);
    expect(stdout).toBe('');
    expect(stderr.trimEnd().split('\n')).toEqual([
      'bench/run.ts: unknown option --acounts (see node bench/run.ts --help)',
    ]);
  }, 120_000);

  it('an option without its value is refused the same way', async () => {
    const { code, stderr } = await bench('run.ts', ['--accounts']);
    expect(code).toBe(2);
    const said = stderr.trimEnd().split('\n');
    expect(said).toHaveLength(1);
    expect(said[0]).toContain('--accounts');
    expect(said[0]).toContain('--help');
  }, 120_000);
});

describe('every other bench script that reads flags', () => {
  it('reads them through bench/args.ts', () => {
    expect(flagged).toContain('run.ts');
    for (const file of flagged) {
      const source = readFileSync(`${BENCH}${file}`, 'utf8');
      expect(source, `${file} parses flags itself`).not.toMatch(/\bparseArgs\(/);
    }
  });

  it('prints its usage on --help (exit 0) and refuses an unknown flag in one line (exit 2)', async () => {
    // The scripts side by side: each run is a node start and a parse, and one after another they took
    // 19 s of the suite.
    const files = flagged.filter((f) => f !== 'run.ts');
    const runs = await Promise.all(
      files.map(async (file) => ({
        file,
        help: await bench(file, ['--help']),
        wrong: await bench(file, ['--no-such-flag']),
      })),
    );
    for (const { file, help, wrong } of runs) {
      expect(help.code, `${file} --help`).toBe(0);
      expect(help.stdout).toContain(`Usage: node bench/${file}`);
      expect(help.stdout).toMatch(/^\s+--\S+/m);
      expect(wrong.code, `${file} --no-such-flag`).toBe(2);
      expect(wrong.stderr.trimEnd().split('\n')).toEqual([
        `bench/${file}: unknown option --no-such-flag (see node bench/${file} --help)`,
      ]);
    }
  }, 300_000);
});
