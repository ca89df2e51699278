// Reading Accounts: one by id (sObject retrieve), a batch by ids (SOQL `Id IN (…)`, ≤ 200: an undo checks
// what the CRM holds) and pages for backfill (SOQL keyset paging), each as an AccountSnapshot with the
// requested fields under our names.

import { batchIds } from '../read-batch.ts';
import { AccountNotFoundError, type AccountPage, type AccountSnapshot } from '../types.ts';
import { RECORD_ID, SALESFORCE_COLLECTION_LIMIT, type SalesforceCalls } from './client.ts';
import { SalesforceRequestError } from './errors.ts';
import type { ApiNameOf } from './fields.ts';

/** Accounts per backfill page: one SOQL call (Salesforce returns up to 2,000 rows per batch). */
const LIST_PAGE_LIMIT = 2000;
const STANDARD_FIELDS = ['Name', 'BillingState', 'BillingCity', 'Website'] as const;
const NOT_FOUND_CODES = new Set(['NOT_FOUND', 'MALFORMED_ID', 'ENTITY_IS_DELETED']);

function asText(value: unknown): string | null {
  if (value === null || value === undefined || value === '') return null;
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return JSON.stringify(value);
}

function toSnapshot(
  id: string,
  record: Record<string, unknown>,
  apiNames: Map<string, string>,
): AccountSnapshot {
  // Salesforce answers field names in their defined spelling; ours may differ in case.
  const byLower = new Map(Object.entries(record).map(([k, v]) => [k.toLowerCase(), v]));
  const value = (apiName: string) => asText(byLower.get(apiName.toLowerCase()));
  const fields: Record<string, string | null> = {};
  for (const [name, apiName] of apiNames) fields[name] = value(apiName);
  return {
    id,
    name: value('Name'),
    state: value('BillingState'),
    city: value('BillingCity'),
    website: value('Website'),
    fields,
  };
}

export async function getAccount(
  calls: SalesforceCalls,
  fieldName: ApiNameOf,
  accountId: string,
  fieldNames: readonly string[],
): Promise<AccountSnapshot> {
  const { conn, call } = calls;
  if (!RECORD_ID.test(accountId)) {
    throw new AccountNotFoundError(
      accountId,
      `Salesforce Account ${JSON.stringify(accountId)} is no record id`,
    );
  }
  const apiNames = new Map(fieldNames.map((name) => [name, fieldName(name)]));
  const fields = [...new Set<string>([...STANDARD_FIELDS, ...apiNames.values()])];
  let record: Record<string, unknown>;
  try {
    record = (await call('sobject.Account.retrieve', () =>
      conn.sobject('Account').retrieve(accountId, { fields }),
    )) as Record<string, unknown>;
  } catch (err) {
    if (err instanceof SalesforceRequestError && NOT_FOUND_CODES.has(err.errorCode)) {
      throw new AccountNotFoundError(
        accountId,
        `Salesforce Account ${accountId} not found (${err.errorCode})`,
      );
    }
    throw err;
  }
  return toSnapshot(accountId, record, apiNames);
}

/** Keyset pages (`Id > after ORDER BY Id`): a cursor that stays valid, unlike a query locator. */
export async function listAccounts(
  calls: SalesforceCalls,
  fieldName: ApiNameOf,
  fieldNames: readonly string[],
  page: { after?: string | null; limit?: number } = {},
): Promise<AccountPage> {
  const { conn, call } = calls;
  const after = page.after ?? null;
  if (after !== null && !RECORD_ID.test(after))
    throw new Error(`listAccounts: ${JSON.stringify(after)} is no record id`);
  const limit = Math.min(Math.max(page.limit ?? LIST_PAGE_LIMIT, 1), LIST_PAGE_LIMIT);
  const apiNames = new Map(fieldNames.map((name) => [name, fieldName(name)]));
  const fields = [...new Set<string>(['Id', ...STANDARD_FIELDS, ...apiNames.values()])];
  const where = after === null ? '' : ` WHERE Id > '${after}'`;
  const soql = `SELECT ${fields.join(', ')} FROM Account${where} ORDER BY Id LIMIT ${limit}`;
  const result = await call('query.Account', () =>
    conn.query<Record<string, unknown>>(soql, { autoFetch: false }),
  );
  const accounts = result.records.map((r) => toSnapshot(String(r.Id), r, apiNames));
  const last = accounts.at(-1);
  return { accounts, next: accounts.length === limit && last ? last.id : null };
}

/**
 * One SOQL query for up to 200 Accounts by id: those that exist, in input order, each under the id it
 * was asked by (Salesforce answers the 18-character form; a 15-character id is the same record). A
 * deleted Account is not in a query's answer: it is left out, as an unknown id is.
 */
export async function getAccounts(
  calls: SalesforceCalls,
  fieldName: ApiNameOf,
  accountIds: readonly string[],
  fieldNames: readonly string[],
): Promise<AccountSnapshot[]> {
  // Only well-formed ids go into the query: nothing else can be smuggled into its text.
  const ids = batchIds(accountIds, SALESFORCE_COLLECTION_LIMIT).filter((id) => RECORD_ID.test(id));
  if (!ids.length) return [];
  const { conn, call } = calls;
  const apiNames = new Map(fieldNames.map((name) => [name, fieldName(name)]));
  const fields = [...new Set<string>(['Id', ...STANDARD_FIELDS, ...apiNames.values()])];
  const list = ids.map((id) => `'${id}'`).join(', ');
  const soql = `SELECT ${fields.join(', ')} FROM Account WHERE Id IN (${list})`;
  const result = await call('query.Account', () =>
    conn.query<Record<string, unknown>>(soql, { autoFetch: false }),
  );
  // The 15-character form is case-sensitive and names the record whichever length was asked.
  const byShortId = new Map(result.records.map((r) => [String(r.Id).slice(0, 15), r]));
  return ids.flatMap((id) => {
    const record = byShortId.get(id.slice(0, 15));
    return record ? [toSnapshot(id, record, apiNames)] : [];
  });
}
