// `buyer-intel-sync match-eval` against the Buyer Intelligence emulator, on the shipped set of
// realistic CRM accounts (test/fixtures/match-eval/): the table and the scorecard add up, JSON parses,
// bad files fail with the line named, and the goal that must hold: no wrong automatic match. The two
// runs on the whole set are real processes (side by side, a core each); the small runs go through the
// CLI's own `main` in this process (runCliInProcess), which a real process would tell nothing more about.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { type AddressInfo, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningBuyerIntelSandbox } from '../../emulators/buyer-intel/server.ts';
import { parseAccounts } from '../../src/match-eval/accounts.ts';
import type { Scorecard } from '../../src/match-eval/evaluate.ts';
import { startSandbox } from '../helpers/buyer-intel-sandbox.ts';
import { runCli, runCliInProcess, sandboxCliEnv } from '../helpers/cli.ts';

const SET = new URL('../fixtures/match-eval/accounts.csv', import.meta.url).pathname;
const accounts = parseAccounts(readFileSync(SET, 'utf8'));

let bi: RunningBuyerIntelSandbox;
let dir: string;

beforeAll(async () => {
  bi = await startSandbox();
  dir = mkdtempSync(join(tmpdir(), 'match-eval-'));
});
afterAll(async () => {
  rmSync(dir, { recursive: true, force: true });
  await bi.close();
});

/** The sandbox without a client-side pace worth waiting for (it has no rate limit of its own here). */
const env = (extra: Record<string, string> = {}) => ({
  ...sandboxCliEnv(bi),
  BUYER_INTEL_RATE_PER_SECOND: '1000',
  BUYER_INTEL_BURST: '1000',
  ...extra,
});

function file(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

interface JsonReport {
  scorecard: Scorecard;
  accounts: {
    line: number;
    name: string | null;
    verdict: string;
    expected: string;
    state: string | null;
    status: string;
    buyerId: string | null;
    source: string | null;
    ids: Record<string, string>;
    explanation: string | null;
  }[];
}

const isBuyerId = (expected: string) => expected !== 'review' && expected !== 'nomatch';
/** The set's first 334 accounts (lines 2–335); the rest is the long tail (see the set's README). */
const FIRST_SET_LAST_LINE = 335;

const buyerId = (name: string, state: string): string => {
  const found = bi.dataset.buyers.find((b) => b.name === name && b.stateCode === state);
  if (!found) throw new Error(`the emulator has no ${name} in ${state}`);
  return found.id;
};

describe('the account set', () => {
  it('holds at least 500 accounts, about 60 % with one expected buyer, the rest review or nomatch', () => {
    expect(accounts.length).toBeGreaterThanOrEqual(500);
    const kinds = { buyer: 0, review: 0, nomatch: 0 };
    for (const a of accounts) kinds[a.expected.kind]++;
    expect(kinds.buyer / accounts.length).toBeGreaterThan(0.55);
    expect(kinds.buyer / accounts.length).toBeLessThan(0.7);
    expect(kinds.review).toBeGreaterThan(20);
    expect(kinds.nomatch).toBeGreaterThan(20);
  });

  it('names only buyers the emulator has, and each id column agrees with the expected buyer', () => {
    const unknown: string[] = [];
    const disagree: string[] = [];
    for (const a of accounts) {
      if (a.ids.buyer && !bi.dataset.buyersById.has(a.ids.buyer)) unknown.push(`line ${a.line} buyer_id`);
      if (a.expected.kind !== 'buyer') continue;
      const id = a.expected.buyerId;
      const attributes = bi.dataset.attributesOf(id);
      if (!attributes) {
        unknown.push(`line ${a.line} expected ${id}`);
        continue;
      }
      const gid = attributes.CensusIdGidId;
      const pid6 = attributes.CensusIdPid6;
      if (a.ids.nces && attributes.NcesId !== a.ids.nces) disagree.push(`line ${a.line} nces_id`);
      if (a.ids.ipeds && String(attributes.IpedsIdNumeric) !== a.ids.ipeds)
        disagree.push(`line ${a.line} ipeds_id`);
      if (a.ids.census && a.ids.census !== gid && a.ids.census !== pid6)
        disagree.push(`line ${a.line} census_id`);
      if (a.ids.buyer && a.ids.buyer !== id) disagree.push(`line ${a.line} buyer_id`);
    }
    expect(unknown).toEqual([]);
    expect(disagree).toEqual([]);
  });

  // The address and mail columns are evidence only if they are true of the expected buyer in this
  // world: city, county and zip as the provider has them, a street with the same number (a CRM
  // abbreviates "Street"), and mail domains the buyer uses.
  it('gives an account with one expected buyer only the address and mail domains of that buyer', () => {
    const disagree: string[] = [];
    const fold = (v: unknown) => String(v ?? '').toLowerCase();
    for (const a of accounts) {
      if (a.expected.kind !== 'buyer') continue;
      const attributes = bi.dataset.attributesOf(a.expected.buyerId);
      if (!attributes) continue;
      if (a.city && fold(a.city) !== fold(attributes.City)) disagree.push(`line ${a.line} city`);
      if (a.county && fold(a.county) !== fold(attributes.County)) disagree.push(`line ${a.line} county`);
      if (a.zip && a.zip.slice(0, 5) !== attributes.Zip) disagree.push(`line ${a.line} zip`);
      const number = (street: unknown) => /^\S+/.exec(String(street ?? ''))?.[0];
      // The provider lacks the street of some buyers (Street1 null): nothing to contradict then.
      if (a.street && attributes.Street1 && number(a.street) !== number(attributes.Street1))
        disagree.push(`line ${a.line} street`);
      const domains = (attributes.EmailDomains as string[] | null) ?? [];
      for (const d of a.emailDomains) if (!domains.includes(d)) disagree.push(`line ${a.line} ${d}`);
    }
    expect(disagree).toEqual([]);
    const withAddress = accounts.filter((a) => a.city || a.county || a.zip || a.street);
    expect(withAddress.length).toBeGreaterThanOrEqual(20);
    expect(accounts.filter((a) => a.emailDomains.length).length).toBeGreaterThanOrEqual(10);
  });

  it('keeps the leading zeros of NCES ids (a California district starts 06)', () => {
    const california = accounts.filter((a) => a.state === 'CA' && a.ids.nces);
    expect(california.length).toBeGreaterThan(0);
    for (const a of california) expect(a.ids.nces).toMatch(/^06\d{5}(\d{5})?$/);
  });
});

describe('buyer-intel-sync match-eval on the set', () => {
  let text: { code: number; stdout: string; stderr: string };
  let report: JsonReport;

  beforeAll(async () => {
    const [t, j] = await Promise.all([
      runCli(['match-eval', SET], env()),
      runCli(['match-eval', SET, '--json'], env()),
    ]);
    text = t;
    expect(j.code, j.stderr).toBe(0);
    report = JSON.parse(j.stdout) as JsonReport;
  }, 120_000);

  it('prints the outcome table, whose counts add up to the accounts of the file', () => {
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toContain(`match-eval: ${accounts.length} accounts of ${SET}`);
    const row = (label: string) => {
      const cells = new RegExp(`│ ${label}\\s+│([^\\n]+)│\\n`).exec(text.stdout)?.[1];
      if (!cells) throw new Error(`no "${label}" row in:\n${text.stdout.slice(0, 2000)}`);
      return cells.split('│').map((c) => Number(c.trim()));
    };
    const all = row('all');
    const total = all.at(-1);
    expect(total).toBe(accounts.length);
    expect(all.slice(0, -1).reduce((a, b) => a + b, 0)).toBe(total);
    const byExpected = ['one buyer', 'review', 'nomatch'].map(row);
    expect(byExpected.reduce((sum, r) => sum + (r.at(-1) ?? 0), 0)).toBe(accounts.length);
    for (const r of byExpected) expect(r.slice(0, -1).reduce((a, b) => a + b, 0)).toBe(r.at(-1));
  });

  it('prints the scorecard with the automatic rate on the accounts with one buyer', () => {
    const s = report.scorecard;
    expect(text.stdout).toContain('Scorecard');
    expect(text.stdout).toMatch(
      new RegExp(
        `Matched automatically \\(one right buyer\\)\\s+│ ${s.oneBuyer.matched} of ${s.oneBuyer.accounts}\\s+│ ${(100 * s.oneBuyer.automaticRate).toFixed(1)} %`,
      ),
    );
    expect(text.stdout).toMatch(new RegExp(`Wrong automatic matches\\s+│ ${s.wrong.total}\\s`));
    expect(text.stdout).toMatch(
      new RegExp(`Reviews holding the expected buyer\\s+│ ${s.oneBuyer.reviewHolds}\\s`),
    );
    expect(text.stdout).toMatch(
      new RegExp(`Id-bearing accounts matched by their id\\s+│ ${s.ids.matchedById} of ${s.ids.accounts}\\s`),
    );
  });

  // Issue #13's goal: every account carrying an id is matched by it — "LAUSD" (NCES 0602316) too, though
  // the sandbox takes no id as a search criterion and knows no buyer by those letters: its initials
  // written out ("Los Angeles unified school district") find the candidates whose ids are checked.
  it('matches an id-bearing account by its id, or names the id no buyer found carries', () => {
    const withIds = report.accounts.filter(
      (a) => a.ids && Object.keys(a.ids).length && /^[0-9a-f-]{36}$/.test(a.expected),
    );
    expect(withIds.length).toBe(report.scorecard.ids.accounts);
    expect(withIds.length).toBeGreaterThanOrEqual(20);
    // The first set's ids are all found; the long tail's acronyms ("BVSD", "SPPS") the search does not
    // know, and this API cannot look an id up directly: a person reviews, told which id was not found.
    const missed = withIds.filter((a) => a.verdict !== 'right' || a.source !== 'id');
    expect(missed.filter((a) => a.line <= FIRST_SET_LAST_LINE).map((a) => a.name)).toEqual([]);
    for (const a of missed) {
      expect(a.verdict, a.name ?? '').toMatch(/^review/);
      expect(a.explanation ?? '').toMatch(/(NCES|IPEDS|Census) id \d+ matched no buyer/);
    }
    expect(missed.length / withIds.length).toBeLessThanOrEqual(0.3);
    expect(report.accounts.find((a) => a.ids?.nces === '0602316')?.explanation).toMatch(
      /^Matched "Los Angeles Unified School District" \(CA\) by its NCES id 0602316/,
    );
  });

  it('lists every miss with the resolver’s reason', () => {
    const misses = report.accounts.filter((a) => a.verdict !== 'right');
    expect(text.stdout).toContain(`Misses (${misses.length}), the worst first`);
    for (const m of misses) expect(text.stdout).toMatch(new RegExp(`\\nline ${m.line}: `));
    expect(text.stdout.match(/\n {2}why: /g)?.length ?? 0).toBe(misses.length);
  });

  it('gives the same figures as JSON, each group adding up', () => {
    const s = report.scorecard;
    expect(report.accounts).toHaveLength(accounts.length);
    expect(s.accounts).toBe(accounts.length);
    expect(s.oneBuyer.accounts + s.expectedReview.accounts + s.expectedNoMatch.accounts).toBe(
      accounts.length,
    );
    const o = s.oneBuyer;
    expect(o.matched + o.wrong + o.reviewHolds + o.reviewLacks + o.noMatch + o.errors).toBe(o.accounts);
    const r = s.expectedReview;
    expect(r.review + r.noMatch + r.matched + r.errors).toBe(r.accounts);
    const n = s.expectedNoMatch;
    expect(n.noMatch + n.review + n.matched + n.errors).toBe(n.accounts);
    expect(s.wrong.total).toBe(s.wrong.otherBuyer + s.wrong.expectedReview + s.wrong.expectedNoMatch);
    expect(s.misses.reduce((sum, m) => sum + m.count, 0)).toBe(
      report.accounts.filter((a) => a.verdict !== 'right').length,
    );
    expect(s.errors).toBe(0);
  });

  // The goals of issue #13, measured on the set. The first must never regress.
  it('makes no wrong automatic match', () => {
    const wrong = report.accounts.filter((a) => a.verdict === 'wrong').map((a) => `line ${a.line} ${a.name}`);
    expect(wrong).toEqual([]);
  });

  it('matches at least 95 % of the first set’s accounts with one right buyer automatically, and most of the long tail', () => {
    const one = report.accounts.filter((a) => isBuyerId(a.expected));
    const rate = (list: typeof one) => list.filter((a) => a.verdict === 'right').length / list.length;
    expect(rate(one.filter((a) => a.line <= FIRST_SET_LAST_LINE))).toBeGreaterThanOrEqual(0.95);
    // The long tail holds what the rules send to a person on purpose: a body filed under another state
    // with only its name for it, an acronym the search does not know, a name shared by several bodies.
    // Measured 0.952 on the whole set (0.893 before short forms, Roman numerals, names read with the
    // account's place and a buyer's own site placing an account filed under another state; 0.920 before
    // a buyer's own home page or mail domain identifying it, its own name saying the account's kind,
    // its parent's words in the account's name, "U.S." as two initials and a third attribute read;
    // 0.943 before the kind of "A of B" read from A and a tribe's styles compared as one word; 0.950
    // before a candidate's attributes were read when they would carry it exactly to the threshold).
    expect(report.scorecard.oneBuyer.automaticRate).toBeGreaterThanOrEqual(0.95);
    // The first set's accounts the name, website and state settle (no registry id): every one of them.
    const byEvidence = report.accounts.filter(
      (a) =>
        isBuyerId(a.expected) && !Object.values(a.ids ?? {}).some(Boolean) && a.line <= FIRST_SET_LAST_LINE,
    );
    const missed = byEvidence.filter((a) => a.verdict !== 'right').map((a) => `line ${a.line} ${a.name}`);
    expect(byEvidence.length).toBeGreaterThan(150);
    expect(missed.length / byEvidence.length).toBeLessThanOrEqual(0.05);
  });

  // Issue 46's goal: no right buyer lost to a no-match. The last was "Tribal Council" (AZ, zip 86039):
  // a name of kind words only, the Hopi Tribe's zip its only place — now a review holding the tribe.
  it('loses no account with one right buyer to no_match', () => {
    const lost = report.accounts
      .filter((a) => isBuyerId(a.expected) && a.status === 'no_match')
      .map((a) => `line ${a.line} ${a.name}`);
    expect(lost).toEqual([]);
    expect(report.scorecard.oneBuyer.noMatch).toBe(0);
    const tribal = report.accounts.find((a) => a.name === 'Tribal Council' && a.state === 'AZ');
    expect(tribal?.verdict).toBe('review-holds');
  });

  it('sends no account with one right buyer to review without that buyer, but where the API did not return it', () => {
    const lacking = report.accounts.filter((a) => a.verdict === 'review-lacks');
    expect(lacking.filter((a) => a.line <= FIRST_SET_LAST_LINE).map((a) => a.name)).toEqual([]);
    // The rest: ids the search cannot reach (named in the reason), and names that share no word with the
    // buyer's ("Colorado Legislature" for the General Assembly) — never a buyer the API returned.
    for (const a of lacking) expect(a.buyerId).toBeNull();
    expect(lacking.length).toBeLessThanOrEqual(Math.ceil(0.025 * report.scorecard.oneBuyer.accounts));
  });
});

describe('buyer-intel-sync match-eval, usage and bad files', () => {
  it('--help says what the file holds', async () => {
    const { code, stdout } = await runCliInProcess(['match-eval', '--help'], {});
    expect(code).toBe(0);
    expect(stdout).toContain('buyer-intel-sync match-eval <accounts.csv>');
    expect(stdout).toContain('nces_id, ipeds_id, census_id, buyer_id');
  });

  it.each([
    ['no file named', [], /name the accounts file/],
    [
      'a file that is not there',
      ['/nonexistent/accounts.csv'],
      /cannot read \/nonexistent\/accounts\.csv: ENOENT/,
    ],
    ['an unknown option', ['x.csv', '--fast'], /unknown option --fast/],
  ])('%s → exit 2 and one line', async (_, args, message) => {
    const { code, stderr } = await runCliInProcess(['match-eval', ...args], env());
    expect(code).toBe(2);
    expect(stderr).toMatch(message);
    expect(stderr.trim().split('\n')).toHaveLength(1);
  });

  it.each([
    ['unknown column', 'name,state,website,expected,nces\n', /line 1, column 5: unknown column "nces"/],
    ['missing column', 'name,state,expected\nCity of Austin,TX,review\n', /line 1: the header lacks website/],
    [
      'short row',
      'name,state,website,expected\nCity of Austin,TX,review\n',
      /line 2: 3 fields, the header has 4/,
    ],
    [
      'NCES id that lost its leading zero',
      'name,state,website,nces_id,expected\nLAUSD,CA,,602316,review\n',
      /line 2, column nces_id: "602316" is one digit short of an NCES id; a spreadsheet may have dropped a leading zero/,
    ],
    [
      'empty expected',
      'name,state,website,expected\n\nCity of Austin,TX,,\n',
      /line 3, column expected: empty/,
    ],
    [
      'unclosed quote',
      'name,state,website,expected\n"City of Austin,TX,,review\n',
      /line \d+: a quoted field is never closed/,
    ],
  ])('a bad CSV (%s) → exit 2 naming the line', async (_, csv, message) => {
    const { code, stderr } = await runCliInProcess(['match-eval', file('bad.csv', csv)], env());
    expect(code).toBe(2);
    expect(stderr).toMatch(message);
    expect(stderr.trim().split('\n')).toHaveLength(1);
  });

  it('--fail-on-wrong exits 1 on a wrong automatic match, and 0 without one', async () => {
    const austin = buyerId('City of Austin', 'TX');
    const county = buyerId('Austin County', 'TX');
    const header = 'name,state,website,expected\n';
    const right = file('right.csv', `${header}City of Austin,TX,austintexas.gov,${austin}\n`);
    const wrong = file('wrong.csv', `${header}City of Austin,TX,austintexas.gov,${county}\n`);
    const ok = await runCliInProcess(['match-eval', right, '--fail-on-wrong'], env());
    expect(ok.code, ok.stderr).toBe(0);
    const failed = await runCliInProcess(['match-eval', wrong, '--fail-on-wrong'], env());
    expect(failed.code).toBe(1);
    expect(failed.stdout).toMatch(/Wrong automatic matches\s+│ 1\s/);
    expect(failed.stdout).toContain('expected Austin County (TX, County)');
    const plain = await runCliInProcess(['match-eval', wrong], env());
    expect(plain.code).toBe(0);
  });

  it('reads the match settings of the configuration and needs no CRM; a bad one is named', async () => {
    const one = file(
      'one.csv',
      `name,state,website,expected\nTravis County,TX,,${buyerId('Travis County', 'TX')}\n`,
    );
    const strict = await runCliInProcess(['match-eval', one], env({ MATCH_ACCEPT_THRESHOLD: '0.9' }));
    expect(strict.code, strict.stderr).toBe(0);
    expect(strict.stdout).toContain('(matched from 0.90, ambiguity margin 0.1)');
    const bad = await runCliInProcess(['match-eval', one], { MATCH_ACCEPT_THRESHOLD: '2' });
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('BUYER_INTEL_BASE_URL is required');
    expect(bad.stderr).toContain('MATCH_ACCEPT_THRESHOLD');
  });

  it('paces its calls by BUYER_INTEL_RATE_PER_SECOND', async () => {
    const names = ['Travis', 'Harris', 'Dallas', 'King', 'Cook', 'Clark', 'Orange', 'Fairfax'].map(
      (n) => `${n} County`,
    );
    const csv = `name,state,website,expected\n${names.map((n) => `${n},,,review`).join('\n')}\n`;
    bi.stats.reset();
    const started = Date.now();
    const { code, stderr } = await runCliInProcess(
      ['match-eval', file('paced.csv', csv), '--concurrency', '6'],
      env({ BUYER_INTEL_RATE_PER_SECOND: '2', BUYER_INTEL_BURST: '1' }),
    );
    const elapsed = Date.now() - started;
    expect(code, stderr).toBe(0);
    const calls = bi.stats.count();
    expect(calls).toBeGreaterThanOrEqual(names.length);
    // One call every 500 ms after the first, whatever the concurrency (unpaced, the run takes ~1 s).
    expect(elapsed).toBeGreaterThanOrEqual(((calls - 1) * 1000) / 2 - 100);
  });

  it('fails with one line when the API refuses the token, after one call', async () => {
    bi.stats.reset();
    const { code, stderr } = await runCliInProcess(
      ['match-eval', SET],
      env({ BUYER_INTEL_TOKEN: 'not-the-token' }),
    );
    expect(code).toBe(1);
    expect(stderr.trim().split('\n')).toHaveLength(1);
    expect(stderr).not.toContain('not-the-token');
    expect(bi.stats.count()).toBeLessThan(10);
  });

  it('fails with one line when the API cannot be reached, without trying every account', async () => {
    // Something listens at the address but is no API: each connection is closed at once.
    let connections = 0;
    const server = createServer((socket) => {
      connections++;
      socket.destroy();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = server.address() as AddressInfo;
      const { code, stderr } = await runCliInProcess(
        ['match-eval', SET],
        env({ BUYER_INTEL_BASE_URL: `http://127.0.0.1:${port}`, BUYER_INTEL_MAX_ATTEMPTS: '1' }),
      );
      expect(code).toBe(1);
      expect(stderr.trim().split('\n')).toHaveLength(1);
      expect(stderr).toContain('could not reach the Buyer Intelligence API');
      expect(connections).toBeGreaterThan(0);
      expect(connections).toBeLessThan(10);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
