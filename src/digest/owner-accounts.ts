// Who owns what, for the per-owner digest: the matched accounts (the ledgers) by CRM tenant, then per
// tenant the account's owner as the CRM holds it now (a batch read of the accounts: HubSpot
// `hubspot_owner_id`, Salesforce `OwnerId`) and the owners' emails and names (`listOwners`). An account
// without an owner, or owned by someone the CRM does not list as an active user, reaches nobody; nor
// does one owned by the connection's own user (`integration`: the user the sync signs in as).
import type { CrmConnector } from '../../connectors/types.ts';
import type { Ledgers } from '../write/ledgers.ts';

export interface OwnedAccount {
  accountId: string;
  name: string | null;
  /** As the CRM holds it: what tells two accounts of one name apart ("City of Austin (TX)"). */
  state: string | null;
  buyerId: string;
}

export interface TenantAccounts {
  crm: string;
  tenant: string;
  /** Account id → the buyer matched to it. */
  buyers: Map<string, string>;
}

export interface OwnerGroup {
  id: string;
  email: string | null;
  name: string | null;
  accounts: OwnedAccount[];
}

export async function tenantsOfMatched(ledgers: Pick<Ledgers, 'matchedAccounts'>): Promise<TenantAccounts[]> {
  const tenants = new Map<string, TenantAccounts>();
  for await (const page of ledgers.matchedAccounts())
    for (const { account, buyerId } of page) {
      if (!buyerId) continue;
      const key = `${account.crm}|${account.tenant}`;
      let t = tenants.get(key);
      if (!t) {
        t = { crm: account.crm, tenant: account.tenant, buyers: new Map() };
        tenants.set(key, t);
      }
      t.buyers.set(account.accountId, buyerId);
    }
  return [...tenants.values()];
}

/**
 * How a rep's digest names an account: its name, with its state where another of the rep's accounts
 * has the same name (`City of Austin (TX)`, `City of Austin (MN)`), and its id as well where even the
 * state does not tell them apart.
 */
export function shownName(account: OwnedAccount, all: readonly OwnedAccount[]): string {
  const name = account.name ?? account.accountId;
  const key = (a: OwnedAccount) => (a.name ?? a.accountId).trim().toLowerCase();
  const namesakes = all.filter((a) => key(a) === key(account));
  if (namesakes.length < 2) return name;
  const state = account.state?.trim() || 'state unknown';
  const sameState = namesakes.filter((a) => (a.state?.trim() || 'state unknown') === state);
  return sameState.length < 2 ? `${name} (${state})` : `${name} (${state}, ${account.accountId})`;
}

/** The tenant's owners that own at least one matched account, each with those accounts (in id order). */
export async function ownersOfTenant(connector: CrmConnector, tenant: TenantAccounts): Promise<OwnerGroup[]> {
  const reps = (await connector.listOwners()).filter((o) => o.active && !o.integration);
  const active = new Map(reps.map((o) => [o.id, o]));
  const groups = new Map<string, OwnerGroup>();
  const ids = [...tenant.buyers.keys()].sort();
  for (let i = 0; i < ids.length; i += connector.maxReadBatch) {
    for (const account of await connector.getAccounts(ids.slice(i, i + connector.maxReadBatch), [])) {
      const owner = account.ownerId ? active.get(account.ownerId) : undefined;
      const buyerId = tenant.buyers.get(account.id);
      if (!owner || !buyerId) continue;
      let group = groups.get(owner.id);
      if (!group) {
        group = { id: owner.id, email: owner.email, name: owner.name, accounts: [] };
        groups.set(owner.id, group);
      }
      group.accounts.push({ accountId: account.id, name: account.name, state: account.state, buyerId });
    }
  }
  return [...groups.values()];
}
