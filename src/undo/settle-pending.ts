// Rows recorded `pending` whose CRM answer never made it to the store (it went away between the call
// and the record): settled against what the CRM holds — ours when the field holds the value the row
// says we sent, else the write did not take. Run before an account's job writes again (a retry finds
// the CRM up to date and writes nothing, so only this puts those values on the record).
import type { CrmConnector } from '../../connectors/types.ts';
import type { Repositories } from '../store/store.ts';
import { sameValue } from './compare.ts';

export async function settlePendingWrites(
  repos: Pick<Repositories, 'writes'>,
  connector: Pick<CrmConnector, 'getAccounts'>,
  account: { crm: string; tenant: string; accountId: string },
): Promise<number> {
  const pending = await repos.writes.pendingOf(account);
  if (!pending.length) return 0;
  const [snapshot] = await connector.getAccounts(
    [account.accountId],
    [...new Set(pending.map((p) => p.field))],
  );
  await repos.writes.settleFieldWrites(
    pending.map((p) =>
      snapshot && sameValue(snapshot.fields[p.field] ?? null, p.wrote)
        ? { id: p.id, result: 'ok' as const, error: null }
        : {
            id: p.id,
            result: 'error' as const,
            error: snapshot ? 'not confirmed: the CRM does not hold the value' : 'the account is gone',
          },
    ),
  );
  return pending.length;
}
