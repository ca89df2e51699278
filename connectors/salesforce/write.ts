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
import type { ApiNameOf } from './fields.ts';

export async function updateAccounts(
  calls: SalesforceCalls,
  fieldName: ApiNameOf,
  updates: readonly AccountUpdate[],
): Promise<UpdateResult[]> {
  const { conn, call, recordFailure } = calls;
  if (updates.length === 0) return [];
  // One id twice in a collection is refused; null clears the field (JSON null in a collection update).
  const { merged, slotOf } = mergeUpdates(updates, SALESFORCE_COLLECTION_LIMIT);
  const records = merged.map((u) => ({
    Id: u.accountId,
    ...Object.fromEntries(Object.entries(u.fields).map(([name, value]) => [fieldName(name), value])),
  }));

  let outcomes: (WriteFailure | undefined)[];
  try {
    // jsforce sends an array as one PATCH /composite/sobjects (API ≥ 42.0), results in request order.
    const results = (await call('composite.sobjects.update', () =>
      conn.sobject('Account').update(records, { allOrNone: false }),
    )) as SaveResultLike[];
    outcomes = records.map((record, i) => {
      const result = results[i];
      if (result?.success === true) return undefined;
      if (!result) {
        return {
          status: undefined,
          message: `Salesforce's answer did not report Account ${record.Id}`,
          permanent: false,
        };
      }
      return recordFailure(result.errors, `Salesforce Account ${record.Id}`);
    });
  } catch (err) {
    if (!(err instanceof SalesforceRequestError)) throw err;
    const failure = refusedFailure(err);
    outcomes = records.map(() => failure);
  }
  return resultsInInputOrder(updates, slotOf, outcomes);
}
