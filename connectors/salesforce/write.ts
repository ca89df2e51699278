// Writing Accounts: one sObject Collections update (PATCH /composite/sobjects, allOrNone false) per
// batch, and a result per update in input order.

import type { AccountUpdate, UpdateResult, WriteFailure } from '../types.ts';
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
  if (updates.length > SALESFORCE_COLLECTION_LIMIT) {
    throw new RangeError(
      `updateAccounts takes at most ${SALESFORCE_COLLECTION_LIMIT} updates, got ${updates.length}`,
    );
  }
  // One id twice in a collection is refused: merge updates of one account (later wins).
  const records: { Id: string; [field: string]: string | null }[] = [];
  const recordOf = new Map<string, number>();
  for (const update of updates) {
    let index = recordOf.get(update.accountId);
    if (index === undefined) {
      index = records.length;
      recordOf.set(update.accountId, index);
      records.push({ Id: update.accountId });
    }
    const record = records[index];
    if (!record) continue;
    // null clears the field (JSON null in a collection update).
    for (const [name, value] of Object.entries(update.fields)) record[fieldName(name)] = value;
  }

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
  return updates.map((update) => {
    const failure = outcomes[recordOf.get(update.accountId) ?? -1];
    return failure
      ? { accountId: update.accountId, ok: false, error: failure }
      : { accountId: update.accountId, ok: true };
  });
}
