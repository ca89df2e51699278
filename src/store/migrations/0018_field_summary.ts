// The mapping page's "last written" per CRM field (src/store/field-summary.ts): for each CRM, tenant
// and field, when we last wrote a value of ours there and how many accounts hold ours now.
//
// A summary row per (crm, tenant, field) kept by statement-level triggers on field_writes, in the
// write's own transaction like 0017's counters, rather than an index: "when" alone is one probe of an
// index on (crm, tenant, field, id desc), but "how many hold ours" is the last decisive row of every
// account's field — 250,000 accounts × ~10 fields read per page, seconds, not the 300 ms a first render
// may take. The triggers read the few rows a statement touches: each (account, field) in it is probed
// on field_writes_account_field (0006) for the row deciding it before and after the statement.
//
// An account's field holds ours when its last decisive row is an `ok` write of a value. Decisive: what
// the CRM accepted (`ok`: our write, our clear, an undo's value before), and a value a person put
// there since (`not_sent` blocked-edited-by-person, undo-kept-edit). Refused (`error`) and pending rows
// change nothing in the CRM; a fill-empty keep (blocked-not-empty) says only that the field is not
// empty. An undo leaves "last written" as it was (the write happened) and lowers the count. A prune
// that deletes an account's deciding row lowers the count (the history no longer says it is ours), so
// a recount from the rows left always agrees. Each statement reads the rows before it as its snapshot
// shows them: two transactions writing the same account's field at once could both count it, which the
// service never does (one writer per account at a time: src/signals/account-lock.ts). Summary rows are
// written in key order, so two writers take their locks in the same order (no deadlock). What is
// there already is counted once here. Frozen once released.
import { type Kysely, sql } from 'kysely';

const DECISIVE = (r: string) =>
  `${r}.kind = 'mapped' and (${r}.crm_result = 'ok' or (${r}.crm_result = 'not_sent'
    and ${r}.decision in ('blocked-edited-by-person', 'undo-kept-edit')))`;
const HOLDS = (r: string) =>
  `(${r}.crm_result = 'ok' and ${r}.decision = 'write' and ${r}.new_value is not null)`;
const OURS_WRITTEN = (r: string) =>
  `${r}.kind = 'mapped' and ${r}.crm_result = 'ok' and ${r}.decision in ('write', 'clear')`;

/**
 * One statement's change to the summary. `changed`: the rows it added or rewrote (as they are now);
 * `gone`: the rows as they were before it (rewritten or deleted). Per (account, field) it touched: the
 * state before is its last decisive row among the table's other rows and the `gone` ones, after is the
 * table's last decisive row. The statement's own rows are told apart by an array per key (a batch
 * writes a field of an account once or twice), not by a lookup in the transition table per row read.
 */
function apply(changed: string, gone: string): string {
  const last = (rest: boolean) => `lateral (select f.id, ${HOLDS('f')} as holds from field_writes f
        where f.crm = k.crm and f.tenant = k.tenant and f.account_id = k.account_id and f.field = k.field
          and ${DECISIVE('f')}${rest ? ' and f.id <> all(k.ids)' : ''}
        order by f.id desc limit 1)`;
  const rows = (from: string, side: string) => `select r.crm, r.tenant, r.account_id, r.field, r.id,
          '${side}' as side, ${DECISIVE('r')} as decisive, ${HOLDS('r')} as holds
        from ${from} r where r.kind = 'mapped'`;
  return `
      with touched as (${rows(changed, 'changed')} union all ${rows(gone, 'gone')}
      ), keys as (
        select crm, tenant, account_id, field,
          coalesce(array_agg(id) filter (where side = 'changed'), '{}') as ids,
          max(id) filter (where side = 'gone' and decisive) as gone_id,
          (array_agg(holds order by id desc) filter (where side = 'gone' and decisive))[1] as gone_holds
        from touched group by 1, 2, 3, 4
      ), states as (
        select k.crm, k.tenant, k.field,
          case when k.gone_id > coalesce(rest.id, 0) then k.gone_holds else coalesce(rest.holds, false) end
            as before,
          coalesce(cur.holds, false) as after
        from keys k left join ${last(true)} as rest on true left join ${last(false)} as cur on true
      ), deltas as (
        select crm, tenant, field, sum(after::int - before::int) as d, null::timestamptz as at
        from states group by 1, 2, 3
        union all
        select crm, tenant, field, 0, max(at) from ${changed} c where ${OURS_WRITTEN('c')} group by 1, 2, 3
      )
      insert into field_summary (crm, tenant, field, last_written_at, holding)
      select crm, tenant, field, max(at), sum(d) from deltas group by 1, 2, 3
      having sum(d) <> 0 or max(at) is not null order by 1, 2, 3
      on conflict (crm, tenant, field) do update set
        holding = field_summary.holding + excluded.holding,
        last_written_at = greatest(field_summary.last_written_at, excluded.last_written_at);`;
}

const NONE = '(select * from field_writes where false)';
const BRANCHES = {
  INSERT: apply('new_rows', NONE),
  UPDATE: apply('new_rows', 'old_rows'),
  DELETE: apply(NONE, 'old_rows'),
};

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table field_summary (
      crm text not null, tenant text not null, field text not null,
      last_written_at timestamptz, holding bigint not null default 0,
      primary key (crm, tenant, field)
    )`.execute(db);
  await sql
    .raw(`
    insert into field_summary (crm, tenant, field, last_written_at, holding)
    select crm, tenant, field, max(at) filter (where ${OURS_WRITTEN('w')}), 0
    from field_writes w where kind = 'mapped' group by 1, 2, 3`)
    .execute(db);
  await sql
    .raw(`
    update field_summary s set holding = n.n from (
      select crm, tenant, field, count(*) filter (where holds) as n from (
        select distinct on (crm, tenant, account_id, field) crm, tenant, field, ${HOLDS('f')} as holds
        from field_writes f where ${DECISIVE('f')}
        order by crm, tenant, account_id, field, id desc
      ) as last group by 1, 2, 3
    ) as n where s.crm = n.crm and s.tenant = n.tenant and s.field = n.field`)
    .execute(db);
  // Pending rows (recorded before the CRM call) decide nothing: their insert is skipped at once. Each
  // branch names only its own transition tables (a query naming another's fails to plan).
  const skip = `if not exists (select 1 from new_rows where crm_result <> 'pending') then return null; end if;`;
  const branches = Object.entries(BRANCHES).map(
    ([op, body]) =>
      `${op === 'INSERT' ? 'if' : 'elsif'} tg_op = '${op}' then ${op === 'INSERT' ? skip : ''} ${body}`,
  );
  await sql
    .raw(`
    create function field_summary_kept() returns trigger language plpgsql as $$
    begin
      ${branches.join('\n      ')}
      end if;
      return null;
    end $$`)
    .execute(db);
  await sql`
    create trigger field_summary_insert after insert on field_writes
    referencing new table as new_rows for each statement execute function field_summary_kept()`.execute(db);
  await sql`
    create trigger field_summary_update after update on field_writes
    referencing old table as old_rows new table as new_rows
    for each statement execute function field_summary_kept()`.execute(db);
  await sql`
    create trigger field_summary_delete after delete on field_writes
    referencing old table as old_rows for each statement execute function field_summary_kept()`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const op of ['insert', 'update', 'delete'])
    await sql.raw(`drop trigger if exists field_summary_${op} on field_writes`).execute(db);
  await sql`drop function if exists field_summary_kept()`.execute(db);
  await sql`drop table if exists field_summary`.execute(db);
}
