// The console's dashboard charts the signal notes written per week over the last 12 weeks. Counted
// from notes_created that is a scan of every note of those weeks (a 250,000-account tenant writes
// millions of notes), so a statement-level trigger keeps the count per tenant and week (weeks start on
// Monday, UTC) as notes are recorded: reading it is a dozen rows whatever the history's size. Notes an
// undo removes stay counted: the chart says what was written. The notes already recorded are counted
// once here. Frozen once released.
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
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
  await sql`drop trigger if exists notes_by_week_insert on notes_created`.execute(db);
  await sql`drop function if exists notes_by_week_add()`.execute(db);
  await sql`drop table if exists notes_by_week`.execute(db);
}
