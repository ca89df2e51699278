// Writing Accounts: one sObject Collections update (PATCH /composite/sobjects, allOrNone false) per
// batch, and a result per update in input order.

import type { AccountUpdate, UpdateResult, WriteFailure } from '../types.ts';
import { mergeUpdates, resultsInInputOrder } from '../update-batch.ts';
import {
  refusedFailure,
  SALESFORCE_COLLECTION_LIMIT,
  type SalesforceCalls,
  type SaveResultLike,
} from './client.ts';
import { SalesforceRequestError } from './errors.ts';
import type { CheckboxFields } from './field-kinds.ts';
import type { ApiNameOf } from './fields.ts';
import { salesforceId18 } from './ids.ts';

/** An Account's one key: its 18-character id (the 15-character one names the same record). */
const recordKey = (accountId: string) => salesforceId18(accountId) ?? accountId;

/** A value that is a record id: a reference, so an INVALID_CROSS_REFERENCE_KEY may be about it. */
const isReference = (value: unknown) => typeof value === 'string' && salesforceId18(value) !== undefined;

export async function updateAccounts(
  calls: SalesforceCalls,
  fieldName: ApiNameOf,
  updates: readonly AccountUpdate[],
  checkboxes: CheckboxFields,
): Promise<UpdateResult[]> {
  const { conn, call, recordFailure } = calls;
  if (updates.length === 0) return [];
  // Salesforce refuses the whole collection when it names one record twice, its 15- and 18-character
  // ids included: updates of one Account merge into one record under its 18-character id first.
  const { merged, slotOf } = mergeUpdates(
    updates.map((u) => ({ ...u, accountId: recordKey(u.accountId) })),
    SALESFORCE_COLLECTION_LIMIT,
  );
  const slotOfInput = (accountId: string) => slotOf(recordKey(accountId));
  const records: Record<string, string | boolean | null>[] = merged.map((u) => ({
    Id: u.accountId,
    ...Object.fromEntries(Object.entries(u.fields).map(([name, value]) => [fieldName(name), value])),
  }));

  let outcomes: (WriteFailure | undefined)[];
  try {
    await clearCheckboxesWithFalse(records, checkboxes);
    // jsforce sends an array as one PATCH /composite/sobjects (API ≥ 42.0), results in request order.
    const results = (await call('composite.sobjects.update', () =>
      conn.sobject('Account').update(records as { Id: string }[], { allOrNone: false }),
    )) as SaveResultLike[];
    outcomes = records.map((record, i) => {
      const result = results[i];
      if (result?.success === true) return undefined;
      if (!result) {
        return {
          status: undefined,
          message: `Salesforce's answer did not report Account ${String(record.Id)}`,
          permanent: false,
        };
      }
      const otherReferences = Object.entries(record).some(([name, v]) => name !== 'Id' && isReference(v));
      return recordFailure(result.errors, `Salesforce Account ${String(record.Id)}`, { otherReferences });
    });
  } catch (err) {
    if (!(err instanceof SalesforceRequestError)) throw err;
    const failure = refusedFailure(err);
    outcomes = records.map(() => failure);
  }
  return resultsInInputOrder(updates, slotOfInput, outcomes);
}

/**
 * null clears a field (JSON null in a collection update), but a Checkbox takes no null: Salesforce
 * refuses the record (INVALID_TYPE_ON_FIELD_IN_RECORD). Its empty state is false (what it reads before
 * anything was written, and what describe gives as its default), so a clear of one writes false.
 */
async function clearCheckboxesWithFalse(
  records: Record<string, string | boolean | null>[],
  checkboxes: CheckboxFields,
): Promise<void> {
  const cleared = [
    ...new Set(records.flatMap((r) => Object.keys(r).filter((k) => k !== 'Id' && r[k] === null))),
  ];
  const boxes = await checkboxes.among(cleared);
  if (boxes.size === 0) return;
  for (const record of records) for (const name of boxes) if (record[name] === null) record[name] = false;
}
