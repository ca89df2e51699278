// The review page's counts come from counters that triggers keep (migration 0004). Whatever writes the
// outcomes — one upsert, many at once, a multi-row insert, a delete — and whatever was there before the
// migration, they must equal counting the table itself. On PGlite and on a real PostgreSQL.
import { type Kysely, Migrator, sql } from 'kysely';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type DatabaseHandle, openDatabase } from '../../src/store/db.ts';
import { MIGRATIONS } from '../../src/store/migrations/index.ts';
import type { OutcomeRecord } from '../../src/store/outcome-rows.ts';
import { type CohortCounts, Outcomes } from '../../src/store/outcomes.ts';
import type { Database } from '../../src/store/schema.ts';
import { describeEachDatabase } from '../helpers/databases.ts';

const KINDS = ['matched_by_name', 'matched_by_id', 'needs_review', 'no_match', 'error'] as const;

/** Counted from the table, as `counts` did before the counters. */
async function counted(db: Kysely<Database>, tenant?: string): Promise<CohortCounts> {
  const where = tenant === undefined ? sql`true` : sql`tenant = ${tenant}`;
  const rows = await sql<{ key: string; n: string }>`
    select cohort as key, count(*) as n from account_outcomes where ${where} group by cohort
    union all
    select 'duplicates', coalesce(sum(n), 0) from (
      select count(*) as n from account_outcomes where buyer_id is not null and ${where}
      group by crm, tenant, buyer_id having count(*) > 1) as g`.execute(db);
  const counts: CohortCounts = {
    matched_by_id: 0,
    matched_by_name: 0,
    needs_review: 0,
    no_match: 0,
    error: 0,
    duplicates: 0,
  };
  for (const r of rows.rows) counts[r.key as keyof CohortCounts] = Number(r.n);
  return counts;
}

/** Account `i` of tenant p1/p2 in a given kind, resolved to one of few buyers (so groups form and break). */
function outcome(i: number, kind: (typeof KINDS)[number], buyer: number): OutcomeRecord {
  const matched = kind === 'matched_by_name' || kind === 'matched_by_id';
  return {
    crm: 'hubspot',
    tenant: i % 2 ? 'p1' : 'p2',
    accountId: `a${i}`,
    accountName: `Account ${i}`,
    state: 'TX',
    status: matched ? 'enriched' : kind === 'error' ? 'no_match' : kind,
    matchedBy: kind === 'matched_by_id' ? 'id' : kind === 'matched_by_name' ? 'name' : null,
    buyerId: matched ? `b${buyer}` : null,
    buyerName: matched ? `Buyer ${buyer}` : null,
    buyerType: 'City',
    confidence: matched ? 0.9 : 0.5,
    reason: 'test',
    candidates: [],
    detail: {
      source: 'search',
      fields: [],
      written: {},
      notes: { created: [], alreadyPresent: 0, overCap: 0 },
    },
  };
}

describeEachDatabase('outcome counts', (variant) => {
  let handle: DatabaseHandle;
  let migrator: Migrator;
  let outcomes: Outcomes;
  let drop: () => Promise<void>;
  // A small deterministic stream of choices.
  let seed = 12345;
  const next = (n: number) => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return seed % n;
  };

  beforeAll(async () => {
    const fresh = await variant.fresh();
    drop = fresh.drop;
    handle = openDatabase(fresh.settings);
    const schema = 'schema' in fresh.settings ? fresh.settings.schema : undefined;
    migrator = new Migrator({
      db: handle.db,
      provider: { getMigrations: async () => MIGRATIONS },
      ...(schema ? { migrationTableSchema: schema } : {}),
    });
    outcomes = new Outcomes(handle.db);
  });
  afterAll(async () => {
    await handle?.close();
    await drop?.();
  });

  it('counts the accounts recorded before the migration', async () => {
    expect((await migrator.migrateTo('0003_approvable_index')).error).toBeUndefined();
    for (let i = 0; i < 40; i++) await outcomes.record(outcome(i, KINDS[i % 4] ?? 'no_match', i % 7));
    await outcomes.recordError({ crm: 'hubspot', tenant: 'p1', accountId: 'a1' }, 'boom');
    expect((await migrator.migrateToLatest()).error).toBeUndefined();
    const all = await outcomes.counts();
    expect(all.duplicates).toBeGreaterThan(0);
    expect(all.error).toBe(1);
    expect(all).toEqual(await counted(handle.db));
    expect(await outcomes.counts({ crm: 'hubspot', tenant: 'p2' })).toEqual(await counted(handle.db, 'p2'));
  });

  it('stay exact as accounts move between cohorts and buyers, fail, are inserted many at once and deleted', async () => {
    for (let step = 0; step < 60; step++) {
      const i = next(50);
      const kind = KINDS[next(KINDS.length)] ?? 'no_match';
      if (kind === 'error')
        await outcomes.recordError({ crm: 'hubspot', tenant: i % 2 ? 'p1' : 'p2', accountId: `a${i}` }, 'x');
      else await outcomes.record(outcome(i, kind, next(6)));
      if (step % 20 === 19) {
        expect(await outcomes.counts()).toEqual(await counted(handle.db));
        expect(await outcomes.counts({ tenant: 'p1' })).toEqual(await counted(handle.db, 'p1'));
      }
    }
    // One statement writing many rows, one deleting some, one changing nothing that is counted.
    await sql`insert into account_outcomes (crm, tenant, account_id, status, cohort, buyer_id)
        select 'hubspot', 'p1', 'm' || g, 'enriched', 'matched_by_name', 'b' || (g % 3)
        from generate_series(1, 30) as g`.execute(handle.db);
    expect(await outcomes.counts()).toEqual(await counted(handle.db));
    await sql`delete from account_outcomes where account_id like 'm1%' or account_id = 'a3'`.execute(
      handle.db,
    );
    await sql`update account_outcomes set reason = 'seen'`.execute(handle.db);
    expect(await outcomes.counts()).toEqual(await counted(handle.db));
    expect(await outcomes.counts({ crm: 'hubspot', tenant: 'p1' })).toEqual(await counted(handle.db, 'p1'));
  });

  it('stay exact under concurrent writers moving accounts back and forth', async () => {
    // On PostgreSQL these run on several connections at once; two of them moving accounts in opposite
    // directions take the same counter rows, which must neither deadlock nor lose a change.
    await Promise.all(
      Array.from({ length: 120 }, (_, k) =>
        outcomes.record(outcome(k % 30, k % 2 ? 'matched_by_name' : 'needs_review', k % 4)),
      ),
    );
    expect(await outcomes.counts()).toEqual(await counted(handle.db));
  });

  it('count() of a CRM, tenant and cohort filter (read from the counters) equals counting the table', async () => {
    const table = async (where: ReturnType<typeof sql>) =>
      Number(
        (
          await sql<{ n: string }>`select count(*) as n from account_outcomes where ${where}`.execute(
            handle.db,
          )
        ).rows[0]?.n,
      );
    expect(await outcomes.count({})).toBe(await table(sql`true`));
    expect(await outcomes.count({ cohort: 'needs_review' })).toBe(await table(sql`cohort = 'needs_review'`));
    expect(await outcomes.count({ crm: 'hubspot', tenant: 'p1', cohort: 'matched_by_name', name: ' ' })).toBe(
      await table(sql`tenant = 'p1' and cohort = 'matched_by_name'`),
    );
    expect(await outcomes.count({ tenant: 'p2' })).toBe(await table(sql`tenant = 'p2'`));
    expect(await outcomes.count({ crm: 'salesforce' })).toBe(0);
    // Any other narrowing still counts the rows themselves.
    await sql`update account_outcomes set state = 'NM' where account_id in ('a2', 'a4')`.execute(handle.db);
    expect(await outcomes.count({ tenant: 'p2', state: 'NM' })).toBe(
      await table(sql`tenant = 'p2' and state = 'NM'`),
    );
    expect(await outcomes.count({ name: 'Account 1' })).toBe(
      await table(sql`account_name ilike '%Account 1%'`),
    );
  });
});
