// A backfill chunk's outcomes and duplicate marks in one statement each (src/enrich-job/chunk-outcomes.ts),
// on PGlite and on PostgreSQL: the same rows, counts and marks as the accounts recorded one by one.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AccountUpdate } from '../../connectors/types.ts';
import { PROVENANCE_FIELDS } from '../../src/map/field-definitions.ts';
import { reconcileDuplicatesOf } from '../../src/review/duplicates.ts';
import type { OutcomeRecord } from '../../src/store/outcome-rows.ts';
import type { Repositories } from '../../src/store/store.ts';
import { describeEachDatabase } from '../helpers/databases.ts';

const T0 = new Date('2026-03-01T12:00:00.000Z');

function outcome(
  tenant: string,
  accountId: string,
  buyerId: string | null,
  over: Partial<OutcomeRecord> = {},
) {
  const record: OutcomeRecord = {
    crm: 'hubspot',
    tenant,
    accountId,
    accountName: `Account ${accountId}`,
    state: 'TX',
    status: buyerId ? 'enriched' : 'no_match',
    matchedBy: buyerId ? 'name' : null,
    buyerId,
    buyerName: buyerId && `Buyer ${buyerId}`,
    buyerType: buyerId && 'City',
    confidence: buyerId ? 0.8 : null,
    reason: 'name and state match',
    candidates: [],
    detail: {
      source: 'search',
      fields: [],
      written: {},
      notes: { created: [], alreadyPresent: 0, overCap: 0 },
    },
    trigger: 'backfill',
    runId: '12',
    jobId: 'chunk-1',
    at: T0,
    ...over,
  };
  return record;
}

describeEachDatabase('a chunk’s outcomes and marks', (variant) => {
  let repos: Repositories;
  let drop: () => Promise<void>;

  beforeAll(async () => {
    const fresh = await variant.fresh();
    drop = fresh.drop;
    await fresh.store.migrate();
    repos = await fresh.store.open();
  });
  afterAll(async () => {
    await drop?.();
  });

  it('records every account in one go, each counting the accounts that share its buyer, batch included', async () => {
    await repos.outcomes.record(outcome('c1', 'x1', 'B'));
    // x2 was pinned (rejected) after its job began: its row stays as the person left it.
    await repos.outcomes.record(outcome('c1', 'x2', 'C'));
    await repos.review.pin({ crm: 'hubspot', tenant: 'c1', accountId: 'x2' }, 'Rejected by ann');
    const sharing = await repos.outcomes.recordManyCountingShared([
      { record: outcome('c1', 'a', 'B'), kept: [] },
      { record: outcome('c1', 'b', 'B'), kept: [] },
      { record: outcome('c1', 'c', 'C'), kept: [] },
      { record: outcome('c1', 'd', null), kept: [] },
      { record: outcome('c1', 'x2', 'C'), kept: [] },
    ]);
    expect(Object.fromEntries(sharing)).toEqual({ a: 2, b: 2, c: 0, d: 0 });
    expect(await repos.outcomes.get({ crm: 'hubspot', tenant: 'c1', accountId: 'b' })).toMatchObject({
      status: 'enriched',
      cohort: 'matched_by_name',
      buyerId: 'B',
      runId: '12',
      jobId: 'chunk-1',
      confidence: 0.8,
      pinned: false,
    });
    expect(await repos.outcomes.get({ crm: 'hubspot', tenant: 'c1', accountId: 'x2' })).toMatchObject({
      status: 'no_match',
      pinned: true,
    });
    // Moving an account off a buyer in the same batch as another joins it: counted as they end up.
    const moved = await repos.outcomes.recordManyCountingShared([
      { record: outcome('c1', 'a', 'C'), kept: [] },
      { record: outcome('c1', 'c', 'C'), kept: [] },
    ]);
    expect(Object.fromEntries(moved)).toEqual({ a: 1, c: 1 });
    expect((await repos.outcomes.counts({ tenant: 'c1' })).duplicates).toBe(4);
  });

  it('of accounts of one buyer recorded at the same moment by separate jobs, at most one counts none', async () => {
    // Each statement sees the table as it began: without a second count, jobs that commit together all
    // count 0 and no duplicates group is ever reconciled (6 of 8 did in the second round, once the pool's
    // connections were open). On PGlite statements run one at a time.
    for (let round = 0; round < 30; round++) {
      const ids = Array.from({ length: 8 }, (_, i) => `same-moment-${round}-${i}`);
      const counted = await Promise.all(
        ids.map((id) => repos.outcomes.recordCountingShared(outcome('c3', id, `S${round}`))),
      );
      const none = counted.filter((c) => c.sharing === 0).length;
      expect(none, `round ${round}`).toBeLessThanOrEqual(1);
    }
  });

  describe('reconciled together', () => {
    const crmMarks = new Map<string, string | null>();
    const writes: string[] = [];
    let refuse = new Set<string>();
    const deps = () => ({
      review: repos.review,
      writeAccount: async (_crm: string, _tenant: string, update: AccountUpdate) => {
        writes.push(update.accountId);
        if (refuse.has(update.accountId))
          return {
            accountId: update.accountId,
            ok: false as const,
            error: { status: 400, message: 'refused', permanent: true },
          };
        crmMarks.set(
          update.accountId,
          (update.fields[PROVENANCE_FIELDS.duplicateOf] as string | null) ?? null,
        );
        return { accountId: update.accountId, ok: true as const };
      },
    });

    it('marks each group once, as one account after another would', async () => {
      const batch = [
        outcome('c2', 'p1', 'B', { confidence: 0.9 }),
        outcome('c2', 'p2', 'B'),
        outcome('c2', 'q1', 'C'),
        outcome('c2', 'q2', 'C', { confidence: 0.95 }),
        outcome('c2', 'r1', 'D'),
      ];
      const sharing = await repos.outcomes.recordManyCountingShared(
        batch.map((record) => ({ record, kept: [] })),
      );
      const requests = batch
        .filter((r) => (sharing.get(r.accountId) ?? 0) > 0)
        .map((r) => ({ accountId: r.accountId, buyerIds: [r.buyerId] }));
      expect(requests.map((r) => r.accountId)).toEqual(['p1', 'p2', 'q1', 'q2']);
      const { written, failures } = await reconcileDuplicatesOf(deps(), 'hubspot', 'c2', requests);
      expect(failures.size).toBe(0);
      expect(written).toBe(2);
      expect(writes.sort()).toEqual(['p2', 'q1']);
      expect(Object.fromEntries(crmMarks)).toEqual({ p2: 'p1', q1: 'q2' });
      const marks = await repos.review.outcomesOf(
        ['p1', 'p2', 'q1', 'q2', 'r1'].map((accountId) => ({ crm: 'hubspot', tenant: 'c2', accountId })),
      );
      expect(Object.fromEntries(marks.map((o) => [o.accountId, o.duplicateOf]))).toEqual({
        p1: null,
        p2: 'p1',
        q1: 'q2',
        q2: null,
        r1: null,
      });
    });

    it('fails only the accounts whose group holds a mark the CRM refused', async () => {
      writes.length = 0;
      refuse = new Set(['s2']);
      const batch = [
        outcome('c2', 's1', 'E', { confidence: 0.9 }),
        outcome('c2', 's2', 'E'),
        outcome('c2', 't1', 'F', { confidence: 0.9 }),
        outcome('c2', 't2', 'F'),
      ];
      await repos.outcomes.recordManyCountingShared(batch.map((record) => ({ record, kept: [] })));
      const { failures } = await reconcileDuplicatesOf(
        deps(),
        'hubspot',
        'c2',
        batch.map((r) => ({ accountId: r.accountId, buyerIds: [r.buyerId] })),
      );
      expect(Object.fromEntries(failures)).toEqual({ s1: 'refused', s2: 'refused' });
      expect(crmMarks.get('t2')).toBe('t1');
    });
  });
});
