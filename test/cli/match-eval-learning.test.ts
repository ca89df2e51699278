// `match-eval --learning-pass` on both sets of the repo (test/fixtures/match-eval/): a person confirms
// once each review holding its right buyer, rejects a wrong candidate or a match; a second account
// typed the same way (as typed, all capitals, lower case, a contact after it, other spacing and a
// closing period) in the same tenant follows. Floors: ≥ 95 % of the second accounts matched to the
// confirmed buyer and none wrong; none matched automatically to a rejected buyer by its name (an id on
// the account still decides); another tenant's decisions unchanged; the provider's calls per account
// on the file no more than without learning + 0.2.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningBuyerIntelSandbox } from '../../emulators/buyer-intel/server.ts';
import type { LearningPassReport } from '../../src/match-eval/learning-pass.ts';
import { startSandbox } from '../helpers/buyer-intel-sandbox.ts';
import { runCli, sandboxCliEnv } from '../helpers/cli.ts';

const set = (name: string) => new URL(`../fixtures/match-eval/${name}`, import.meta.url).pathname;
let bi: RunningBuyerIntelSandbox;
beforeAll(async () => {
  bi = await startSandbox();
});
afterAll(async () => {
  await bi.close();
});

describe('match-eval --learning-pass', () => {
  // Figures of 2026-12-02: accounts.csv 11 reviews confirmed, 55 of 55 second accounts matched to
  // the buyer; 537 rejects, 0 of 2,685 second accounts matched to the rejected buyer by name (125 by
  // an id they carry); 1.54 → 1.49 calls per account. accounts-long-tail-2.csv: 7 confirmed (8 before "U
  // Missouri Kansas City" was read as its university), 35 of 35; 183 rejects, 0 of 915; 1.49 → 1.39
  // calls per account (0 confirmed, 188 rejects, 0 of 940, 1.40 → 1.42 since). Since issue 46's readings of consolidated governments, "U of I", a leading "VA"
  // and departments on a parent's site, long-tail-2 holds no review with its right buyer left to
  // confirm (151 of 152 matched; the last one's buyer is not among its candidates): there only the
  // rejects are measured, and the confirms on accounts.csv.
  it.each([
    // 10 since names of kind words alone teach nothing (learned.ts: "Tribal Council" placed by its zip
    // would otherwise become every Tribal Council of the state); 12 were taught with that one in review.
    ['accounts.csv', 10],
    ['accounts-long-tail-2.csv', 0],
  ])(
    '%s: a decision taught once holds for the next account typed the same way',
    async (name, reviews) => {
      const run = await runCli(['match-eval', set(name), '--learning-pass', '--json'], {
        ...sandboxCliEnv(bi),
        BUYER_INTEL_RATE_PER_SECOND: '1000',
        BUYER_INTEL_BURST: '1000',
      });
      expect(run.code, run.stderr).toBe(0);
      const { learningPass: p } = JSON.parse(run.stdout) as { learningPass: LearningPassReport };
      const c = p.confirms;
      expect(c.taught).toBeGreaterThanOrEqual(reviews);
      expect(c.second).toBe(c.taught * 5);
      expect(
        c.misses.filter((m) => m.got.startsWith('matched')),
        JSON.stringify(c.misses),
      ).toEqual([]);
      expect(c.wrong).toBe(0);
      if (c.taught > 0) expect(c.rate, JSON.stringify(c.misses)).toBeGreaterThanOrEqual(0.95);
      for (const t of c.byTyping)
        expect(t.matched, t.typing).toBeGreaterThanOrEqual(Math.ceil(t.second * 0.95));
      // The rejects are of buyers the resolver did match: the check could fail.
      expect(p.rejects.taught.automaticMatch).toBeGreaterThan(100);
      expect(p.rejects.automaticToRejected - p.rejects.byId).toBe(0);
      expect(p.otherTenant.accounts).toBeGreaterThan(0);
      expect(p.otherTenant.changed).toEqual([]);
      expect(p.file.after.wrong).toBe(0);
      expect(p.file.after.automatic).toBe(p.file.before.automatic + c.taught);
      expect(p.file.after.biCallsPerAccount).toBeLessThanOrEqual(p.file.before.biCallsPerAccount + 0.2);
    },
    300_000,
  );
});
