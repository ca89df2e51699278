// Reading Accounts: one by id (sObject retrieve), a batch by ids (SOQL `Id IN (…)`, ≤ 200: jobs share it,
// an undo checks what the CRM holds) and pages for backfill (SOQL keyset paging), each as an
// AccountSnapshot with the requested fields under our names and the account's ids.

import { AT_ONCE, retrying } from '../../src/shared/retry.ts';
import { readIds } from '../account-ids.ts';
import { batchIds } from '../read-batch.ts';
import {
  type AccountIdField,
  AccountNotFoundError,
  type AccountPage,
  type AccountSnapshot,
} from '../types.ts';
import { isRecordId, SALESFORCE_COLLECTION_LIMIT, type SalesforceCalls } from './client.ts';
import { SalesforceRequestError } from './errors.ts';
import type { ApiNameOf } from './fields.ts';

/** Accounts per backfill page: one SOQL call (Salesforce returns up to 2,000 rows per batch). */
const LIST_PAGE_LIMIT = 2000;
const STANDARD_FIELDS = [
  'Name',
  'BillingState',
  'BillingCity',
  'BillingPostalCode',
  'BillingStreet',
  'Website',
  'OwnerId',
] as const;
/**
 * A retrieve by id that answers one of these names no Account: the id is no record id (MALFORMED_ID),
 * or the record is gone (errors.ts, isRecordGone: a retrieve's error is about that record alone).
 */
const NOT_FOUND_CODES = new Set([
  'NOT_FOUND',
  'MALFORMED_ID',
  'ENTITY_IS_DELETED',
  'INVALID_CROSS_REFERENCE_KEY',
]);

/** Salesforce answers a DateTime as 2024-05-01T11:00:00.000+0000; we write (and compare) ISO 8601 …Z. */
const SF_DATETIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}\+0000$/;

function asText(value: unknown): string | null {
  if (value === null || value === undefined || value === '') return null;
  if (typeof value === 'string') return SF_DATETIME.test(value) ? `${value.slice(0, -5)}Z` : value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return JSON.stringify(value);
}

/** How long an id field the org lacked is left out before it is asked for again (setup may have run). */
const RECHECK_MS = 10 * 60_000;

/**
 * The id fields an org is asked for. Salesforce refuses a read that names a field the org lacks
 * (INVALID_FIELD), and ours exist only once `setup` made them: an id field the org lacks is left out of
 * this connector's reads for a while — with it all of ours, which `setup` makes together, so one refused
 * call — and an org that has not run setup since upgrading still enriches, by name.
 */
export class IdFieldReads {
  readonly #fields: readonly AccountIdField[];
  readonly #now: () => number;
  /** Lower-case field name → when the org was found to lack it. */
  readonly #missing = new Map<string, number>();

  constructor(fields: readonly AccountIdField[], now: () => number = Date.now) {
    this.#fields = fields;
    this.#now = now;
  }

  /** Runs `read` with the id fields not known to be missing, again without one Salesforce refuses. */
  async run<T>(read: (fields: readonly AccountIdField[]) => Promise<T>): Promise<T> {
    let present: readonly AccountIdField[] = [];
    let at = 0;
    return retrying(
      () => {
        at = this.#now();
        present = this.#fields.filter((f) => {
          const since = this.#missing.get(f.name.toLowerCase());
          return since === undefined || at - since >= RECHECK_MS;
        });
        return read(present);
      },
      {
        // Each refusal drops a field, so the tries end with the fields; nothing is waited for.
        tries: Number.POSITIVE_INFINITY,
        backoff: AT_ONCE,
        classify: (err) => {
          const lacking = missingField(err, present);
          if (!lacking) return { permanent: true };
          const gone = lacking.ours ? present.filter((f) => f.ours) : [lacking];
          for (const f of gone) this.#missing.set(f.name.toLowerCase(), at);
          return { permanent: false };
        },
      },
    );
  }
}

/** The id field an INVALID_FIELD error names ("No such column 'X' on sobject of type Account"). */
function missingField(err: unknown, fields: readonly AccountIdField[]): AccountIdField | undefined {
  if (!(err instanceof SalesforceRequestError) || err.errorCode !== 'INVALID_FIELD') return undefined;
  const named = new Set(err.fields.map((f) => f.toLowerCase()));
  const quoted = /No such column '([^']+)'/i.exec(err.message)?.[1];
  if (quoted) named.add(quoted.toLowerCase());
  return fields.find((f) => named.has(f.name.toLowerCase()));
}

function toSnapshot(
  id: string,
  record: Record<string, unknown>,
  apiNames: Map<string, string>,
  idFields: readonly AccountIdField[],
): AccountSnapshot {
  // Salesforce answers field names in their defined spelling; ours may differ in case.
  const byLower = new Map(Object.entries(record).map(([k, v]) => [k.toLowerCase(), v]));
  const value = (apiName: string) => asText(byLower.get(apiName.toLowerCase()));
  const fields: Record<string, string | null> = {};
  for (const [name, apiName] of apiNames) fields[name] = value(apiName);
  const ids = readIds(idFields, value);
  const ownerId = value('OwnerId');
  return {
    id,
    name: value('Name'),
    state: value('BillingState'),
    city: value('BillingCity'),
    zip: value('BillingPostalCode'),
    street: value('BillingStreet'),
    website: value('Website'),
    ...(value('OwnerId') ? { ownerId: value('OwnerId') as string } : {}),
    fields,
    ...(ids ? { ids } : {}),
    ...(ownerId ? { ownerId } : {}),
  };
}

export async function getAccount(
  calls: SalesforceCalls,
  fieldName: ApiNameOf,
  accountId: string,
  fieldNames: readonly string[],
  idReads: IdFieldReads = new IdFieldReads([]),
): Promise<AccountSnapshot> {
  const { conn, call } = calls;
  if (!isRecordId(accountId)) {
    throw new AccountNotFoundError(
      accountId,
      `Salesforce Account ${JSON.stringify(accountId)} is no record id`,
    );
  }
  const apiNames = new Map(fieldNames.map((name) => [name, fieldName(name)]));
  return idReads.run(async (idFields) => {
    const fields = [
      ...new Set<string>([...STANDARD_FIELDS, ...apiNames.values(), ...idFields.map((f) => f.name)]),
    ];
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
    return toSnapshot(accountId, record, apiNames, idFields);
  });
}

/** Keyset pages (`Id > after ORDER BY Id`): a cursor that stays valid, unlike a query locator. */
export async function listAccounts(
  calls: SalesforceCalls,
  fieldName: ApiNameOf,
  fieldNames: readonly string[],
  page: { after?: string | null; limit?: number } = {},
  idReads: IdFieldReads = new IdFieldReads([]),
): Promise<AccountPage> {
  const { conn, call } = calls;
  const after = page.after ?? null;
  if (after !== null && !isRecordId(after))
    throw new Error(`listAccounts: ${JSON.stringify(after)} is no record id`);
  const limit = Math.min(Math.max(page.limit ?? LIST_PAGE_LIMIT, 1), LIST_PAGE_LIMIT);
  const apiNames = new Map(fieldNames.map((name) => [name, fieldName(name)]));
  const where = after === null ? '' : ` WHERE Id > '${after}'`;
  return idReads.run(async (idFields) => {
    const fields = [
      ...new Set<string>(['Id', ...STANDARD_FIELDS, ...apiNames.values(), ...idFields.map((f) => f.name)]),
    ];
    const soql = `SELECT ${fields.join(', ')} FROM Account${where} ORDER BY Id LIMIT ${limit}`;
    const result = await call('query.Account', () =>
      conn.query<Record<string, unknown>>(soql, { autoFetch: false }),
    );
    const accounts = result.records.map((r) => toSnapshot(String(r.Id), r, apiNames, idFields));
    const last = accounts.at(-1);
    return { accounts, next: accounts.length === limit && last ? last.id : null };
  });
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
  idReads: IdFieldReads = new IdFieldReads([]),
): Promise<AccountSnapshot[]> {
  // Only well-formed ids go into the query: nothing else can be smuggled into its text.
  const ids = batchIds(accountIds, SALESFORCE_COLLECTION_LIMIT).filter((id) => isRecordId(id));
  if (!ids.length) return [];
  const { conn, call } = calls;
  const apiNames = new Map(fieldNames.map((name) => [name, fieldName(name)]));
  const list = ids.map((id) => `'${id}'`).join(', ');
  return idReads.run(async (idFields) => {
    const fields = [
      ...new Set<string>(['Id', ...STANDARD_FIELDS, ...apiNames.values(), ...idFields.map((f) => f.name)]),
    ];
    const soql = `SELECT ${fields.join(', ')} FROM Account WHERE Id IN (${list})`;
    const result = await call('query.Account', () =>
      conn.query<Record<string, unknown>>(soql, { autoFetch: false }),
    );
    // The 15-character form is case-sensitive and names the record whichever length was asked.
    const byShortId = new Map(result.records.map((r) => [String(r.Id).slice(0, 15), r]));
    return ids.flatMap((id) => {
      const record = byShortId.get(id.slice(0, 15));
      return record ? [toSnapshot(id, record, apiNames, idFields)] : [];
    });
  });
}
