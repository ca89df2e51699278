// A field write is recorded `pending` before its CRM call and settled with the CRM's answer after, so
// no value of ours reaches the CRM without its row; a row left pending (the store went away between the
// call and its record) is settled later against what the CRM holds.
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table field_writes drop constraint if exists field_writes_crm_result_check`.execute(db);
  await sql`alter table field_writes add constraint field_writes_crm_result_check
    check (crm_result in ('ok', 'error', 'not_sent', 'pending'))`.execute(db);
  await sql`create index field_writes_pending on field_writes (crm, tenant, account_id)
    where crm_result = 'pending'`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop index field_writes_pending`.execute(db);
  await sql`alter table field_writes drop constraint field_writes_crm_result_check`.execute(db);
  await sql`alter table field_writes add constraint field_writes_crm_result_check
    check (crm_result in ('ok', 'error', 'not_sent'))`.execute(db);
}
