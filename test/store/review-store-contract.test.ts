// Size: one contract, as for the store: pins, outcomesOf, groups, members and marks read together.
// The review repository's contract (a person's pin, the duplicates groups and their marks), run on the
// embedded PGlite and on a real PostgreSQL: the same statements, the same answers.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AccountRef, AccountUpdate } from '../../connectors/types.ts';
import { PROVENANCE_FIELDS } from '../../src/map/field-definitions.ts';
import { reconcileDuplicates } from '../../src/review/duplicates.ts';
import type { OutcomeRecord } from '../../src/store/outcome-rows.ts';
import type { Repositories } from '../../src/store/store.ts';
import { describeEachDatabase } from '../helpers/databases.ts';

const T0 = new Date('2026-03-01T12:00:00.000Z');
const later = (s: number) => new Date(T0.getTime() + s * 1000);

/** An automatic outcome: what a job found for the account (enriched with `buyerId` unless told). */
function outcome(tenant: string, accountId: string, over: Partial<OutcomeRecord> = {}): OutcomeRecord {
  const buyerId = over.buyerId === undefined ? `b-${accountId}` : over.buyerId;
  return {
    crm: 'hubspot',
    tenant,
    accountId,
    accountName: `Account ${accountId}`,
    state: 'TX',
    status: 'enriched',
    matchedBy: 'name',
    buyerId,
    buyerName: buyerId && `Buyer ${buyerId}`,
    buyerType: 'City',
    confidence: 0.8,
    reason: 'name and state match',
    candidates: buyerId
      ? [{ buyerId, name: `Buyer ${buyerId}`, stateCode: 'TX', type: 'City', score: 0.8 }]
      : [],
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

const keyOf = (k: AccountRef) => `${k.crm}/${k.tenant}/${k.accountId}`;
const idsOf = (rows: readonly AccountRef[]) => rows.map((r) => r.accountId);

describeEachDatabase('review store contract', (variant) => {
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

  describe('a rejection (pin)', () => {
    const key = { crm: 'hubspot', tenant: 'pin', accountId: 'a1' };
    const reason = 'Rejected by ann: a private company';
    const get = () => repos.outcomes.get(key);

    it('makes the account a pinned no_match with the reason at once, before any job applies it', async () => {
      await repos.outcomes.record(outcome('pin', 'a1', { buyerId: 'b-austin' }));
      await repos.review.pin(key, reason, { runId: '7' });
      expect(await get()).toMatchObject({
        status: 'no_match',
        cohort: 'no_match',
        pinned: true,
        reason,
        matchedBy: null,
        buyerId: null,
        buyerName: null,
        buyerType: null,
        confidence: null,
        candidates: [],
        error: null,
        runId: '7',
        // No job has applied it yet (the job that does learns so, see the duplicates below).
        jobId: null,
      });
      // An account never seen before can be rejected too.
      const fresh = { ...key, accountId: 'never-enriched' };
      await repos.review.pin(fresh, reason);
      expect(await repos.outcomes.get(fresh)).toMatchObject({ status: 'no_match', pinned: true, reason });
    });

    it('holds against an automatic outcome of a job that began before it', async () => {
      const written = await repos.outcomes.record(
        outcome('pin', 'a1', { buyerId: 'b-austin', at: later(1) }),
      );
      expect(written).toBe(false);
      const shared = await repos.outcomes.recordCountingShared(outcome('pin', 'a1', { at: later(2) }));
      expect(shared).toEqual({ sharing: 0 });
      expect(await get()).toMatchObject({ status: 'no_match', pinned: true, reason, buyerId: null });
    });

    it('is recorded again by the job that applies it, and a final failure keeps it', async () => {
      const applied = outcome('pin', 'a1', {
        status: 'no_match',
        matchedBy: null,
        buyerId: null,
        confidence: null,
        reason,
        pinned: true,
        jobId: 'job-reject',
        at: later(3),
      });
      expect(await repos.outcomes.record(applied)).toBe(true);
      expect(await get()).toMatchObject({ status: 'no_match', pinned: true, reason, jobId: 'job-reject' });
      await repos.outcomes.recordError(key, 'HubSpot refused the write', { at: later(4) });
      // What the next job reads: still a person's rejection, with its words.
      expect(await get()).toMatchObject({ status: 'error', pinned: true, reason });
    });

    it('unpin clears it (whether there was one), and automatic outcomes are recorded again', async () => {
      expect(await repos.review.unpin(key)).toBe(true);
      expect((await get())?.pinned).toBe(false);
      expect(await repos.review.unpin(key)).toBe(false);
      expect(await repos.review.unpin({ ...key, accountId: 'nobody' })).toBe(false);
      expect(await repos.review.unpin({ ...key, tenant: 'other-tenant' })).toBe(false);

      // A job that still applied the rejection when it was cleared does not pin it again.
      const stale = outcome('pin', 'a1', { status: 'no_match', buyerId: null, reason, pinned: true });
      expect(await repos.outcomes.record({ ...stale, at: later(5) })).toBe(false);
      expect((await get())?.pinned).toBe(false);

      expect(await repos.outcomes.record(outcome('pin', 'a1', { at: later(6) }))).toBe(true);
      expect(await get()).toMatchObject({ status: 'enriched', pinned: false, buyerId: 'b-a1' });
    });
  });

  it('outcomesOf returns exactly the accounts asked that have an outcome', async () => {
    for (const id of ['a1', 'a2', 'a3']) await repos.outcomes.record(outcome('of', id));
    await repos.outcomes.record(outcome('of-2', 'a1'));
    await repos.outcomes.record({ ...outcome('of', 'a1'), crm: 'salesforce' });
    const asked = [
      { crm: 'hubspot', tenant: 'of', accountId: 'a1' },
      { crm: 'hubspot', tenant: 'of', accountId: 'a3' },
      { crm: 'salesforce', tenant: 'of', accountId: 'a1' },
      { crm: 'hubspot', tenant: 'of', accountId: 'unknown' },
      { crm: 'hubspot', tenant: 'of-3', accountId: 'a2' },
    ];
    const found = await repos.review.outcomesOf(asked);
    expect(found.map(keyOf).sort()).toEqual(['hubspot/of/a1', 'hubspot/of/a3', 'salesforce/of/a1']);
    expect(found.find((o) => keyOf(o) === 'salesforce/of/a1')?.crm).toBe('salesforce');
    expect(await repos.review.outcomesOf([])).toEqual([]);
    // A bulk approve's selection, in one statement.
    const many = Array.from({ length: 1500 }, (_, i) => ({
      crm: 'hubspot',
      tenant: 'of',
      accountId: `x${i}`,
    }));
    expect((await repos.review.outcomesOf([...many, asked[1] as AccountRef])).map(keyOf)).toEqual([
      'hubspot/of/a3',
    ]);
  });

  describe('duplicates groups', () => {
    // Tenant g1 of HubSpot: a1-a3 on B1, a4-a5 on B2, a6 alone on B3, a7 without a buyer. The same
    // buyers in tenant g2 and in Salesforce's g1. The tests above share no buyer within a tenant, so
    // these are the store's only groups until the marks below add theirs.
    beforeAll(async () => {
      const on: [string, string, string, string | null][] = [
        ['hubspot', 'g1', 'a1', 'B1'],
        ['hubspot', 'g1', 'a2', 'B1'],
        ['hubspot', 'g1', 'a3', 'B1'],
        ['hubspot', 'g1', 'a4', 'B2'],
        ['hubspot', 'g1', 'a5', 'B2'],
        ['hubspot', 'g1', 'a6', 'B3'],
        ['hubspot', 'g1', 'a7', null],
        ['hubspot', 'g2', 'c1', 'B1'],
        ['hubspot', 'g2', 'c2', 'B1'],
        ['hubspot', 'g2', 'c3', 'B2'],
        ['salesforce', 'g1', 's1', 'B1'],
        ['salesforce', 'g1', 's2', 'B1'],
      ];
      for (const [crm, tenant, id, buyerId] of on)
        await repos.outcomes.record({
          ...outcome(tenant, id, { buyerId }),
          crm,
          ...(buyerId ? {} : { status: 'no_match', matchedBy: null }),
        });
    });

    const summary = (gs: { crm: string; tenant: string; buyerId: string; members: AccountRef[] }[]) =>
      gs.map((g) => `${g.crm}/${g.tenant}/${g.buyerId}: ${idsOf(g.members).join(',')}`);

    it('are the accounts of one tenant on one buyer: the same buyer in another tenant or CRM is another group', async () => {
      const { groups, next } = await repos.review.groups({}, { limit: 50 });
      expect(summary(groups)).toEqual([
        'hubspot/g1/B1: a1,a2,a3',
        'hubspot/g1/B2: a4,a5',
        'hubspot/g2/B1: c1,c2',
        'salesforce/g1/B1: s1,s2',
      ]);
      expect(next).toBeNull();
      expect(groups[0]?.members[0]).toMatchObject({ crm: 'hubspot', tenant: 'g1', buyerId: 'B1' });
    });

    it('are scoped by CRM and tenant', async () => {
      expect(summary((await repos.review.groups({ crm: 'salesforce' }, { limit: 50 })).groups)).toEqual([
        'salesforce/g1/B1: s1,s2',
      ]);
      expect(summary((await repos.review.groups({ tenant: 'g1' }, { limit: 50 })).groups)).toEqual([
        'hubspot/g1/B1: a1,a2,a3',
        'hubspot/g1/B2: a4,a5',
        'salesforce/g1/B1: s1,s2',
      ]);
      expect(
        summary((await repos.review.groups({ crm: 'hubspot', tenant: 'g2' }, { limit: 50 })).groups),
      ).toEqual(['hubspot/g2/B1: c1,c2']);
      expect(await repos.review.groups({ crm: 'hubspot', tenant: 'nobody' }, { limit: 50 })).toEqual({
        groups: [],
        next: null,
      });
    });

    it('page by key: every group exactly once across pages, in one stable order', async () => {
      // Buyer ids that sort differently by byte and by locale: paging must follow the database's order.
      const buyers = Array.from(
        { length: 23 },
        (_, i) => [`b-${i}`, `B_${i}`, `b ${i}`, `Z${i}`][i % 4] ?? '',
      );
      for (const [i, b] of buyers.entries())
        for (const n of [1, 2]) await repos.outcomes.record(outcome('paged', `p${i}-${n}`, { buyerId: b }));
      const scope = { crm: 'hubspot', tenant: 'paged' };
      const whole = await repos.review.groups(scope, { limit: 200 });
      expect(whole.groups.map((g) => g.buyerId).sort()).toEqual([...buyers].sort());
      expect(whole.next).toBeNull();

      const seen: string[] = [];
      let after: [string, string, string] | undefined;
      for (let pages = 0; pages < 20; pages++) {
        const page = await repos.review.groups(scope, { limit: 5, after });
        expect(page.groups.length).toBeLessThanOrEqual(5);
        for (const g of page.groups) {
          expect(idsOf(g.members)).toHaveLength(2);
          seen.push(g.buyerId);
        }
        if (!page.next) break;
        expect(page.groups).toHaveLength(5);
        after = page.next;
      }
      expect(seen).toEqual(whole.groups.map((g) => g.buyerId));
      expect(new Set(seen).size).toBe(buyers.length);
      // The same listing twice is the same order.
      expect((await repos.review.groups(scope, { limit: 200 })).groups.map((g) => g.buyerId)).toEqual(seen);
    });

    it('members are the tenant’s accounts on the given buyers, and the account itself', async () => {
      const key = (accountId: string) => ({ crm: 'hubspot', tenant: 'g1', accountId });
      expect(idsOf(await repos.review.members(key('a1'), ['B1'])).sort()).toEqual(['a1', 'a2', 'a3']);
      expect(idsOf(await repos.review.members(key('a6'), ['B1', 'B2'])).sort()).toEqual([
        'a1',
        'a2',
        'a3',
        'a4',
        'a5',
        'a6',
      ]);
      expect(idsOf(await repos.review.members(key('a7'), []))).toEqual(['a7']);
      expect(idsOf(await repos.review.members(key('a7'), ['B9']))).toEqual(['a7']);
      expect(await repos.review.members(key('nobody'), [])).toEqual([]);
      const inG2 = await repos.review.members({ crm: 'hubspot', tenant: 'g2', accountId: 'c3' }, ['B1']);
      expect(idsOf(inG2).sort()).toEqual(['c1', 'c2', 'c3']);
    });

    it('an account re-resolved to another buyer leaves its group; a group of one is no group', async () => {
      await repos.outcomes.record(outcome('g1', 'a5', { buyerId: 'B9', at: later(1) }));
      await repos.outcomes.record(outcome('g1', 'a3', { buyerId: 'B2', at: later(1) }));
      const scope = { crm: 'hubspot', tenant: 'g1' };
      expect(summary((await repos.review.groups(scope, { limit: 50 })).groups)).toEqual([
        'hubspot/g1/B1: a1,a2',
        'hubspot/g1/B2: a3,a4',
      ]);
      // A rejected account has no buyer: it leaves its group at once.
      await repos.review.pin({ ...scope, accountId: 'a2' }, 'Rejected by ann: not a buyer');
      expect(summary((await repos.review.groups(scope, { limit: 50 })).groups)).toEqual([
        'hubspot/g1/B2: a3,a4',
      ]);
    });
  });

  describe('duplicate marks', () => {
    const crm = 'hubspot';
    const tenant = 'dup';
    const key = (accountId: string) => ({ crm, tenant, accountId }) as const;
    /** The CRM as the reconciliation writes it: each account's `duplicate of` field. */
    const crmMarks = new Map<string, string | null>();
    const deps = () => ({
      review: repos.review,
      writeAccount: async (_crm: string, _tenant: string, update: AccountUpdate) => {
        crmMarks.set(
          update.accountId,
          (update.fields[PROVENANCE_FIELDS.duplicateOf] as string | null) ?? null,
        );
        return { accountId: update.accountId, ok: true as const };
      },
    });
    const storeMarks = async (ids: string[]) =>
      Object.fromEntries(
        (await repos.review.outcomesOf(ids.map(key))).map((o) => [o.accountId, o.duplicateOf]),
      );

    /**
     * What the enrich job does (src/enrich-job/account-job.ts): record the outcome (a rejection's, when the
     * account is pinned), then reconcile the old and the new buyer's groups — and, when it first
     * applies a rejection, the groups whose members are marked duplicates of the account.
     */
    async function job(accountId: string, buyerId: string | null, over: Partial<OutcomeRecord> = {}) {
      const before = await repos.outcomes.get(key(accountId));
      const rejected = before?.pinned
        ? {
            status: 'no_match' as const,
            matchedBy: null,
            buyerId: null,
            reason: before.reason ?? '',
            pinned: true,
          }
        : {};
      await repos.outcomes.record(
        outcome(tenant, accountId, { buyerId, at: later(10), ...over, ...rejected }),
      );
      await reconcileDuplicates(deps(), key(accountId), [buyerId, before?.buyerId], {
        formerGroups: Boolean(before?.pinned) && before?.jobId === null,
      });
    }

    it('markDuplicates remembers each mark in the tenant only, and clears a mark given as null', async () => {
      for (const id of ['m1', 'm2', 'm3']) {
        await repos.outcomes.record(outcome(tenant, id, { buyerId: 'M' }));
        await repos.outcomes.record(outcome('dup-other', id, { buyerId: 'M' }));
      }
      await repos.review.markDuplicates(crm, tenant, [
        { accountId: 'm1', duplicateOf: null },
        { accountId: 'm2', duplicateOf: 'm1' },
        { accountId: 'm3', duplicateOf: 'm1' },
        { accountId: 'not-there', duplicateOf: 'm1' },
      ]);
      expect(await storeMarks(['m1', 'm2', 'm3', 'not-there'])).toEqual({ m1: null, m2: 'm1', m3: 'm1' });
      const other = await repos.review.outcomesOf(
        ['m2', 'm3'].map((accountId) => ({ ...key(accountId), tenant: 'dup-other' })),
      );
      expect(other.map((o) => o.duplicateOf)).toEqual([null, null]);
      expect(await repos.review.outcomesOf([{ ...key('m2'), crm: 'salesforce' }])).toEqual([]);

      await repos.review.markDuplicates(crm, tenant, [{ accountId: 'm2', duplicateOf: null }]);
      expect(await storeMarks(['m1', 'm2', 'm3'])).toEqual({ m1: null, m2: null, m3: 'm1' });
      await repos.review.markDuplicates(crm, tenant, []);
    });

    it('markDuplicates marks a group of more than one statement’s worth of accounts', async () => {
      const ids = Array.from({ length: 620 }, (_, i) => `big${i}`);
      for (const id of ids) await repos.outcomes.record(outcome(tenant, id, { buyerId: 'BIG' }));
      await repos.review.markDuplicates(
        crm,
        tenant,
        ids.map((id, i) => ({ accountId: id, duplicateOf: i === 0 ? null : 'big0' })),
      );
      const marks = await storeMarks(ids);
      expect(Object.keys(marks)).toHaveLength(620);
      expect(Object.entries(marks).filter(([, of]) => of !== 'big0')).toEqual([['big0', null]]);
    });

    it('reconciling marks every member but the recommended one, in the CRM and in the store', async () => {
      await job('d1', 'D', { confidence: 0.95 });
      await job('d2', 'D');
      await job('d3', 'D');
      expect(await storeMarks(['d1', 'd2', 'd3'])).toEqual({ d1: null, d2: 'd1', d3: 'd1' });
      expect(Object.fromEntries(crmMarks)).toEqual({ d2: 'd1', d3: 'd1' });
      const [group] = (await repos.review.groups({ crm, tenant: 'dup' }, { limit: 50 })).groups.filter(
        (g) => g.buyerId === 'D',
      );
      expect(group?.members.map((m) => [m.accountId, m.duplicateOf])).toEqual([
        ['d1', null],
        ['d2', 'd1'],
        ['d3', 'd1'],
      ]);
    });

    it('an account that leaves the group loses its mark; a member left alone loses its mark', async () => {
      await job('d3', 'D-other');
      expect(await storeMarks(['d1', 'd2', 'd3'])).toEqual({ d1: null, d2: 'd1', d3: null });
      expect(crmMarks.get('d3')).toBeNull();
      await job('d1', null, { status: 'no_match', matchedBy: null });
      expect(await storeMarks(['d1', 'd2', 'd3'])).toEqual({ d1: null, d2: null, d3: null });
      expect(crmMarks.get('d2')).toBeNull();
    });

    it('rejecting the recommended account gives its group another one, with no stale mark left', async () => {
      await job('e1', 'E', { confidence: 0.95 });
      for (const id of ['e2', 'e3', 'e4']) await job(id, 'E');
      expect(await storeMarks(['e1', 'e2', 'e3', 'e4'])).toEqual({
        e1: null,
        e2: 'e1',
        e3: 'e1',
        e4: 'e1',
      });

      await repos.review.pin(key('e1'), 'Rejected by ann: a private company');
      // Its buyer is gone at once; what it was recommended in is found by the marks pointing at it.
      expect(idsOf(await repos.review.members(key('e1'), [])).sort()).toEqual(['e1']);
      expect(idsOf(await repos.review.members(key('e1'), [], { formerGroups: true })).sort()).toEqual([
        'e1',
        'e2',
        'e3',
        'e4',
      ]);
      await job('e1', 'E');
      expect(await storeMarks(['e1', 'e2', 'e3', 'e4'])).toEqual({
        e1: null,
        e2: null,
        e3: 'e2',
        e4: 'e2',
      });
      expect([crmMarks.get('e2'), crmMarks.get('e3'), crmMarks.get('e4')]).toEqual([null, 'e2', 'e2']);
      expect(await repos.outcomes.get(key('e1'))).toMatchObject({ status: 'no_match', pinned: true });

      // A rejected member that was not the recommended one loses its own mark only.
      await repos.review.pin(key('e4'), 'Rejected by ann: a private company');
      await job('e4', 'E');
      expect(await storeMarks(['e2', 'e3', 'e4'])).toEqual({ e2: null, e3: 'e2', e4: null });
    });
  });
});
