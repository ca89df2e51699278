// The org's users who can own Accounts: a SOQL query on User (every page, via queryMore). Only active
// users: a deactivated one can own records still but can receive nothing. Account.OwnerId may also
// name a Queue (an id starting 00G), which is no User: such accounts have no owner to tell.
import type { CrmOwner } from '../types.ts';
import type { SalesforceCalls } from './client.ts';
import { id15 } from './ids.ts';

const SOQL = 'SELECT Id, Name, Email, IsActive FROM User WHERE IsActive = true ORDER BY Id';

const text = (v: unknown) => (typeof v === 'string' && v.trim() ? v.trim() : null);

/** `ownUser`: the connection's own user (own-user.ts), marked `integration`: it gets no digest. */
export async function listOwners(
  calls: SalesforceCalls,
  ownUser: () => Promise<string | undefined>,
): Promise<CrmOwner[]> {
  const rows: Record<string, unknown>[] = [];
  await calls.queryAll('query.User', SOQL, (row) => {
    rows.push(row);
  });
  // Asked after the query: the query itself may have refreshed the session that names the user.
  const own = await ownUser();
  return rows.map((row) => ({
    id: String(row.Id),
    email: text(row.Email),
    name: text(row.Name),
    active: row.IsActive === true,
    ...(own !== undefined && id15(String(row.Id)) === id15(own) ? { integration: true } : {}),
  }));
}
