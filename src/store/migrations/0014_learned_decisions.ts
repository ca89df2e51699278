// The review queue learns from a person's decisions (issue 46, item 7): a confirm says "this name form
// in this state is that buyer" for the tenant, a reject that the buyer is never the automatic match
// for it. Rows, not a cache, so they show in the account's history and an undo can take them back.
// Frozen once released.
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`create table learned_decisions (
    id bigserial primary key,
    crm text not null,
    tenant text not null,
    name_form text not null,
    state text not null default '',
    buyer_id text not null,
    buyer_name text,
    account_name text,
    verdict text not null check (verdict in ('confirm', 'reject')),
    decision_id bigint references decisions (id),
    account_id text not null,
    run_id text,
    created_at timestamptz not null default now(),
    undone_at timestamptz
  )`.execute(db);
  // One live rule per form, buyer and verdict: a second confirm of the same thing adds nothing.
  await sql`create unique index learned_decisions_live on learned_decisions
    (crm, tenant, name_form, state, buyer_id, verdict) where undone_at is null`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop table if exists learned_decisions`.execute(db);
}
