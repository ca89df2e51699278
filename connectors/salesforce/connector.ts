// The CrmConnector for Salesforce, on jsforce 3. One API call per connector call where Salesforce allows
// it: sObject Collections (PATCH / POST / DELETE /composite/sobjects, ≤ 200 records, allOrNone false)
// for account updates and for creating and removing notes. Every jsforce type stays in this folder;
// failures come out as AccountNotFoundError, CrmAuthError, CrmRateLimitError, SalesforceTransientError
// or SalesforceRequestError, and no message carries the access or refresh token.
//
// This file only assembles the parts: client.ts (the connection and the call wrapper), session.ts
// (refresh, Redis lock, token store), read.ts, write.ts, notes.ts, note-keys.ts, note-removal.ts, fields.ts and
// field-kinds.ts (one concern each), errors.ts (failures as connector errors).

import { type IdFieldNames, idFieldList } from '../account-ids.ts';
import { cachedOwners } from '../owner-cache.ts';
import type { CrmConnector } from '../types.ts';
import {
  createSalesforceCalls,
  SALESFORCE_COLLECTION_LIMIT,
  type SalesforceClientOptions,
} from './client.ts';
import { SALESFORCE_ID_FIELD_DEFAULTS } from './config.ts';
import { CheckboxFields } from './field-kinds.ts';
import { defaultFieldName, ensureFields, FIELD_PREFIX, SALESFORCE_FIELD_LIMITS } from './fields.ts';
import { existingNoteKeys, existingNoteKeysOf, existingNotesOf } from './note-keys.ts';
import { removeNotes } from './note-removal.ts';
import { createNotes, type NoteMode } from './notes.ts';
import { ownUserOf } from './own-user.ts';
import { listOwners } from './owners.ts';
import { getAccount, getAccounts, IdFieldReads, listAccounts } from './read.ts';
import type { SalesforceSession } from './session.ts';
import { taskStates } from './task-states.ts';
import { updateAccounts } from './write.ts';

export { SALESFORCE_COLLECTION_LIMIT } from './client.ts';
export { SalesforceRequestError, SalesforceTransientError } from './errors.ts';
export { NOTE_KEY_LINE_PREFIX, noteHtml } from './notes.ts';
export type { SalesforceSession } from './session.ts';

/** The connection and session options (client.ts, session.ts), and what this connector does with them. */
export interface SalesforceConnectorOptions extends SalesforceClientOptions {
  /** The org's id: the connector's tenant. */
  orgId: string;
  /** Our property names → Salesforce API names. Default `buyer_intel_population` → `BuyerIntel_Population__c`. */
  fieldName?: (crmFieldName: string) => string;
  /**
   * How notes are stored. 'task' (default): a completed Task on the Account, the key in
   * Task.BuyerIntel_Key__c. 'content-note': a ContentNote (Notes related list, Lightning) linked to the
   * Account by a ContentDocumentLink (ShareType 'V'), the key in its ContentVersion's BuyerIntel_Key__c;
   * `ensureFields` then creates the key field on ContentVersion instead of Task.
   */
  notes?: NoteMode;
  /** The Account fields an account's ids are read from. Default: ours (`BuyerIntel_MatchNcesId__c`, …). */
  idFieldNames?: IdFieldNames | undefined;
}

export type SalesforceConnector = CrmConnector & { session: SalesforceSession };

export function createSalesforceConnector(options: SalesforceConnectorOptions): SalesforceConnector {
  if (!options.instanceUrl) throw new Error('createSalesforceConnector: instanceUrl is required');
  if (!options.orgId) throw new Error('createSalesforceConnector: orgId is required');
  if (!/^\d+\.\d$/.test(options.apiVersion ?? '')) {
    throw new Error('createSalesforceConnector: apiVersion is required, e.g. "62.0"');
  }
  if (!options.accessToken && !options.refreshToken && !options.jwt && !options.tokenStore) {
    throw new Error(
      'createSalesforceConnector: an accessToken, a refreshToken, jwt or a tokenStore is required',
    );
  }
  const fieldName = options.fieldName ?? defaultFieldName;
  const notesAs = options.notes ?? 'task';
  if (notesAs !== 'task' && notesAs !== 'content-note') {
    throw new Error(
      `createSalesforceConnector: notes must be 'task' or 'content-note', got ${String(notesAs)}`,
    );
  }

  const noteKeyObject = notesAs === 'content-note' ? 'ContentVersion' : 'Task';
  const { calls, session, loadStoredToken } = createSalesforceCalls(options);
  const idFields = idFieldList(options.idFieldNames ?? SALESFORCE_ID_FIELD_DEFAULTS, (name) =>
    name.startsWith(FIELD_PREFIX),
  );
  const idReads = new IdFieldReads(idFields);

  /** Runs `send` once the stored session (if any) is installed. */
  const afterLoad = async <R>(send: () => Promise<R>): Promise<R> => {
    await loadStoredToken();
    return send();
  };

  const ownUser = ownUserOf(calls);
  const owners = cachedOwners(() => afterLoad(() => listOwners(calls, ownUser)));
  // Which Account fields are Checkboxes (a clear of one writes false): described on the first clear.
  const accountCheckboxes = new CheckboxFields(calls, 'Account');

  return {
    session,
    kind: 'salesforce',
    tenant: options.orgId,
    maxUpdateBatch: SALESFORCE_COLLECTION_LIMIT,
    maxNoteBatch: SALESFORCE_COLLECTION_LIMIT,
    maxNoteRemovalBatch: SALESFORCE_COLLECTION_LIMIT,
    idFields,
    maxReadBatch: SALESFORCE_COLLECTION_LIMIT,
    maxNoteKeyBatch: SALESFORCE_COLLECTION_LIMIT,
    maxTaskStateBatch: SALESFORCE_COLLECTION_LIMIT,
    fieldLimits: SALESFORCE_FIELD_LIMITS,
    fieldName,
    // The org's My Domain answers Lightning record URLs (it redirects to its lightning.force.com host).
    recordUrl: (accountId) =>
      `${options.instanceUrl.replace(/\/+$/, '')}/lightning/r/Account/${encodeURIComponent(accountId)}/view`,
    getAccount: (accountId, fieldNames) =>
      afterLoad(() => getAccount(calls, fieldName, accountId, fieldNames, idReads)),
    getAccounts: (accountIds, fieldNames) =>
      afterLoad(() => getAccounts(calls, fieldName, accountIds, fieldNames, idReads)),
    listAccounts: (fieldNames, page) =>
      afterLoad(() => listAccounts(calls, fieldName, fieldNames, page, idReads)),
    updateAccounts: (updates) =>
      afterLoad(() => updateAccounts(calls, fieldName, updates, accountCheckboxes)),
    existingNoteKeys: (accountId) => afterLoad(() => existingNoteKeys(calls, notesAs, accountId)),
    existingNoteKeysOf: (accountIds) => afterLoad(() => existingNoteKeysOf(calls, notesAs, accountIds)),
    existingNotesOf: (accountIds) => afterLoad(() => existingNotesOf(calls, notesAs, accountIds)),
    createNotes: (drafts) => afterLoad(() => createNotes(calls, notesAs, drafts)),
    removeNotes: (refs) => afterLoad(() => removeNotes(calls, refs)),
    listOwners: owners,
    taskStates: (noteIds) => afterLoad(() => taskStates(calls, noteIds)),
    ensureFields: (definitions) =>
      afterLoad(() => ensureFields(calls, fieldName, noteKeyObject, definitions)),
  };
}
