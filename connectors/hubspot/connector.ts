// The CrmConnector for HubSpot, on the official @hubspot/api-client. One SDK call per connector call
// where HubSpot allows it (batch update, batch create with inline associations); every SDK type stays in
// this folder. Retries are the caller's, and failures come out as AccountNotFoundError, CrmAuthError,
// CrmRateLimitError, HubSpotTransientError (retry later) or HubSpotRequestError (HubSpot refused the
// request). No message carries the token.
//
// This file only assembles the parts: client.ts (the SDK client and the call wrapper), read.ts,
// write.ts, notes.ts, tasks.ts, note-keys.ts, note-removal.ts and fields.ts (one concern each), errors.ts (failures as
// connector errors).

import { DEFAULT_ID_FIELD_NAMES, type IdFieldNames, idFieldList } from '../account-ids.ts';
import { cachedOwners } from '../owner-cache.ts';
import type { CrmConnector } from '../types.ts';
import { createHubSpotCalls, HUBSPOT_BATCH_LIMIT, type HubSpotClientOptions } from './client.ts';
import { ensureFields, HUBSPOT_FIELD_LIMITS } from './fields.ts';
import { existingNoteKeysOf, existingNotesOf, NOTE_KEY_BATCH } from './note-keys.ts';
import { removeNotes } from './note-removal.ts';
import { createNotes, existingNoteKeys } from './notes.ts';
import { ownUserOf } from './own-user.ts';
import { listOwners } from './owners.ts';
import { getAccount, getAccounts, listAccounts } from './read.ts';
import { taskStates } from './tasks.ts';
import { uiDomainOf } from './ui-domain.ts';
import { updateAccounts } from './write.ts';

export {
  DEFAULT_FETCH_TIMEOUT_MS,
  HUBSPOT_BATCH_LIMIT,
  type HubSpotCallEvent,
} from './client.ts';
export { HubSpotRequestError, HubSpotTransientError } from './errors.ts';

export interface HubSpotConnectorOptions extends HubSpotClientOptions {
  /** The HubSpot account (hub) id: the connector's tenant. */
  portalId: string;
  /** Group of the company properties `ensureFields` creates. Default buyer_intel / Buyer Intelligence. */
  propertyGroup?: { name: string; label: string };
  /** The company properties an account's ids are read from. Default: ours (`buyer_intel_match_nces_id`, …). */
  idProperties?: IdFieldNames;
}

export const DEFAULT_PROPERTY_GROUP = { name: 'buyer_intel', label: 'Buyer Intelligence' } as const;

export function createHubSpotConnector(options: HubSpotConnectorOptions): CrmConnector {
  if (!options.accessToken) throw new Error('createHubSpotConnector: accessToken is required');
  if (!options.portalId) throw new Error('createHubSpotConnector: portalId is required');
  const group = options.propertyGroup ?? DEFAULT_PROPERTY_GROUP;
  const calls = createHubSpotCalls(options);
  // Reading a property the portal lacks returns nothing for it, so ours are read before setup made them.
  const idFields = idFieldList(options.idProperties ?? DEFAULT_ID_FIELD_NAMES, (name) =>
    name.startsWith('buyer_intel_'),
  );
  const ownUser = ownUserOf(calls);
  const owners = cachedOwners(() => listOwners(calls, ownUser));
  const ui = uiDomainOf(calls);

  return {
    kind: 'hubspot',
    tenant: options.portalId,
    maxUpdateBatch: HUBSPOT_BATCH_LIMIT,
    maxNoteBatch: HUBSPOT_BATCH_LIMIT,
    maxNoteRemovalBatch: HUBSPOT_BATCH_LIMIT,
    idFields,
    maxReadBatch: HUBSPOT_BATCH_LIMIT,
    maxNoteKeyBatch: NOTE_KEY_BATCH,
    maxTaskStateBatch: HUBSPOT_BATCH_LIMIT,
    fieldLimits: HUBSPOT_FIELD_LIMITS,
    // An EU portal's screens are on app-eu1.hubspot.com (ui-domain.ts), asked once a connection.
    recordUrl: (accountId) =>
      `https://${ui.current()}/contacts/${encodeURIComponent(options.portalId)}/company/${encodeURIComponent(accountId)}`,
    prepareRecordUrls: () => ui.ready(),
    getAccount: (accountId, fieldNames) => getAccount(calls, accountId, fieldNames, idFields),
    getAccounts: (accountIds, fieldNames) => getAccounts(calls, accountIds, fieldNames, idFields),
    listAccounts: (fieldNames, page) => listAccounts(calls, fieldNames, page, idFields),
    updateAccounts: (updates) => updateAccounts(calls, updates),
    existingNoteKeys: (accountId) => existingNoteKeys(calls, accountId),
    existingNoteKeysOf: (accountIds) => existingNoteKeysOf(calls, accountIds),
    existingNotesOf: (accountIds) => existingNotesOf(calls, accountIds),
    createNotes: (drafts) => createNotes(calls, drafts),
    removeNotes: (refs) => removeNotes(calls, refs),
    listOwners: owners,
    taskStates: (noteIds) => taskStates(calls, noteIds),
    ensureFields: (definitions) => ensureFields(calls, group, definitions),
  };
}
