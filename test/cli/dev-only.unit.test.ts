// `demo` and `sandbox` moved out of the product into emulators/cli.ts: the product's binary only says
// where they went, and the emulators' entry answers like the product's (same runner).
import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.ts';

const EMULATORS_CLI = new URL('../../emulators/cli.ts', import.meta.url).pathname;

describe('the product CLI without the emulators', () => {
  it('answers demo and sandbox with one line saying where they run, exit 2', async () => {
    for (const name of ['demo', 'sandbox']) {
      const run = await runCli([name], {});
      expect(run.code).toBe(2);
      expect(run.stdout).toBe('');
      expect(run.stderr).toBe(`the ${name} needs the emulators: run \`npm run ${name}\` from a clone\n`);
    }
  });
});

describe('emulators/cli.ts', () => {
  it('prints the sandbox usage on --help and exits 2 on an unknown option or command', async () => {
    const help = await runNode(['sandbox', '--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('--hubspot-port <n>');
    expect(help.stdout).toContain('--salesforce-port <n>');
    const bad = await runNode(['sandbox', '--nope']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('buyer-intel-sync sandbox: ');
    const unknown = await runNode(['start']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('unknown command "start"');
  });

  it('runs the sandbox until SIGTERM, then exits 0', async () => {
    const child = spawn(process.execPath, [
      EMULATORS_CLI,
      'sandbox',
      '--port',
      '0',
      '--hubspot-port',
      '0',
      '--salesforce-port',
      '0',
    ]);
    let stdout = '';
    const ready = new Promise<void>((resolve) => {
      child.stdout.on('data', (d) => {
        stdout += d;
        if (stdout.includes('Ctrl-C stops them.')) resolve();
      });
    });
    const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
    try {
      await ready;
      expect(stdout).toMatch(/Buyer Intelligence sandbox: http:\/\/127\.0\.0\.1:\d+/);
      expect(stdout).toMatch(/HubSpot emulator: http:\/\/127\.0\.0\.1:\d+/);
      expect(stdout).toMatch(/Salesforce emulator: http:\/\/127\.0\.0\.1:\d+/);
    } finally {
      child.kill('SIGTERM');
    }
    expect(await exited).toBe(0);
  });
});

function runNode(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [EMULATORS_CLI, ...args]);
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => {
      stdout += d;
    });
    child.stderr.on('data', (d) => {
      stderr += d;
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr }));
  });
}
