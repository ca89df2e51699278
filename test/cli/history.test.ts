// `buyer-intel-sync history` in process (runCliInProcess) on the file's database: an account's
// changes newest first (old → new, the decision, the run), a page at a time; `history prune` counting
// first and deleting only with --yes; and refusals of bad input, a missing embedded database among them.
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { Store } from '../../src/store/store.ts';
import type { FieldWriteEntry } from '../../src/write/journal.ts';
import { cliDatabase, runCliInProcess } from '../helpers/cli.ts';

let runId: string;

const OLD = new Date('2025-01-10T09:00:00.000Z');
const RECENT = new Date('2026-03-01T12:00:00.000Z');

const entry = (over: Partial<FieldWriteEntry>): FieldWriteEntry => ({
  crm: 'hubspot',
  tenant: '1',
  accountId: '101',
  runId: null,
  jobId: 'j1',
  trigger: 'webhook',
  buyerId: 'b1',
  field: 'buyer_intel_population',
  attribute: 'Population',
  kind: 'mapped',
  policy: 'ours',
  old: null,
  new: '961855',
  decision: 'write',
  result: 'ok',
  error: null,
  at: RECENT,
  ...over,
});

beforeAll(async () => {
  const store = new Store((await cliDatabase()).settings);
  const { runs, writes, learned } = await store.open();
  const rule = {
    crm: 'hubspot',
    tenant: '1',
    accountId: '101',
    decisionId: null,
    runId: null,
    nameForm: 'hcpss',
    state: 'MD',
    accountName: 'HCPSS',
  };
  await learned.record({
    ...rule,
    buyerId: 'b9',
    buyerName: 'Baltimore County Public Schools',
    verdict: 'reject',
  });
  // Taken back as an undo of the reject does; the confirm after it still holds.
  await learned.undoForAccount({ crm: 'hubspot', tenant: '1', accountId: '101' }, 'reject');
  await learned.record({
    ...rule,
    buyerId: 'b1',
    buyerName: 'Howard County Public School System',
    verdict: 'confirm',
  });
  await learned.record({
    ...rule,
    accountId: '103',
    nameForm: 'springfield',
    state: 'MO',
    accountName: 'Springfield',
    buyerId: 'b7',
    buyerName: 'City of Springfield',
    verdict: 'reject',
  });
  const run = await runs.create({ kind: 'backfill', label: 'backfill of 2 accounts', at: OLD });
  runId = run.id;
  await writes.recordFieldWrites([
    entry({ runId, trigger: 'backfill', at: OLD, new: '950000', jobId: 'j0' }),
    entry({ accountId: '102', runId, trigger: 'backfill', at: OLD }),
  ]);
  await writes.recordNotes([
    {
      crm: 'hubspot',
      tenant: '1',
      accountId: '101',
      runId,
      jobId: 'j0',
      trigger: 'backfill',
      buyerId: 'b1',
      noteId: '7001',
      dedupeKey: 'bi-b1-r1',
      title: 'Contract awarded',
      at: OLD,
    },
  ]);
  await writes.recordFieldWrites([
    entry({ old: '950000', new: '961855' }),
    entry({
      field: 'buyer_intel_status',
      kind: 'provenance',
      attribute: null,
      policy: null,
      decision: 'provenance',
      new: 'enriched',
    }),
  ]);
  await writes.recordFieldWrites([
    entry({
      jobId: 'j2',
      trigger: 'refresh',
      old: '1000001',
      new: '961855',
      decision: 'blocked-edited-by-person',
      result: 'not_sent',
      at: new Date(RECENT.getTime() + 60_000),
    }),
    entry({
      jobId: 'j2',
      trigger: 'refresh',
      field: 'buyer_intel_url',
      attribute: 'Url',
      new: 'not a url',
      result: 'error',
      error: '400: Property values were not valid',
      at: new Date(RECENT.getTime() + 60_000),
    }),
  ]);
  await store.close();
}, 60_000);

const history = (args: string[]) => runCliInProcess(['history', ...args], {});

/** The table's rows as cells, a wrapped cell joined back into one line. */
function rowsOf(stdout: string): string[][] {
  const rows: string[][] = [];
  let continues = false;
  for (const line of stdout.split('\n')) {
    if (!line.startsWith('│')) {
      continues = false;
      continue;
    }
    const cells = line
      .split('│')
      .slice(1, -1)
      .map((c) => c.trim());
    const row = rows.at(-1);
    if (continues && row)
      for (const [i, c] of cells.entries()) row[i] = [row[i], c].filter(Boolean).join(' ');
    else rows.push(cells);
    continues = true;
  }
  return rows;
}

describe('buyer-intel-sync history', () => {
  it('shows an account’s changes newest first: old → new, the decision, the run', async () => {
    const shown = await history(['--crm', 'hubspot', '--account', '101']);
    expect(shown.stderr).toBe('');
    expect(shown.code).toBe(0);
    expect(rowsOf(shown.stdout)).toEqual([
      ['when (UTC)', 'run', 'field', 'old → new', 'decision'],
      [
        '2026-03-01 12:01:00',
        'refresh',
        'buyer_intel_url',
        '∅ → not a url',
        'refused by the CRM: 400: Property values were not valid',
      ],
      ['', '', 'buyer_intel_population', '1000001 → 961855', 'kept (a person’s edit)'],
      ['2026-03-01 12:00:00', 'webhook', 'buyer_intel_status', '∅ → enriched', 'written (provenance)'],
      ['', '', 'buyer_intel_population', '950000 → 961855', 'written'],
      ['2025-01-10 09:00:00', `backfill ${runId}`, 'buyer_intel_population', '∅ → 950000', 'written'],
      ['', '', 'note', 'Contract awarded', 'created (7001)'],
    ]);
    expect(shown.stdout).not.toContain('next page');
  }, 60_000);

  it('says above the changes what a person’s decisions taught, and which were taken back', async () => {
    const shown = await history(['--crm', 'hubspot', '--account', '101']);
    expect(shown.code).toBe(0);
    const lines = shown.stdout.split('\n');
    const table = lines.findIndex((l) => l.startsWith('┌'));
    const taught = lines.slice(0, table).filter((l) => l.trim());
    expect(taught[0]).toBe("what a person's decisions taught (UTC):");
    expect(taught[1]).toMatch(
      /^ {2}\d{4}-\d\d-\d\d \d\d:\d\d:\d\d {2}a person matched "HCPSS" \(MD\) to Howard County Public School System on \d{4}-\d\d-\d\d — holds for the next account typed this way$/,
    );
    expect(taught[2]).toMatch(
      /a person rejected Baltimore County Public Schools for "HCPSS" \(MD\) on \d{4}-\d\d-\d\d: never its automatic match — taken back \d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/,
    );
    expect(taught.at(-1)).toBe('what we changed:');
    // A later page continues the changes; the rules are not repeated on it.
    const first = await history(['--crm', 'hubspot', '--account', '101', '--limit', '2']);
    const after = first.stdout.match(/next page: --after (\d+)/)?.[1] ?? '';
    const later = await history(['--crm', 'hubspot', '--account', '101', '--limit', '2', '--after', after]);
    expect(later.stdout).toContain('950000 → 961855');
    expect(later.stdout).not.toContain('a person');
    // A reject on an account we never wrote still shows; the account has no changes.
    const rejectOnly = await history(['--crm', 'hubspot', '--account', '103', '--tenant', '1']);
    expect(rejectOnly.stdout.trim().split('\n').slice(1)).toEqual([
      expect.stringMatching(
        /a person rejected City of Springfield for "Springfield" \(MO\) on .*: never its automatic match — holds for the next account typed this way$/,
      ),
      'no changes recorded for hubspot account 103',
    ]);
  }, 60_000);

  it('pages with --limit and --after, and says when an account has nothing', async () => {
    const first = await history(['--crm', 'hubspot', '--account', '101', '--limit', '2']);
    const next = first.stdout
      .trim()
      .split('\n')
      .at(-1)
      ?.match(/^next page: --after (\d+)$/)?.[1];
    expect(next).toBeDefined();
    expect(first.stdout).toContain('1000001 → 961855');
    expect(first.stdout).not.toContain('950000 → 961855');
    const second = await history([
      '--crm',
      'hubspot',
      '--account',
      '101',
      '--limit',
      '2',
      '--after',
      next ?? '',
    ]);
    expect(second.stdout).toContain('950000 → 961855');
    expect(second.stdout).not.toContain('1000001');
    const none = await history(['--crm', 'hubspot', '--account', '999']);
    expect(none.stdout.trim()).toBe('nothing recorded for hubspot account 999');
  }, 60_000);

  it('prunes what was recorded before a date: counts without --yes, deletes with it', async () => {
    const counted = await history(['prune', '--before', '2025-06-01']);
    expect(counted.code).toBe(0);
    expect(counted.stdout.trim()).toBe(
      'would delete 2 field writes and 1 note record recorded before 2025-06-01T00:00:00.000Z; run again with --yes',
    );
    expect((await history(['--crm', 'hubspot', '--account', '102'])).stdout).toContain('∅ → 961855');
    const pruned = await history(['prune', '--before', '2025-06-01', '--yes']);
    expect(pruned.stdout.trim()).toBe(
      'deleted 2 field writes and 1 note record recorded before 2025-06-01T00:00:00.000Z',
    );
    expect((await history(['--crm', 'hubspot', '--account', '102'])).stdout.trim()).toBe(
      'nothing recorded for hubspot account 102',
    );
    const left = await history(['--crm', 'hubspot', '--account', '101']);
    expect(left.stdout).toContain('1000001 → 961855');
    expect(left.stdout).not.toContain('Contract awarded');
  }, 60_000);

  it('without DATABASE_URL, refuses in one line to create an embedded database to read or prune', async () => {
    const dir = join(mkdtempSync(join(tmpdir(), 'history-embedded-')), 'db');
    try {
      for (const args of [
        ['--crm', 'hubspot', '--account', '101'],
        ['prune', '--before', '2025-06-01'],
      ]) {
        const r = await runCliInProcess(['history', ...args], { PGLITE_DIR: dir });
        expect([args, r.code, r.stdout]).toEqual([args, 1, '']);
        expect(r.stderr).toMatch(
          /^buyer-intel-sync history: DATABASE_URL is not set and there is no embedded database at .+db: set DATABASE_URL to your service's database, .+\n$/,
        );
      }
      expect(existsSync(dir)).toBe(false);
    } finally {
      rmSync(dirname(dir), { recursive: true, force: true });
    }
  }, 60_000);

  it('refuses bad input with exit 2', async () => {
    const cases: [string[], string][] = [
      [['--account', '101'], '--crm'],
      [['--crm', 'pipedrive', '--account', '101'], '--crm'],
      [['--crm', 'hubspot'], '--account'],
      [['--crm', 'hubspot', '--account', 'a1'], 'a1 is not a hubspot account id'],
      [['--crm', 'hubspot', '--account', '101', '--limit', '0'], '--limit'],
      [['--crm', 'hubspot', '--account', '101', '--after', 'x'], '--after'],
      [['prune'], '--before YYYY-MM-DD is required'],
      [['prune', '--before', 'last week'], '--before: must be a date'],
      [['prune', '--before', '2025-02-30x'], '--before'],
      [['prune', '--before', '2025-01-01', '--crm', 'hubspot'], '--crm goes with history'],
      [['--crm', 'hubspot', '--account', '101', '--yes'], 'go with history prune'],
      [['frob'], 'unexpected frob'],
    ];
    for (const [args, message] of cases) {
      const r = await history(args);
      expect([args, r.code, r.stderr.includes(message)]).toEqual([args, 2, true]);
    }
  }, 120_000);
});
