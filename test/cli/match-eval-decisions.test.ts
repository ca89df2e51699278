// `match-eval --decisions`: a file of past decisions, applied as the tenant's learned rules before the
// accounts are evaluated, and what they change; a bad file stops the command with one line (exit 2).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningBuyerIntelSandbox } from '../../emulators/buyer-intel/server.ts';
import { startSandbox } from '../helpers/buyer-intel-sandbox.ts';
import { runCli, sandboxCliEnv } from '../helpers/cli.ts';

const TVA = '64e8efd6-f625-4b44-b37b-2ff4de1b0739';
const TUCSON = '5f75e69e-0158-413c-b658-71c693646256';
// Three accounts of the match-eval sets: one the resolver sends to review with the right buyer among
// its candidates (a federal corporation of seven states, filed under one it is not registered in),
// one it matches automatically and rightly, one it matches automatically that no decision names.
const ACCOUNTS = `name,state,website,expected
Tennessee Valley Authority,AL,,${TVA}
City of Tucson – Attn: J. Smith,AZ,,${TUCSON}
Louisville Fire Department,KY,louisvilleky.gov,ec00d5b4-6f49-4ef1-90e2-b7bc2570b906
`;

let bi: RunningBuyerIntelSandbox;
let dir: string;
let env: Record<string, string>;
const file = (name: string, text: string) => {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
};

beforeAll(async () => {
  bi = await startSandbox();
  dir = mkdtempSync(join(tmpdir(), 'match-eval-decisions-'));
  env = { ...sandboxCliEnv(bi), BUYER_INTEL_RATE_PER_SECOND: '1000', BUYER_INTEL_BURST: '1000' };
});
afterAll(async () => {
  await bi.close();
  rmSync(dir, { recursive: true, force: true });
});

interface Report {
  scorecard: {
    wrong: { total: number };
    oneBuyer: { matched: number };
    automaticBy: { carrier: string; matched: number; right: number }[];
  };
  accounts: { name: string; status: string; buyerId: string | null; explanation: string }[];
  biCalls: { total: number; perAccount: number };
  decisions: {
    taught: { confirm: number; reject: number; notLearnable: string[] };
    before: { automatic: number; wrong: number; biCalls: number; biCallsPerAccount: number };
    after: { automatic: number; wrong: number; biCalls: number; biCallsPerAccount: number };
    changed: { name: string; before: string; after: string; why: string }[];
  };
}

describe('match-eval --decisions', () => {
  it('applies a confirm and a reject as the tenant learnt them and reports what they change', async () => {
    const accounts = file('accounts.csv', ACCOUNTS);
    // As a person typed them elsewhere: another case, the import's contact left on.
    const decisions = file(
      'decisions.csv',
      `name,state,buyer_id,buyer_name,verdict
TENNESSEE VALLEY AUTHORITY,al,${TVA},Tennessee Valley Authority,confirm
City of Tucson,AZ,${TUCSON},City of Tucson,reject
Police Department,KY,ec00d5b4-6f49-4ef1-90e2-b7bc2570b906,,confirm
`,
    );
    const calls = bi.stats.count();
    const run = await runCli(['match-eval', accounts, '--decisions', decisions, '--json'], env);
    expect(run.code, run.stderr).toBe(0);
    const report = JSON.parse(run.stdout) as Report;
    // A name of kind words only says no buyer by itself: it teaches nothing.
    expect(report.decisions.taught).toEqual({
      confirm: 1,
      reject: 1,
      notLearnable: ['line 4 "Police Department"'],
    });
    expect(report.decisions.before).toMatchObject({ automatic: 2, wrong: 0 });
    expect(report.decisions.after).toMatchObject({ automatic: 2, wrong: 0 });
    expect(report.decisions.changed.map((c) => [c.name, c.before, c.after])).toEqual([
      ['Tennessee Valley Authority', 'needs_review', `matched ${TVA}`],
      ['City of Tucson – Attn: J. Smith', `matched ${TUCSON}`, 'needs_review'],
    ]);
    // Calibration by evidence names the rule as what carried the match, not a resemblance.
    expect(report.scorecard.automaticBy).toContainEqual({
      carrier: 'a learned decision',
      matched: 1,
      right: 1,
      wrong: 0,
    });
    expect(report.decisions.changed[0]?.why).toMatch(
      /^a person matched "TENNESSEE VALLEY AUTHORITY" \(AL\) to Tennessee Valley Authority on \d{4}-\d{2}-\d{2}$/,
    );
    // The report's own figure is the provider's count: every request of both passes.
    const counted = bi.stats.count() - calls;
    expect(report.biCalls.total).toBeGreaterThan(0);
    expect(report.decisions.before.biCallsPerAccount).toBe(
      Math.round((report.biCalls.total / 3) * 100) / 100,
    );
    // Both passes (every expected buyer is among the candidates: no look-up after them).
    expect(counted).toBe(report.decisions.before.biCalls + report.decisions.after.biCalls);
    // The learned confirm costs no search.
    expect(report.decisions.after.biCallsPerAccount).toBeLessThan(report.decisions.before.biCallsPerAccount);

    const text = await runCli(['match-eval', accounts, '--decisions', decisions], env);
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toMatch(/Matched automatically \(one right buyer\) │ 2 of 3 \(66\.7 %\) +│ 2 of 3/);
    expect(text.stdout).toContain('Accounts whose decision changed');
  }, 120_000);

  it('reads the same decisions as JSON', async () => {
    const accounts = file('accounts-json.csv', ACCOUNTS);
    const decisions = file(
      'decisions.json',
      JSON.stringify([
        { name: 'Tennessee Valley Authority', state: 'AL', buyer_id: TVA, verdict: 'confirm' },
      ]),
    );
    const run = await runCli(['match-eval', accounts, '--decisions', decisions, '--json'], env);
    expect(run.code, run.stderr).toBe(0);
    const report = JSON.parse(run.stdout) as Report;
    expect(report.decisions.after.automatic).toBe(3);
    expect(report.accounts[0]?.explanation).toMatch(/to buyer 64e8efd6-f625-4b44-b37b-2ff4de1b0739 on/);
  }, 120_000);

  it.each([
    [
      'decisions.csv',
      'name,state,buyer_id,verdict\nAustin,TX,abc,approve\n',
      /line 2: verdict must be confirm or reject/,
    ],
    ['decisions.csv', 'name,state,verdict\nAustin,TX,confirm\n', /line 1: the header lacks buyer_id/],
    ['decisions.csv', 'name,buyer,buyer_id,verdict\n', /line 1: unknown column buyer/],
    ['decisions.csv', 'name,buyer_id,verdict\n', /holds no decisions/],
    ['decisions.json', '{"name":"Austin"}', /must be a JSON array of decisions/],
    ['decisions.json', '[{"name":"Austin","buyer_id":"abc"}]', /entry 1: verdict is missing/],
    [
      'decisions.json',
      '[{"name":"Austin","buyer_id":"a b","verdict":"reject"}]',
      /entry 1: buyer_id must be one buyer id/,
    ],
  ])(
    'a bad decisions file (%s: %j) stops with one line, exit 2',
    async (name, text, message) => {
      const accounts = file('accounts-bad.csv', ACCOUNTS);
      const run = await runCli(['match-eval', accounts, '--decisions', file(name, text)], env);
      expect(run.code).toBe(2);
      const lines = run.stderr.trim().split('\n');
      expect(lines[0]).toMatch(message);
      expect(lines[0]).toContain(join(dir, name));
      expect(run.stdout).toBe('');
    },
    60_000,
  );
});
