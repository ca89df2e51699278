// Size: one contract for the whole store (migrations, outcomes, decisions, runs), run on both databases.
// One contract for the system of record, run on the embedded PGlite and on a real PostgreSQL: the same
// migrations, the same statements, the same answers.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OutcomeRecord } from '../../src/store/outcome-rows.ts';
import type { Run } from '../../src/store/runs.ts';
import { MigrationsPending, type Repositories, type Store } from '../../src/store/store.ts';
import { describeEachDatabase } from '../helpers/databases.ts';

const T0 = new Date('2026-03-01T12:00:00.000Z');

function outcome(accountId: string, over: Partial<OutcomeRecord> = {}): OutcomeRecord {
  return {
    crm: 'hubspot',
    tenant: 'p1',
    accountId,
    accountName: `Account ${accountId}`,
    state: 'TX',
    status: 'enriched',
    matchedBy: 'name',
    buyerId: `b-${accountId}`,
    buyerName: `Buyer ${accountId}`,
    buyerType: 'City',
    confidence: 0.9,
    reason: 'name and state match',
    candidates: [
      { buyerId: `b-${accountId}`, name: `Buyer ${accountId}`, stateCode: 'TX', type: 'City', score: 0.9 },
    ],
    detail: {
      source: 'search',
      fields: [],
      written: {},
      notes: { created: [], alreadyPresent: 0, overCap: 0 },
    },
    trigger: 'webhook',
    jobId: `job-${accountId}`,
    at: T0,
    ...over,
  };
}

describeEachDatabase('store contract', (variant) => {
  let store: Store;
  let repos: Repositories;
  let drop: () => Promise<void>;

  beforeAll(async () => {
    ({ store, drop } = await variant.fresh());
  });
  afterAll(async () => {
    await drop?.();
  });

  it('migrates a fresh database to the latest schema; running it again changes nothing', async () => {
    const all = [
      '0001_initial',
      '0002_duplicate_of',
      '0003_approvable_index',
      '0004_outcome_counts',
      '0005_outcomes_by_run',
      '0006_write_history',
      '0007_undo',
      '0008_durable_from_redis',
      '0009_undo_claim',
      '0010_pending_writes',
      '0011_pending_notes',
      '0012_follow_ups',
      '0013_note_recorded_index',
      '0014_learned_decisions',
      '0015_mapping_versions',
      '0016_mapping_document_json',
      '0017_dashboard_counters',
      '0018_field_summary',
    ];
    expect(await store.pending()).toEqual(all);
    if (!store.embedded) {
      // A shared database is never migrated behind the operator's back.
      const refused = await store.open().catch((err: unknown) => err);
      expect(refused).toBeInstanceOf(MigrationsPending);
      expect((refused as Error).message).toMatch(
        /pending migrations \(0001_initial, 0002_duplicate_of, 0003_approvable_index, 0004_outcome_counts, 0005_outcomes_by_run, 0006_write_history, 0007_undo, 0008_durable_from_redis, 0009_undo_claim, 0010_pending_writes, 0011_pending_notes, 0012_follow_ups, 0013_note_recorded_index, 0014_learned_decisions, 0015_mapping_versions, 0016_mapping_document_json, 0017_dashboard_counters, 0018_field_summary\).*buyer-intel-sync migrate/,
      );
    }
    expect(await store.migrate()).toEqual(all);
    expect(await store.migrate()).toEqual([]);
    expect(await store.pending()).toEqual([]);
    repos = await store.open();
  });

  it('records an outcome in one upsert and reads it back', async () => {
    await repos.outcomes.record(outcome('a1', { runId: '42' }));
    const got = await repos.outcomes.get({ crm: 'hubspot', tenant: 'p1', accountId: 'a1' });
    expect(got).toMatchObject({
      accountName: 'Account a1',
      state: 'TX',
      status: 'enriched',
      cohort: 'matched_by_name',
      matchedBy: 'name',
      buyerId: 'b-a1',
      buyerType: 'City',
      confidence: 0.9,
      runId: '42',
      jobId: 'job-a1',
      error: null,
      pinned: false,
    });
    expect(got?.candidates).toHaveLength(1);
    expect(got?.updatedAt.toISOString()).toBe(T0.toISOString());
    expect(await repos.outcomes.get({ crm: 'hubspot', tenant: 'p1', accountId: 'nope' })).toBeNull();
  });

  it('a re-run pinned to the same buyer keeps how and why it was matched; another buyer replaces it', async () => {
    const key = { crm: 'hubspot', tenant: 'p1', accountId: 'a1' };
    const pinnedRun = {
      matchedBy: 'id' as const,
      confidence: 1,
      reason: 'Pinned to buyer b-a1',
      buyerName: null,
      buyerType: null,
      candidates: [],
      at: new Date(T0.getTime() + 1000),
    };
    await repos.outcomes.record(outcome('a1', pinnedRun));
    expect(await repos.outcomes.get(key)).toMatchObject({
      cohort: 'matched_by_name',
      matchedBy: 'name',
      confidence: 0.9,
      reason: 'name and state match',
      buyerName: 'Buyer a1',
      buyerType: 'City',
    });
    await repos.outcomes.record(
      outcome('a1', { ...pinnedRun, buyerId: 'b-other', reason: 'Pinned to buyer b-other' }),
    );
    expect(await repos.outcomes.get(key)).toMatchObject({
      cohort: 'matched_by_id',
      matchedBy: 'id',
      buyerId: 'b-other',
      buyerName: null,
      confidence: 1,
      reason: 'Pinned to buyer b-other',
    });
  });

  it('a final failure marks the account error and keeps its last match; the next outcome clears it', async () => {
    const key = { crm: 'hubspot', tenant: 'p1', accountId: 'a1' };
    await repos.outcomes.recordError(key, 'HubSpot refused the write', { jobId: 'job-x' });
    expect(await repos.outcomes.get(key)).toMatchObject({
      status: 'error',
      cohort: 'error',
      error: 'HubSpot refused the write',
      buyerId: 'b-other',
      jobId: 'job-x',
    });
    await repos.outcomes.recordError({ ...key, accountId: 'never-seen' }, 'unknown account');
    expect(await repos.outcomes.get({ ...key, accountId: 'never-seen' })).toMatchObject({
      status: 'error',
      buyerId: null,
      candidates: [],
    });
    await repos.outcomes.record(outcome('a1'));
    expect(await repos.outcomes.get(key)).toMatchObject({ status: 'enriched', error: null });
  });

  describe('over a few hundred accounts', () => {
    const KINDS = ['matched_by_name', 'matched_by_id', 'needs_review', 'no_match'] as const;
    const N = 240;
    beforeAll(async () => {
      await repos.outcomes.recordError({ crm: 'hubspot', tenant: 'p1', accountId: 'a1' }, 'reset');
      for (let i = 0; i < N; i++) {
        const kind = KINDS[i % KINDS.length];
        const tenant = i % 3 === 0 ? 'p2' : 'p1';
        const base = outcome(`x${i}`, {
          tenant,
          // Many ties, so paging must break them by id.
          confidence: kind === 'no_match' ? null : ([0.5, 0.6, 0.75, 0.9][(i >> 2) % 4] ?? 0.5),
          accountName:
            i % 10 === 0 ? `City of Austin ${i}` : i % 10 === 1 ? `AUSTIN isd ${i}` : `Account ${i}`,
          state: i % 5 === 0 ? 'CA' : 'TX',
          buyerType: i % 2 ? 'City' : 'SchoolDistrict',
          at: new Date(T0.getTime() + (i % 7) * 60_000),
        });
        if (kind === 'matched_by_id') await repos.outcomes.record({ ...base, matchedBy: 'id' });
        else if (kind === 'needs_review')
          await repos.outcomes.record({ ...base, status: 'needs_review', matchedBy: null, buyerId: null });
        else if (kind === 'no_match')
          await repos.outcomes.record({ ...base, status: 'no_match', matchedBy: null, buyerId: null });
        // Every 8th account of p1 is resolved to the same buyer: duplicates.
        else
          await repos.outcomes.record(
            i % 8 === 0 && tenant === 'p1' ? { ...base, buyerId: 'b-shared' } : base,
          );
      }
    });

    it('counts accounts per cohort, duplicates included, for all or one tenant', async () => {
      const all = await repos.outcomes.counts();
      expect(all).toEqual({
        matched_by_name: N / 4,
        matched_by_id: N / 4,
        needs_review: N / 4,
        no_match: N / 4,
        error: 2,
        duplicates: expect.any(Number),
      });
      const shared = Array.from({ length: N }, (_, i) => i).filter(
        (i) => i % 4 === 0 && i % 8 === 0 && i % 3 !== 0,
      ).length;
      expect(all.duplicates).toBe(shared);
      const p2 = await repos.outcomes.counts({ crm: 'hubspot', tenant: 'p2' });
      expect(p2.duplicates).toBe(0);
      expect(p2.matched_by_name + p2.matched_by_id + p2.needs_review + p2.no_match).toBe(N / 3);
      const dups = await repos.outcomes.list(
        { duplicates: true },
        { sort: 'date', direction: 'asc', limit: 500 },
      );
      expect(dups.rows.map((r) => r.buyerId)).toEqual(Array(shared).fill('b-shared'));
    });

    for (const sort of ['confidence', 'date'] as const)
      for (const direction of ['asc', 'desc'] as const)
        for (const cohort of [undefined, 'needs_review', 'no_match'] as const)
          it(`keyset pages by ${sort} ${direction}${cohort ? ` in ${cohort}` : ''} return every row once, in order`, async () => {
            const seen: string[] = [];
            const keys: number[] = [];
            let after: string | undefined;
            let pages = 0;
            do {
              const page = await repos.outcomes.list({ cohort }, { sort, direction, limit: 7, after });
              for (const r of page.rows) {
                seen.push(r.id);
                keys.push(sort === 'confidence' ? (r.confidence ?? -1) : r.updatedAt.getTime());
              }
              after = page.next ?? undefined;
              pages++;
            } while (after && pages < 100);
            const expected = (await repos.outcomes.counts())[cohort ?? 'error'];
            const total = cohort ? expected : N + 2;
            expect(seen).toHaveLength(total);
            expect(new Set(seen).size).toBe(total);
            const sorted = [...keys].sort((a, b) => (direction === 'asc' ? a - b : b - a));
            expect(keys).toEqual(sorted);
          });

    it('filters by tenant, state, buyer type, confidence range and date', async () => {
      const page = (filter: Parameters<Repositories['outcomes']['list']>[0]) =>
        repos.outcomes.list(filter, { sort: 'confidence', direction: 'desc', limit: 500 });
      const rows = (
        await page({ tenant: 'p2', state: 'CA', buyerType: 'City', minConfidence: 0.6, maxConfidence: 0.9 })
      ).rows;
      expect(rows.length).toBeGreaterThan(0);
      for (const r of rows) {
        expect(r).toMatchObject({ tenant: 'p2', state: 'CA', buyerType: 'City' });
        expect(r.confidence).toBeGreaterThanOrEqual(0.6);
        expect(r.confidence).toBeLessThanOrEqual(0.9);
      }
      const from = new Date(T0.getTime() + 3 * 60_000);
      const to = new Date(T0.getTime() + 5 * 60_000);
      const dated = (await page({ updatedFrom: from, updatedTo: to })).rows;
      expect(dated.length).toBeGreaterThan(0);
      for (const r of dated) expect([3, 4]).toContain((r.updatedAt.getTime() - T0.getTime()) / 60_000);
    });

    it('finds accounts by part of their name, in any case; % and _ are letters', async () => {
      const austin = await repos.outcomes.list(
        { name: 'austin' },
        { sort: 'date', direction: 'desc', limit: 500 },
      );
      expect(austin.rows).toHaveLength(N / 5);
      for (const r of austin.rows) expect(r.accountName?.toLowerCase()).toContain('austin');
      const isd = await repos.outcomes.list(
        { name: 'Austin ISD', cohort: 'no_match' },
        { sort: 'date', direction: 'desc', limit: 500 },
      );
      for (const r of isd.rows) expect(r.cohort).toBe('no_match');
      expect(isd.rows.length).toBeGreaterThan(0);
      expect(
        (await repos.outcomes.list({ name: '%' }, { sort: 'date', direction: 'asc', limit: 5 })).rows,
      ).toEqual([]);
    });

    it('refuses a cursor it did not make', async () => {
      await expect(
        repos.outcomes.list(
          {},
          { sort: 'confidence', direction: 'asc', limit: 5, after: 'bm90LWEtY3Vyc29y' },
        ),
      ).rejects.toThrow(/not a cursor/);
    });

    it('previews a bulk approve: undecided accounts of the filter whose best candidate scores at least the floor', async () => {
      const undecided = Array.from({ length: N }, (_, i) => i)
        .filter((i) => KINDS[i % KINDS.length] === 'needs_review')
        .map((i) => ({
          tenant: i % 3 === 0 ? 'p2' : 'p1',
          score: [0.5, 0.6, 0.75, 0.9][(i >> 2) % 4] ?? 0.5,
        }));
      const expected = (floor: number, tenant?: string) =>
        undecided.filter((u) => u.score >= floor && (tenant === undefined || u.tenant === tenant)).length;
      expect(expected(0.75)).toBeGreaterThan(0);
      expect(expected(0.75)).toBeLessThan(N / 4);
      expect(await repos.outcomes.countApprovable({}, 0.75)).toBe(expected(0.75));
      expect(await repos.outcomes.countApprovable({ tenant: 'p2' }, 0.75)).toBe(expected(0.75, 'p2'));
      expect(await repos.outcomes.countApprovable({ cohort: 'needs_review' }, 0)).toBe(N / 4);
      // Matched accounts, and undecided ones with no candidate to approve, are never counted.
      expect(await repos.outcomes.countApprovable({ cohort: 'matched_by_name' }, 0)).toBe(0);
      await repos.outcomes.record(
        outcome('y1', {
          tenant: 'p3',
          status: 'needs_review',
          matchedBy: null,
          buyerId: null,
          confidence: 0.95,
          candidates: [],
        }),
      );
      await repos.outcomes.record(outcome('y2', { tenant: 'p3', confidence: 0.95 }));
      expect(await repos.outcomes.countApprovable({ tenant: 'p3' }, 0)).toBe(0);
      await expect(repos.outcomes.countApprovable({}, 1.5)).rejects.toThrow(/score floor/);
    });
  });

  it('appends decisions and reads an account’s newest first', async () => {
    const key = { crm: 'salesforce', tenant: '00D1', accountId: '001A' };
    await repos.decisions.append({
      ...key,
      action: 'confirm',
      buyerId: 'b1',
      actor: { kind: 'api-key', name: 'key:1a2b3c4d' },
      at: T0,
    });
    await repos.decisions.append({
      ...key,
      action: 'reject',
      params: { why: 'not a buyer' },
      actor: { kind: 'admin', name: 'ops' },
      runId: '7',
      at: new Date(T0.getTime() + 1000),
    });
    const got = await repos.decisions.forAccount(key);
    expect(got.map((d) => [d.action, d.actor.kind, d.actor.name, d.buyerId, d.runId])).toEqual([
      ['reject', 'admin', 'ops', null, '7'],
      ['confirm', 'api-key', 'key:1a2b3c4d', 'b1', null],
    ]);
    expect(got[0]?.params).toEqual({ why: 'not a buyer' });
    await expect(
      repos.decisions.append({ ...key, action: 'delete' as 'reject', actor: { kind: 'cli', name: 'cli' } }),
    ).rejects.toThrow();
  });

  it('creates runs once per key, finishes them, lists newest first', async () => {
    const a = await repos.runs.create({
      kind: 'backfill',
      label: 'backfill 500',
      key: 'backfill:hubspot:p1:1',
      at: T0,
    });
    const again = await repos.runs.create({
      kind: 'backfill',
      label: 'backfill 500',
      key: 'backfill:hubspot:p1:1',
    });
    expect(again.id).toBe(a.id);
    const b = await repos.runs.create({ kind: 'refresh', label: 'refresh a1', actor: 'key:1a2b3c4d' });
    // While it runs, its counts say what it queued so far; once finished, only its final ones hold.
    await repos.runs.setCounts(a.id, { queued: 200, scanned: 210 });
    expect(await repos.runs.get(a.id)).toMatchObject({
      counts: { queued: 200, scanned: 210 },
      finishedAt: null,
    });
    await repos.runs.finish(a.id, { queued: 500 }, new Date(T0.getTime() + 5000));
    await repos.runs.setCounts(a.id, { queued: 300 });
    expect(await repos.runs.get(a.id)).toMatchObject({
      kind: 'backfill',
      label: 'backfill 500',
      counts: { queued: 500 },
      finishedAt: new Date(T0.getTime() + 5000),
    });
    expect((await repos.runs.list()).runs.map((r) => r.id).slice(0, 2)).toEqual([b.id, a.id]);
    expect((await repos.runs.list({ kind: 'backfill' })).runs.map((r) => r.id)).toEqual([a.id]);
    expect(await repos.runs.get('no-such-run')).toBeNull();
    expect(await repos.runs.get('99999999999999999999')).toBeNull();
  });

  it('pages runs newest first by keyset, of one kind or all, to the end and no further', async () => {
    // Started out of id order (a resumed backfill keeps its first start), some in the same microsecond.
    const at = (s: number) => new Date(T0.getTime() + 60_000 + s * 1000);
    const made: Run[] = [];
    for (const [i, s] of [3, 1, 2, 2, 5, 4, 2].entries())
      made.push(await repos.runs.create({ kind: i % 2 ? 'webhook' : 'refresh', label: `r${i}`, at: at(s) }));
    made.push(await repos.runs.create({ kind: 'webhook', label: 'now' })); // started_at = now(), µs
    const expected = [...made]
      .sort((x, y) => y.startedAt.getTime() - x.startedAt.getTime() || Number(y.id) - Number(x.id))
      .map((r) => r.id);

    const walk = async (kind?: 'webhook') => {
      const seen: string[] = [];
      let after: string | undefined;
      for (let pages = 0; pages < 20; pages++) {
        const page = await repos.runs.list({ limit: 2, after, ...(kind ? { kind } : {}) });
        expect(page.runs.length).toBeLessThanOrEqual(2);
        seen.push(...page.runs.map((r) => r.id));
        if (!page.next) return seen;
        after = page.next;
      }
      throw new Error('paging did not end');
    };
    const all = await walk();
    // Every run (and the two made by the test above) once, in order.
    expect(all.filter((id) => expected.includes(id))).toEqual(expected);
    expect(new Set(all).size).toBe(all.length);
    const webhooks = await walk('webhook');
    expect(webhooks).toEqual(expected.filter((id) => made.find((r) => r.id === id)?.kind === 'webhook'));
    await expect(repos.runs.list({ after: 'x' })).rejects.toThrow(RangeError);
  });

  it('counts a run’s accounts by the status of their latest outcome', async () => {
    const run = await repos.runs.create({ kind: 'webhook', label: 'a webhook' });
    const other = await repos.runs.create({ kind: 'refresh', label: 'a refresh' });
    const k = (accountId: string) => ({ crm: 'hubspot', tenant: 'runs', accountId });
    await repos.outcomes.record(outcome('r1', { tenant: 'runs', runId: run.id }));
    await repos.outcomes.record(
      outcome('r2', { tenant: 'runs', runId: run.id, status: 'needs_review', matchedBy: null }),
    );
    await repos.outcomes.recordError(k('r3'), 'boom', { runId: run.id });
    // A later run of r4 takes it: its latest outcome names the other run.
    await repos.outcomes.record(outcome('r4', { tenant: 'runs', runId: run.id }));
    await repos.outcomes.record(
      outcome('r4', { tenant: 'runs', runId: other.id, status: 'no_match', matchedBy: null }),
    );
    expect(await repos.runs.outcomeCounts(run.id)).toEqual({
      enriched: 1,
      needs_review: 1,
      no_match: 0,
      error: 1,
    });
    expect(await repos.runs.outcomeCounts(other.id)).toEqual({
      enriched: 0,
      needs_review: 0,
      no_match: 1,
      error: 0,
    });
    expect(await repos.runs.outcomeCounts('nope')).toEqual({
      enriched: 0,
      needs_review: 0,
      no_match: 0,
      error: 0,
    });
  });

  // Last: the tests above count every account.
  it('keeps what an account says as written: quotes, backslashes, braces, commas, NULL, an emoji', async () => {
    const name = 'Parks "North", {Dept} \\ C:\\dir NULL 🏛';
    await repos.outcomes.record(
      outcome('a-text', {
        tenant: 'text-only',
        accountName: name,
        reason: 'said "yes", then {no}',
        candidates: [
          { buyerId: 'b\\1', name: 'A "quoted" \\ name', stateCode: 'TX', type: null, score: 0.5 },
        ],
      }),
    );
    const got = await repos.outcomes.get({ crm: 'hubspot', tenant: 'text-only', accountId: 'a-text' });
    expect(got).toMatchObject({ accountName: name, reason: 'said "yes", then {no}' });
    expect(got?.candidates[0]).toMatchObject({ buyerId: 'b\\1', name: 'A "quoted" \\ name', type: null });
  });

  it('records a name cut inside an emoji, its half as U+FFFD (as a text parameter would)', async () => {
    await repos.outcomes.record(
      outcome('a-cut', { tenant: 'text-only', accountName: 'Library \ud83c', reason: '\ud83c cut' }),
    );
    const got = await repos.outcomes.get({ crm: 'hubspot', tenant: 'text-only', accountId: 'a-cut' });
    expect(got).toMatchObject({ accountName: 'Library \ufffd', reason: '\ufffd cut' });
  });
});
