// What every connector's batch read by ids shares: the batch size check (the caller splits, as for every
// other batch), and each id once, in input order.

/** The distinct ids, first-seen order; more than `limit` throw a RangeError and read nothing. */
export function batchIds(accountIds: readonly string[], limit: number, what = 'getAccounts'): string[] {
  if (accountIds.length > limit)
    throw new RangeError(`${what} takes at most ${limit} ids, got ${accountIds.length}`);
  return [...new Set(accountIds)];
}
