// `npm run demo` as a newcomer reads it: both CRMs' tables, the example match, the needs-review
// example and the upstream call counts, drawn as tables within 100 columns (no console.table).
import { spawn } from 'node:child_process';
import { expect, it } from 'vitest';

const EMULATORS_CLI = new URL('../../emulators/cli.ts', import.meta.url).pathname;

it('prints what it did in tables no wider than 100 columns', async () => {
  const { code, stdout } = await new Promise<{ code: number | null; stdout: string }>((resolve, reject) => {
    const child = spawn(process.execPath, [EMULATORS_CLI, 'demo'], {
      env: {
        PATH: process.env.PATH ?? '',
        REDIS_URL: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
        // The demo's emulators check their answers like every other test's (test/setup/conformance.ts).
        ...(process.env.EMULATOR_CONFORMANCE_FILE
          ? { EMULATOR_CONFORMANCE_FILE: process.env.EMULATOR_CONFORMANCE_FILE }
          : {}),
      },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.on('data', (d) => {
      out += d;
    });
    child.on('error', reject);
    child.on('close', (c) => resolve({ code: c, stdout: out }));
  });
  expect(code).toBe(0);
  const lines = stdout.split('\n');
  expect(Math.max(...lines.map((l) => [...l].length))).toBeLessThanOrEqual(100);
  expect(stdout).not.toContain('(index)');
  expect(stdout).not.toMatch(/'(enriched|needs_review|no_match)'/);

  const tableAfter = (title: string) => {
    const start = lines.findIndex((l) => l.startsWith(title));
    const end = lines.findIndex((l, i) => i > start && l.startsWith('└'));
    return lines.slice(start + 1, end + 1);
  };
  for (const [title, rows] of [
    ['HubSpot companies', 20],
    ['Salesforce Accounts', 8],
  ] as const) {
    const table = tableAfter(title);
    expect(table[0]?.startsWith('┌')).toBe(true);
    expect(table[1]).toMatch(/│ account\s+│ matched buyer\s+│ confidence │ status\s+│\s+fields │ notes │/);
    // One status per account, each in a row of its own.
    expect(table.filter((l) => /│ (enriched|needs_review|no_match)\s+│/.test(l))).toHaveLength(rows);
  }
  expect(tableAfter('HubSpot companies').join('\n')).toMatch(
    /│ City of Austin, TX\s+│ City of Austin\s+│\s+1\.00 │/,
  );

  expect(stdout).toMatch(/^e\.g\. .+ → .+: Matched "/m);
  expect(stdout).toMatch(/│ buyer field\s+│ CRM property\s+│ value written\s+│/);
  expect(stdout).toMatch(/^needs review: ".+" — Needs review: /m);
  expect(stdout).toMatch(/│ score │ candidate\s+│ state │ type\s+│/);
  expect(stdout).toMatch(/│ Buyer Intelligence │\s+\d+ │ \d+\.\d per account\s+│/);
  expect(stdout).toMatch(/│ HubSpot\s+│\s+\d+ │ \d+\.\d per company\s+│/);
  expect(stdout).toMatch(/│ Salesforce\s+│\s+\d+ │ \d+\.\d per Account\s+│/);
  // The per-owner digest: each CRM's rep received one, by the channels they can be reached on.
  expect(stdout).toMatch(/│ rep\s+│ received by\s+│ subject\s+│ accounts \(new signals\)\s+│/);
  expect(stdout).toMatch(/│ hana\.reyes@demo\.example │ email \+ Slack DM │ Buyer intel — \d{4}-\d{2}-\d{2}/);
  expect(stdout).toMatch(/│ sam\.ortiz@demo\.example\s+│ email\s+│ Buyer intel — \d{4}-\d{2}-\d{2}/);
}, 60_000);
