// `buyer-intel-sync runs` in process (runCliInProcess) on the file's database: a list newest first
// (by kind, a page at a time), a run's accounts by their latest outcome, and refusals of bad input
// (a missing embedded database among them).
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { OutcomeRecord } from '../../src/store/outcome-rows.ts';
import type { Run } from '../../src/store/runs.ts';
import { Store } from '../../src/store/store.ts';
import { cliDatabase, runCliInProcess } from '../helpers/cli.ts';

let backfill: Run;
let webhook: Run;
let refresh: Run;

const T0 = new Date('2026-03-01T12:00:00.000Z');
const outcome = (accountId: string, runId: string, status: OutcomeRecord['status']): OutcomeRecord => ({
  crm: 'hubspot',
  tenant: '1',
  accountId,
  accountName: `Town ${accountId}`,
  state: null,
  status,
  matchedBy: status === 'enriched' ? 'name' : null,
  buyerId: null,
  buyerName: null,
  buyerType: null,
  confidence: null,
  reason: 'test',
  candidates: [],
  detail: { source: null, fields: [], written: {}, notes: { created: [], alreadyPresent: 0, overCap: 0 } },
  runId,
});

beforeAll(async () => {
  const store = new Store((await cliDatabase()).settings);
  const { runs, outcomes, writes } = await store.open();
  backfill = await runs.create({
    kind: 'backfill',
    key: 'backfill:test:1',
    label: 'backfill of 4 accounts (HubSpot 1)',
    actor: 'cli (tester)',
    at: T0,
  });
  await runs.finish(backfill.id, { queued: 4, scanned: 5 }, new Date(T0.getTime() + 5_000));
  webhook = await runs.create({
    kind: 'webhook',
    label: 'HubSpot webhook: 2 events',
    at: new Date(T0.getTime() + 60_000),
  });
  refresh = await runs.create({
    kind: 'refresh',
    label: 'refresh hubspot 1 a9',
    at: new Date(T0.getTime() + 120_000),
  });
  await outcomes.record(outcome('a1', backfill.id, 'enriched'));
  await outcomes.record(outcome('a2', backfill.id, 'enriched'));
  await outcomes.record(outcome('a3', backfill.id, 'needs_review'));
  await outcomes.recordError({ crm: 'hubspot', tenant: '1', accountId: 'a4' }, 'boom', {
    runId: backfill.id,
  });
  const write = (accountId: string, result: 'ok' | 'not_sent') => ({
    crm: 'hubspot',
    tenant: '1',
    accountId,
    runId: backfill.id,
    jobId: `j-${accountId}`,
    trigger: 'backfill',
    buyerId: 'b1',
    field: 'buyer_intel_population',
    attribute: 'Population',
    kind: 'mapped' as const,
    policy: 'ours',
    old: result === 'ok' ? null : '5',
    new: '10',
    decision: result === 'ok' ? 'write' : 'blocked-edited-by-person',
    result,
    error: null,
    at: T0,
  });
  await writes.recordFieldWrites([write('a1', 'ok'), write('a2', 'ok'), write('a3', 'not_sent')]);
  await store.close();
}, 60_000);

const runs = (args: string[]) => runCliInProcess(['runs', ...args], {});

describe('buyer-intel-sync runs', () => {
  it('without DATABASE_URL, refuses in one line to create an embedded database; reads one that exists', async () => {
    const dir = join(mkdtempSync(join(tmpdir(), 'runs-embedded-')), 'db');
    try {
      // A terminal without the service's exports: no database is created only to be found empty.
      const started = Date.now();
      const missing = await runCliInProcess(['runs', 'list'], { PGLITE_DIR: dir });
      expect(Date.now() - started).toBeLessThan(5_000);
      expect(missing.code).toBe(1);
      expect(missing.stdout).toBe('');
      expect(missing.stderr).toBe(
        `buyer-intel-sync runs: DATABASE_URL is not set and there is no embedded database at ${dir}: set DATABASE_URL to your service's database, or create the embedded one with \`buyer-intel-sync migrate\`\n`,
      );
      expect(existsSync(dir)).toBe(false);

      // Once there is one (as the line says to make it), an empty list names the database it read.
      expect((await runCliInProcess(['migrate', '--skip-import'], { PGLITE_DIR: dir })).code).toBe(0);
      const empty = await runCliInProcess(['runs', 'list'], { PGLITE_DIR: dir });
      expect(empty.code).toBe(0);
      expect(empty.stdout.trim()).toBe(
        `no runs yet in the embedded database at ${dir}; set DATABASE_URL to read your service's database`,
      );
    } finally {
      rmSync(dirname(dir), { recursive: true, force: true });
    }
  }, 60_000);

  it('lists runs newest first, of one kind, a page at a time', async () => {
    const all = await runs(['list']);
    expect(all.stderr).toBe('');
    expect(all.code).toBe(0);
    const order = [refresh, webhook, backfill].map((r) => all.stdout.indexOf(` ${r.label}`));
    expect(order.every((i) => i > 0)).toBe(true);
    expect(order).toEqual([...order].sort((a, b) => a - b));
    expect(all.stdout).toContain('2026-03-01 12:00:00');
    expect(all.stdout).toContain('queued 4, scanned 5');
    expect(all.stdout).not.toContain('next page');

    const first = await runs(['list', '--limit', '2']);
    expect(first.stdout).toContain(refresh.label);
    expect(first.stdout).not.toContain(backfill.label);
    expect(first.stdout.trim().split('\n').at(-1)).toBe(`next page: --after ${webhook.id}`);
    const second = await runs(['list', '--limit', '2', '--after', webhook.id]);
    expect(second.stdout).toContain(backfill.label);
    expect(second.stdout).not.toContain(refresh.label);

    const webhooks = await runs(['list', '--kind', 'webhook']);
    expect(webhooks.stdout).toContain(webhook.label);
    expect(webhooks.stdout).not.toContain(refresh.label);
    expect((await runs(['list', '--kind', 'undo'])).stdout.trim()).toBe('no runs yet');
  }, 60_000);

  it('shows a run, its accounts by their latest outcome, and what it changed', async () => {
    const shown = await runs(['show', backfill.id]);
    expect(shown.code).toBe(0);
    expect(shown.stdout).toContain(backfill.label);
    expect(shown.stdout).toContain('cli (tester)');
    expect(shown.stdout).toContain('2026-03-01 12:00:05');
    const rows = Object.fromEntries(
      [...shown.stdout.matchAll(/│ (enriched|needs_review|no_match|error)\s+│\s+(\d+) │/g)].map((m) => [
        m[1],
        Number(m[2]),
      ]),
    );
    expect(rows).toEqual({ enriched: 2, needs_review: 1, no_match: 0, error: 1 });
    // The number the backfill's progress showed: its accounts with an outcome, of those it queued.
    expect(shown.stdout).toMatch(/│ accounts\s+│ 4 with an outcome of 4 queued\s+│/);
    const changed = Object.fromEntries(
      [
        ...shown.stdout.matchAll(
          /│ (accounts changed|fields written|values kept \(policy\)|notes created)\s+│\s+(\d+) │/g,
        ),
      ].map((m) => [m[1], Number(m[2])]),
    );
    expect(changed).toEqual({
      'accounts changed': 3,
      'fields written': 2,
      'values kept (policy)': 1,
      'notes created': 0,
    });
  }, 60_000);

  it('refuses bad input with exit 2, and an unknown run with exit 1', async () => {
    const kind = await runs(['list', '--kind', 'nightly']);
    expect(kind.code).toBe(2);
    expect(kind.stderr).toContain('--kind: Invalid option');
    const limit = await runs(['list', '--limit', '0']);
    expect(limit.code).toBe(2);
    expect(limit.stderr).toContain('--limit');
    const id = await runs(['show', 'abc']);
    expect(id.code).toBe(2);
    expect(id.stderr).toContain('"abc" is not a run id');
    expect((await runs(['frob'])).code).toBe(2);
    const unknown = await runs(['show', '999999']);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr.trim()).toBe('buyer-intel-sync runs: no run 999999');
  }, 60_000);
});
