// What an enrichment reads of the CRM, shared by the jobs running at once: each job asks for its own
// account (and, when our records are unsure, its notes' keys), and the jobs of one tenant leave in one
// call per batch (`getAccounts`, `existingNoteKeysOf`) instead of one or two each. Built on the
// BatchChannels shape only, so the same code batches one process's jobs or every worker's.
import {
  AccountNotFoundError,
  type AccountRef,
  type AccountSnapshot,
  type CrmConnector,
  type CrmKind,
} from '../../connectors/types.ts';
import type { BatchChannels } from '../batch/channel.ts';

export interface CrmReads {
  /** The account with these CRM fields (and its ids). Throws AccountNotFoundError when the CRM has none. */
  readAccount(ref: AccountRef, fieldNames: readonly string[]): Promise<AccountSnapshot>;
  /** The dedupe keys of the notes on the account, as the CRM holds them. */
  noteKeysOf(ref: AccountRef): Promise<string[]>;
}

/** Plain JSON both ways: a shared channel sends items and results through Redis. */
interface ReadItem {
  accountId: string;
  fieldNames: string[];
}
type ReadResult = { found: true; account: AccountSnapshot } | { found: false };

export function crmReads(
  channels: BatchChannels,
  connectorFor: (crm: CrmKind, tenant: string) => CrmConnector,
): CrmReads {
  return {
    async readAccount(ref, fieldNames) {
      const { crm, tenant } = ref;
      const channel = channels<ReadItem, ReadResult>(`read:${crm}:${tenant}`, {
        maxBatch: connectorFor(crm, tenant).maxReadBatch,
        send: (items) => readBatch(connectorFor(crm, tenant), items),
      });
      const result = await channel.submit({ accountId: ref.accountId, fieldNames: [...fieldNames] });
      if (!result.found)
        throw new AccountNotFoundError(
          ref.accountId,
          `${crm} account ${ref.accountId} not found in ${tenant}: deleted, or never there`,
        );
      return result.account;
    },
    async noteKeysOf(ref) {
      const { crm, tenant } = ref;
      const channel = channels<string, string[]>(`note-keys:${crm}:${tenant}`, {
        maxBatch: connectorFor(crm, tenant).maxNoteKeyBatch,
        send: async (accountIds) => {
          const keys = await connectorFor(crm, tenant).existingNoteKeysOf([...new Set(accountIds)]);
          return accountIds.map((id) => keys.get(id) ?? []);
        },
      });
      return channel.submit(ref.accountId);
    },
  };
}

/** One read of the union of the fields the items ask for; each item gets its own fields back. */
async function readBatch(connector: CrmConnector, items: ReadItem[]): Promise<ReadResult[]> {
  const ids = [...new Set(items.map((i) => i.accountId))];
  const fields = [...new Set(items.flatMap((i) => i.fieldNames))];
  const found = new Map((await connector.getAccounts(ids, fields)).map((a) => [a.id, a]));
  return items.map((item): ReadResult => {
    const account = found.get(item.accountId);
    if (!account) return { found: false };
    const own = Object.fromEntries(item.fieldNames.map((name) => [name, account.fields[name] ?? null]));
    return { found: true, account: { ...account, fields: own } };
  });
}
