// Reading companies: one by id, a batch by ids (≤ 100, one call: jobs share it, an undo checks what the
// CRM holds), or a page at a time for backfill, as AccountSnapshots.

import { readIds } from '../account-ids.ts';
import { batchIds } from '../read-batch.ts';
import {
  type AccountIdField,
  AccountNotFoundError,
  type AccountPage,
  type AccountSnapshot,
} from '../types.ts';
import { HUBSPOT_BATCH_LIMIT, type HubSpotCalls } from './client.ts';
import { isStatus } from './errors.ts';

/** Read with every company besides the requested fields: the snapshot is made of them. */
const ACCOUNT_PROPERTIES = [
  'name',
  'state',
  'city',
  'zip',
  'address',
  'domain',
  'website',
  'hubspot_owner_id',
] as const;

const emptyToNull = (value: string | null | undefined): string | null =>
  value === undefined || value === null || value === '' ? null : value;

/** HubSpot sends an unset property as "" or leaves it out; the pipeline knows only null for both. */
function toSnapshot(
  id: string,
  properties: Record<string, string | null>,
  fieldNames: readonly string[],
  idFields: readonly AccountIdField[],
): AccountSnapshot {
  const fields: Record<string, string | null> = {};
  for (const name of fieldNames) fields[name] = emptyToNull(properties[name]);
  const ids = readIds(idFields, (name) => properties[name]);
  const ownerId = emptyToNull(properties.hubspot_owner_id);
  return {
    id,
    name: emptyToNull(properties.name),
    state: emptyToNull(properties.state),
    city: emptyToNull(properties.city),
    zip: emptyToNull(properties.zip),
    street: emptyToNull(properties.address),
    website: emptyToNull(properties.website) ?? emptyToNull(properties.domain),
    ...(emptyToNull(properties.hubspot_owner_id)
      ? { ownerId: String(properties.hubspot_owner_id).trim() }
      : {}),
    // HubSpot's company domain is the one its contacts' email addresses are matched by.
    ...(emptyToNull(properties.domain) ? { emailDomains: [String(properties.domain).trim()] } : {}),
    fields,
    ...(ids ? { ids } : {}),
    ...(ownerId ? { ownerId } : {}),
  };
}

const propertiesOf = (fieldNames: readonly string[], idFields: readonly AccountIdField[]) => [
  ...new Set([...ACCOUNT_PROPERTIES, ...fieldNames, ...idFields.map((f) => f.name)]),
];

export async function getAccount(
  calls: HubSpotCalls,
  accountId: string,
  fieldNames: readonly string[],
  idFields: readonly AccountIdField[] = [],
): Promise<AccountSnapshot> {
  const names = propertiesOf(fieldNames, idFields);
  let properties: Record<string, string | null>;
  try {
    const { data } = await calls.call('crm.companies.basicApi.getById', () =>
      calls.companies.basicApi.getByIdWithHttpInfo(accountId, names),
    );
    properties = data.properties ?? {};
  } catch (err) {
    if (isStatus(err, 404)) {
      throw new AccountNotFoundError(accountId, `HubSpot company ${accountId} not found`);
    }
    throw err;
  }
  return toSnapshot(accountId, properties, fieldNames, idFields);
}

export async function listAccounts(
  calls: HubSpotCalls,
  fieldNames: readonly string[],
  page: { after?: string | null; limit?: number } = {},
  idFields: readonly AccountIdField[] = [],
): Promise<AccountPage> {
  const names = propertiesOf(fieldNames, idFields);
  const limit = Math.min(Math.max(page.limit ?? HUBSPOT_BATCH_LIMIT, 1), HUBSPOT_BATCH_LIMIT);
  const { data } = await calls.call('crm.companies.basicApi.getPage', () =>
    calls.companies.basicApi.getPageWithHttpInfo(limit, page.after ?? undefined, names),
  );
  return {
    accounts: data.results.map((c) => toSnapshot(c.id, c.properties ?? {}, fieldNames, idFields)),
    next: data.paging?.next?.after ?? null,
  };
}

/** HubSpot record ids are numbers; anything else names no company (and would fail the whole batch). */
const COMPANY_ID = /^\d+$/;

/**
 * One batch read (POST /crm/v3/objects/companies/batch/read): the companies that exist, in input order.
 * HubSpot answers 207 naming unknown or archived ids in an OBJECT_NOT_FOUND error: they are left out.
 */
export async function getAccounts(
  calls: HubSpotCalls,
  accountIds: readonly string[],
  fieldNames: readonly string[],
  idFields: readonly AccountIdField[] = [],
): Promise<AccountSnapshot[]> {
  const ids = batchIds(accountIds, HUBSPOT_BATCH_LIMIT).filter((id) => COMPANY_ID.test(id));
  if (!ids.length) return [];
  const names = propertiesOf(fieldNames, idFields);
  const { data } = await calls.call('crm.companies.batchApi.read', () =>
    calls.companies.batchApi.readWithHttpInfo(
      { inputs: ids.map((id) => ({ id })), properties: names, propertiesWithHistory: [] },
      false,
    ),
  );
  const found = new Map<string, AccountSnapshot>();
  for (const company of data.results ?? [])
    if (typeof company.id === 'string')
      found.set(company.id, toSnapshot(company.id, company.properties ?? {}, fieldNames, idFields));
  return ids.flatMap((id) => found.get(id) ?? []);
}
