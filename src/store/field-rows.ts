// A batch of field entries as rows of field_writes: one statement whatever the batch's size, used by
// the write history, its pending half and the outcome's statement.
import { type QueryCreator, sql } from 'kysely';
import type { FieldWriteEntry } from '../write/journal.ts';
import type { Database } from './schema.ts';

/** The columns of field_writes a batch fills, in the order of fieldColumns' arrays. */
const FIELD_COLUMNS = [
  'run_id',
  'job_id',
  'trigger',
  'crm',
  'tenant',
  'account_id',
  'buyer_id',
  'field',
  'attribute',
  'kind',
  'policy',
  'old_value',
  'new_value',
  'decision',
  'crm_result',
  'crm_error',
  'at',
] as const;

/** The unnest arrays of a batch, one per column: one statement whatever the batch's size. */
function fieldColumns(entries: readonly FieldWriteEntry[]) {
  const col = <T>(pick: (e: FieldWriteEntry) => T) => entries.map(pick);
  return sql`select * from unnest(
    ${col((e) => e.runId)}::bigint[], ${col((e) => e.jobId)}::text[], ${col((e) => e.trigger)}::text[],
    ${col((e) => e.crm)}::text[], ${col((e) => e.tenant)}::text[], ${col((e) => e.accountId)}::text[],
    ${col((e) => e.buyerId)}::text[], ${col((e) => e.field)}::text[], ${col((e) => e.attribute)}::text[],
    ${col((e) => e.kind)}::text[], ${col((e) => e.policy)}::text[], ${col((e) => e.old)}::text[],
    ${col((e) => e.new)}::text[], ${col((e) => e.decision)}::text[], ${col((e) => e.result)}::text[],
    ${col((e) => e.error)}::text[], ${col((e) => e.at.toISOString())}::timestamptz[]
  ) as v(${sql.raw(FIELD_COLUMNS.join(', '))})`;
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
