// What every connector's batch update shares: CRMs refuse a batch that names one record twice, so
// updates of one account merge (later values win) into one record, an empty value becomes null (a
// clear), and each update gets the result of its merged record back, in input order.
import type { AccountUpdate, UpdateResult, WriteFailure } from './types.ts';

/** The updates merged per account (first-seen order), and the merged record each update went into. */
export function mergeUpdates(
  updates: readonly AccountUpdate[],
  limit: number,
): { merged: AccountUpdate[]; slotOf: (accountId: string) => number } {
  if (updates.length > limit)
    throw new RangeError(`updateAccounts takes at most ${limit} updates, got ${updates.length}`);
  const merged: AccountUpdate[] = [];
  const slots = new Map<string, number>();
  for (const update of updates) {
    let slot = slots.get(update.accountId);
    if (slot === undefined) {
      slot = merged.length;
      slots.set(update.accountId, slot);
      merged.push({ accountId: update.accountId, fields: {} });
    }
    const fields = merged[slot]?.fields ?? {};
    // "" and null both clear: each CRM then writes its own "empty" (HubSpot "", Salesforce null).
    for (const [name, value] of Object.entries(update.fields)) fields[name] = value === '' ? null : value;
  }
  return { merged, slotOf: (accountId) => slots.get(accountId) ?? -1 };
}

/** Each update's result from its merged record's outcome (undefined = written). */
export function resultsInInputOrder(
  updates: readonly AccountUpdate[],
  slotOf: (accountId: string) => number,
  outcomes: readonly (WriteFailure | undefined)[],
): UpdateResult[] {
  return updates.map((update) => {
    const failure = outcomes[slotOf(update.accountId)];
    return failure
      ? { accountId: update.accountId, ok: false, error: failure }
      : { accountId: update.accountId, ok: true };
  });
}
