// The console's dashboard, cheap whatever the number of accounts and notes (src/store/dashboard.ts):
//
// - Signal notes written per week over 12 weeks: counted from notes_created, a scan of every note of
//   those weeks (a 250,000-account tenant writes millions), so a statement-level trigger keeps the count
//   per tenant and week (Monday, UTC) as notes are recorded. Notes an undo removes stay counted: the
//   chart says what was written.
// - The review backlog's age: counted from the outcomes, a scan of every account waiting (62,000 of
//   250,000 in the review bench's data: 405 ms on PostgreSQL right after a backfill, a sequential scan,
//   bench/dashboard.ts), so the outcome triggers' way (0004) keeps the accounts waiting per tenant and
//   day (UTC) of their outcome: a statement's net change per key, in key order (no deadlock between
//   writers). An account's day moves when its outcome is rewritten, as its updated_at does.
//
// What is there already is counted once here. Frozen once released.
import { type Kysely, sql } from 'kysely';

const waiting = (rows: string, d: number) =>
  `select crm, tenant, (updated_at at time zone 'UTC')::date as day, ${d} as d from ${rows} where cohort = 'needs_review'`;
const REVIEW_CHANGES = {
  INSERT: waiting('new_rows', 1),
  DELETE: waiting('old_rows', -1),
  UPDATE: `${waiting('new_rows', 1)} union all ${waiting('old_rows', -1)}`,
};

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table review_waiting_by_day (
      crm text not null, tenant text not null, day date not null, n bigint not null,
      primary key (crm, tenant, day)
    )`.execute(db);
  await sql`
    insert into review_waiting_by_day (crm, tenant, day, n)
    select crm, tenant, (updated_at at time zone 'UTC')::date, count(*)
    from account_outcomes where cohort = 'needs_review' group by 1, 2, 3`.execute(db);
  const branches = Object.entries(REVIEW_CHANGES).map(
    ([op, rows]) => `
    ${op === 'INSERT' ? 'if' : 'elsif'} tg_op = '${op}' then
      insert into review_waiting_by_day (crm, tenant, day, n)
      select crm, tenant, day, sum(d) from (${rows}) as changed
      group by crm, tenant, day having sum(d) <> 0 order by crm, tenant, day
      on conflict (crm, tenant, day) do update set n = review_waiting_by_day.n + excluded.n;`,
  );
  await sql
    .raw(`
    create function review_waiting_counted() returns trigger language plpgsql as $$
    begin
      ${branches.join('\n')}
      end if;
      return null;
    end $$`)
    .execute(db);
  await sql`
    create trigger review_waiting_insert after insert on account_outcomes
    referencing new table as new_rows for each statement execute function review_waiting_counted()`.execute(
    db,
  );
  await sql`
    create trigger review_waiting_update after update on account_outcomes
    referencing old table as old_rows new table as new_rows
    for each statement execute function review_waiting_counted()`.execute(db);
  await sql`
    create trigger review_waiting_delete after delete on account_outcomes
    referencing old table as old_rows for each statement execute function review_waiting_counted()`.execute(
    db,
  );

  await sql`
    create table notes_by_week (
      crm text not null, tenant text not null, week date not null, n bigint not null,
      primary key (crm, tenant, week)
    )`.execute(db);
  await sql`
    insert into notes_by_week (crm, tenant, week, n)
    select crm, tenant, date_trunc('week', at at time zone 'UTC')::date, count(*)
    from notes_created group by 1, 2, 3`.execute(db);
  // In key order, so two writers take the counter rows' locks in the same order (no deadlock).
  await sql`
    create function notes_by_week_add() returns trigger language plpgsql as $$
    begin
      insert into notes_by_week (crm, tenant, week, n)
      select crm, tenant, date_trunc('week', at at time zone 'UTC')::date, count(*)
      from new_rows group by 1, 2, 3 order by 1, 2, 3
      on conflict (crm, tenant, week) do update set n = notes_by_week.n + excluded.n;
      return null;
    end $$`.execute(db);
  await sql`
    create trigger notes_by_week_insert after insert on notes_created
    referencing new table as new_rows for each statement execute function notes_by_week_add()`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const op of ['insert', 'update', 'delete'])
    await sql.raw(`drop trigger if exists review_waiting_${op} on account_outcomes`).execute(db);
  await sql`drop function if exists review_waiting_counted()`.execute(db);
  await sql`drop table if exists review_waiting_by_day`.execute(db);
  await sql`drop trigger if exists notes_by_week_insert on notes_created`.execute(db);
  await sql`drop function if exists notes_by_week_add()`.execute(db);
  await sql`drop table if exists notes_by_week`.execute(db);
}
