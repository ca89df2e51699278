// The review page's counts (accounts per cohort, and accounts sharing their buyer with another of their
// tenant) kept as they change, so reading them costs a few rows whatever the number of accounts. Counted
// from the table, they were two scans of every account: over 250,000 accounts ~100 ms on PostgreSQL once
// vacuumed, ~500 ms right after a backfill (bench/review.ts).
//
// Statement-level triggers with transition tables: one insert, update or delete of any number of
// outcomes adds its net change per key in one statement per table, in key order — so two writers
// always take the counter rows' locks in the same order and cannot deadlock on them — and a re-run that
// leaves an account where it was writes no counter at all.
import { type Kysely, sql } from 'kysely';

/** The net change of a statement, per key, as `insert … on conflict` adds it. */
function apply(table: string, key: string, rows: string, where = 'true'): string {
  return `
    insert into ${table} (crm, tenant, ${key}, n)
    select crm, tenant, ${key}, sum(d) from (${rows}) as changed
    where ${where}
    group by crm, tenant, ${key}
    having sum(d) <> 0
    order by crm, tenant, ${key}
    on conflict (crm, tenant, ${key}) do update set n = ${table}.n + excluded.n;`;
}

const CHANGES = {
  INSERT: 'select crm, tenant, cohort, buyer_id, 1 as d from new_rows',
  DELETE: 'select crm, tenant, cohort, buyer_id, -1 as d from old_rows',
  UPDATE:
    'select crm, tenant, cohort, buyer_id, 1 as d from new_rows union all select crm, tenant, cohort, buyer_id, -1 from old_rows',
};

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table outcome_counts (
      crm text not null, tenant text not null, cohort text not null, n bigint not null,
      primary key (crm, tenant, cohort)
    )`.execute(db);
  await sql`
    create table buyer_accounts (
      crm text not null, tenant text not null, buyer_id text not null, n bigint not null,
      primary key (crm, tenant, buyer_id)
    )`.execute(db);
  // The duplicates count reads only the buyers with more than one account.
  await sql`create index buyer_accounts_shared on buyer_accounts (crm, tenant) include (n) where n > 1`.execute(
    db,
  );

  const branches = Object.entries(CHANGES).map(
    ([op, rows]) => `
    ${op === 'INSERT' ? 'if' : 'elsif'} tg_op = '${op}' then
      ${apply('outcome_counts', 'cohort', rows)}
      ${apply('buyer_accounts', 'buyer_id', rows, 'buyer_id is not null')}`,
  );
  await sql
    .raw(`
    create function account_outcomes_counted() returns trigger language plpgsql as $$
    begin
      ${branches.join('\n')}
      end if;
      return null;
    end $$`)
    .execute(db);
  await sql`
    create trigger account_outcomes_counted_insert after insert on account_outcomes
    referencing new table as new_rows for each statement execute function account_outcomes_counted()`.execute(
    db,
  );
  await sql`
    create trigger account_outcomes_counted_update after update on account_outcomes
    referencing old table as old_rows new table as new_rows
    for each statement execute function account_outcomes_counted()`.execute(db);
  await sql`
    create trigger account_outcomes_counted_delete after delete on account_outcomes
    referencing old table as old_rows for each statement execute function account_outcomes_counted()`.execute(
    db,
  );

  // The accounts already there (the migration runs in a transaction, with the service stopped).
  await sql`
    insert into outcome_counts (crm, tenant, cohort, n)
    select crm, tenant, cohort, count(*) from account_outcomes group by crm, tenant, cohort`.execute(db);
  await sql`
    insert into buyer_accounts (crm, tenant, buyer_id, n)
    select crm, tenant, buyer_id, count(*) from account_outcomes where buyer_id is not null
    group by crm, tenant, buyer_id`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const op of ['insert', 'update', 'delete'])
    await sql.raw(`drop trigger if exists account_outcomes_counted_${op} on account_outcomes`).execute(db);
  await sql`drop function if exists account_outcomes_counted()`.execute(db);
  await db.schema.dropTable('buyer_accounts').ifExists().execute();
  await db.schema.dropTable('outcome_counts').ifExists().execute();
}
