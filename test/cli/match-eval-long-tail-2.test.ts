// The second long-tail set (test/fixtures/match-eval/README.md): 200 accounts in the kinds issue 46
// names — import noise in names, abbreviations with periods, Spanish renderings, exact names against
// resembling rivals, departments on their parent's site, short forms of consolidated and chartered
// governments, and look-alikes with no evidence of their own — written without reading the resolver.
// Zero wrong automatic matches is the rule; the automatic share is today's floor, below the goal
// (≥ 85–90 %), so that a change can only raise it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningBuyerIntelSandbox } from '../../emulators/buyer-intel/server.ts';
import { startSandbox } from '../helpers/buyer-intel-sandbox.ts';
import { runCli, sandboxCliEnv } from '../helpers/cli.ts';

const SET = new URL('../fixtures/match-eval/accounts-long-tail-2.csv', import.meta.url).pathname;
let bi: RunningBuyerIntelSandbox;
beforeAll(async () => {
  bi = await startSandbox();
});
afterAll(async () => {
  await bi.close();
});

describe('match-eval on the second long-tail set', () => {
  it('matches no account to a wrong buyer, and at least today’s share automatically', async () => {
    const run = await runCli(['match-eval', SET, '--json'], {
      ...sandboxCliEnv(bi),
      BUYER_INTEL_RATE_PER_SECOND: '1000',
      BUYER_INTEL_BURST: '1000',
    });
    expect(run.code, run.stderr).toBe(0);
    const { scorecard, accounts } = JSON.parse(run.stdout) as {
      scorecard: { wrong: { total: number }; oneBuyer: { accounts: number; matched: number } };
      accounts: { line: number; name: string; verdict: string; explanation: string | null }[];
    };
    const wrong = accounts
      .filter((a) => a.verdict === 'wrong')
      .map((a) => `${a.line} ${a.name}: ${a.explanation}`);
    expect(wrong).toEqual([]);
    expect(scorecard.wrong.total).toBe(0);
    expect(scorecard.oneBuyer.accounts).toBe(152);
    // 62 of 152 (41 %) on 2026-12-02, after departments on a parent's site and townships stopped
    // matching their parent or namesake city (4 wrong before); 96 (63 %) once what an import leaves
    // in a name (a contact, a status tag, a zip or phone number, all capitals) was read off it; 106
    // (70 %) with the words names are cut to ("Pub. Wks.", "Ct.", "Cons.", "Emerg.", "P&R"); 117
    // (77 %) with public bodies named in Spanish read as their English names; 125 (82 %) once a
    // name equal to the best's, kind words and all, told it from rivals that only resemble it; 135
    // (89 %) with a department named in full on its parent's site read as the department; 142 (93 %)
    // with Michigan's charter townships read as townships and a part's name without its kind word.
    // 143 with a closing "VA" that contradicts the account's state read as Veterans Affairs; 144
    // (95 %) with a leading "U" before a state's name read as its university. 147 (97 %) with a
    // consolidated government named by its two places ("Nashville-Davidson") or with its closing
    // words ("Athens Clarke Co Unified Govt", in its state), and a state's initial after "U of".
    // 150 (99 %) with a department on a consolidated parent's site ("Louisville Fire Department"),
    // named by a short form ("Miami-Dade Fire Rescue"), or behind an owner held back as "a part of it".
    // 151 with a leading "VA" before a place of another state read as the closing one ("VA Minneapolis").
    expect(scorecard.oneBuyer.matched).toBeGreaterThanOrEqual(151);
    // Issue 46: reviews hold the right buyer. The last without it was "Dallas VA Medical Center",
    // whose buyer (VA North Texas) is found among the buyers of Dallas, scored by "VA Medical Center".
    const lacking = accounts.filter((a) => a.verdict === 'review-lacks').map((a) => `${a.line} ${a.name}`);
    expect(lacking).toEqual([]);
  }, 120_000);
});
