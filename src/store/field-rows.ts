// A batch of field entries as rows of field_writes: one statement whatever the batch's size, used by
// the write history, its pending half and the outcome's statement.
import { type QueryCreator, sql } from 'kysely';
import type { FieldWriteEntry } from '../write/journal.ts';
import { jsonRecordset } from './json-rows.ts';
import type { Database } from './schema.ts';

/** The columns every row of the write history starts with: which run and job wrote to which account. */
export const ORIGIN_TYPES = {
  run_id: 'bigint',
  job_id: 'text',
  trigger: 'text',
  crm: 'text',
  tenant: 'text',
  account_id: 'text',
  buyer_id: 'text',
} as const;

/** An entry's values of ORIGIN_TYPES' columns. */
export function originRow(
  e: Pick<FieldWriteEntry, 'runId' | 'jobId' | 'trigger' | 'crm' | 'tenant' | 'accountId' | 'buyerId'>,
) {
  return {
    run_id: e.runId,
    job_id: e.jobId,
    trigger: e.trigger,
    crm: e.crm,
    tenant: e.tenant,
    account_id: e.accountId,
    buyer_id: e.buyerId,
  };
}

/** The columns of field_writes a batch fills, each with its SQL type. */
const FIELD_TYPES = {
  ...ORIGIN_TYPES,
  field: 'text',
  attribute: 'text',
  kind: 'text',
  policy: 'text',
  old_value: 'text',
  new_value: 'text',
  decision: 'text',
  crm_result: 'text',
  crm_error: 'text',
  at: 'timestamptz',
} as const;
const FIELD_COLUMNS = Object.keys(FIELD_TYPES) as (keyof typeof FIELD_TYPES)[];

/** A batch as a relation of field_writes' columns: one statement whatever the batch's size. */
function fieldColumns(entries: readonly FieldWriteEntry[]) {
  const rows = entries.map((e) => ({
    ...originRow(e),
    field: e.field,
    attribute: e.attribute,
    kind: e.kind,
    policy: e.policy,
    old_value: e.old,
    new_value: e.new,
    decision: e.decision,
    crm_result: e.result,
    crm_error: e.error,
    at: e.at.toISOString(),
  }));
  return sql`select ${sql.raw(FIELD_COLUMNS.join(', '))} from ${jsonRecordset(rows, FIELD_TYPES)}`;
}

/**
 * The insert of a batch of field entries, as a query a caller may also run inside its own statement
 * (the outcome's). A kept value (`not_sent`) that the field's last row already records — same
 * decision, same values — is not recorded again: a person's edit reads once, not once per re-enrichment.
 */
export function insertFieldWrites<DB extends Database>(
  db: QueryCreator<DB>,
  entries: readonly FieldWriteEntry[],
) {
  const rows = fieldColumns(entries);
  return db
    .insertInto('field_writes')
    .columns(FIELD_COLUMNS)
    .expression(
      sql`select v.* from (${rows}) as v
      where v.crm_result <> 'not_sent' or not exists (
        select 1 from (
          select l.decision, l.old_value, l.new_value from field_writes l
          where l.crm = v.crm and l.tenant = v.tenant and l.account_id = v.account_id and l.field = v.field
          order by l.id desc limit 1
        ) as last
        where last.decision = v.decision and last.old_value is not distinct from v.old_value
          and last.new_value is not distinct from v.new_value
      )`,
    );
}
