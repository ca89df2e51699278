// The CrmConnector for Salesforce, on jsforce 3. One API call per connector call where Salesforce allows
// it: sObject Collections (PATCH / POST /composite/sobjects, ≤ 200 records, allOrNone false) for account
// updates and for notes, which are completed Tasks on the Account (`notes: 'task'`, the default) or
// ContentNotes linked to it (`notes: 'content-note'`, four collection/query calls per batch). Every jsforce type stays in this folder;
// failures come out as AccountNotFoundError, CrmAuthError, CrmRateLimitError, SalesforceTransientError or
// SalesforceRequestError, and no message carries the access or refresh token.
//
// Sessions: jsforce refreshes an expired access token itself (one shared refresh per Connection, then
// re-sends the request); `onRefresh` receives the new access token and a rotated refresh token, which
// jsforce does not keep. Each Task carries its dedupe key in BuyerIntel_Key__c (and a last line of its
// Description), so `existingNoteKeys` reads the truth from Salesforce with one SOQL query; a ContentNote
// carries it in BuyerIntel_Key__c of its ContentVersion (two queries: links of the Account, then keys).

import type { KeyObject } from 'node:crypto';
import type { Redis } from 'ioredis';
import { Connection } from 'jsforce';
import { createNotesOnce, type NoteOutcome } from '../note-batch.ts';
import {
  AccountNotFoundError,
  type AccountPage,
  type AccountSnapshot,
  type AccountUpdate,
  type CrmConnector,
  type EnsureFieldsResult,
  type FieldDefinition,
  type NoteDraft,
  type NoteResult,
  type UpdateResult,
  type WriteFailure,
} from '../types.ts';
import {
  type ApiUsage,
  errorCodeOf,
  isRecord,
  PERMANENT_RECORD_CODES,
  redactor,
  SalesforceRequestError,
  SalesforceTransientError,
  toConnectorError,
} from './errors.ts';
import {
  type CustomFieldMetadata,
  defaultFieldName,
  NOTE_KEY_FIELD,
  type NoteKeyObject,
  noteKeyFieldMetadata,
  toCustomFieldMetadata,
} from './fields.ts';
import { requestJwtToken, type SalesforceTokenResponse } from './jwt.ts';
import { lockedRefresh, readStoredToken, type StoredToken, type TokenCodec } from './token-refresh.ts';

export { SalesforceRequestError, SalesforceTransientError } from './errors.ts';

export interface SalesforceConnectorOptions {
  /** https://yourdomain.my.salesforce.com (the sandbox's URL in tests and demos). */
  instanceUrl: string;
  /** Where refreshes go. Default https://login.salesforce.com. */
  loginUrl?: string;
  accessToken?: string;
  refreshToken?: string;
  clientId: string;
  clientSecret: string;
  /** REST API version, e.g. '62.0' (jsforce's default, 50.0, is too old). */
  apiVersion: string;
  /** The org's id: the connector's tenant. */
  orgId: string;
  /** Our property names → Salesforce API names. Default `buyer_intel_population` → `BuyerIntel_Population__c`. */
  fieldName?: (crmFieldName: string) => string;
  /** Called after every API call (metrics): the operation, 200 or Salesforce's errorCode, the time taken. */
  onCall?: (event: { operation: string; status: number | string; durationMs: number }) => void;
  /** Called after jsforce refreshed the session: persist a rotated refresh token. Must not throw. */
  onRefresh?: (accessToken: string, refreshToken: string | undefined) => void;
  /**
   * How notes are stored. 'task' (default): a completed Task on the Account, the key in
   * Task.BuyerIntel_Key__c. 'content-note': a ContentNote (Notes related list, Lightning) linked to the
   * Account by a ContentDocumentLink (ShareType 'V'), the key in its ContentVersion's BuyerIntel_Key__c;
   * `ensureFields` then creates the key field on ContentVersion instead of Task.
   */
  notes?: 'task' | 'content-note';
  /**
   * JWT bearer flow: authenticate and refresh with an RS256 assertion for `username` signed with the
   * connected app's private key (PKCS#8 PEM or KeyObject) instead of a refresh token.
   */
  jwt?: { username: string; privateKey: string | KeyObject };
  /**
   * Share the session across workers: every refresh runs under a Redis lock (one at a time), the new
   * token (and a rotated refresh token) is stored under `key`, and a connector started later uses it.
   */
  tokenStore?: { redis: Redis; key: string; codec?: TokenCodec };
}

/** Accounts per backfill page: one SOQL call (Salesforce returns up to 2,000 rows per batch). */
const LIST_PAGE_LIMIT = 2000;

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

/** Salesforce's sObject Collections limit. */
export const SALESFORCE_COLLECTION_LIMIT = 200;
/** The Metadata API takes at most 10 components per upsert. */
const METADATA_BATCH = 10;
const SUBJECT_MAX = 255;
/** Task.Description is a 32,000-character text area. */
const DESCRIPTION_MAX = 32_000;
/** A 15- or 18-character record id: the only thing interpolated into SOQL or a URL. */
const RECORD_ID = /^[A-Za-z0-9]{15}(?:[A-Za-z0-9]{3})?$/;
const STANDARD_FIELDS = ['Name', 'BillingState', 'BillingCity', 'Website'] as const;
const NOT_FOUND_CODES = new Set(['NOT_FOUND', 'MALFORMED_ID', 'ENTITY_IS_DELETED']);

/** A collection save result, read without trusting its shape. */
interface SaveResultLike {
  id?: unknown;
  success?: unknown;
  errors?: unknown;
}

/** ContentNote.Title is a 255-character text. */
const NOTE_TITLE_MAX = 255;
/** Ids per `IN (…)` list: 200 × 21 characters keeps a query URL far below any length limit. */
const IN_CHUNK = 200;

/** A draft's body as note HTML: every line a paragraph, its text HTML-escaped (Salesforce requires it). */
export function noteHtml(body: string): string {
  const escapeHtml = (text: string) =>
    text
      .replace(/&/g, '&amp;')
      .replace(/</g, '&lt;')
      .replace(/>/g, '&gt;')
      .replace(/"/g, '&quot;')
      .replace(/'/g, '&#39;');
  return body
    .split(/\r\n|\r|\n/)
    .map((line) => (line.trim() === '' ? '<p><br></p>' : `<p>${escapeHtml(line)}</p>`))
    .join('')
    .replace(/^(?:<p><br><\/p>)+|(?:<p><br><\/p>)+$/g, '');
}

/** The line that carries a note's key at the end of a Task's Description. */
export const NOTE_KEY_LINE_PREFIX = 'buyer-intel-key: ';

/**
 * Salesforce's token endpoint refused the grant (invalid_grant, invalid_client, inactive_user, any
 * other 4xx), or there is nothing to refresh with: only new credentials help. Anything else — the
 * endpoint down or answering unknown_error ("retry your request"), a network error, Redis or the
 * refresh lock failing — may pass on a retry. jsforce keeps only the OAuth error code, as the name.
 */
const REFUSED_GRANT =
  /^(?:invalid_\w+|unauthorized_client|inactive_(?:user|org)|unsupported_\w+|access_denied|redirect_uri_mismatch|ERROR_HTTP_4\d\d)$/;
function isRefusedGrant(err: Error): boolean {
  return /No refresh token found/.test(err.message) || REFUSED_GRANT.test(err.name);
}

function asText(value: unknown): string | null {
  if (value === null || value === undefined || value === '') return null;
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return JSON.stringify(value);
}

/** YYYY-MM-DD of an ISO timestamp (UTC), or undefined when unparseable. */
function activityDate(occurredAt: string): string | undefined {
  if (/^\d{4}-\d\d-\d\d$/.test(occurredAt)) return occurredAt;
  const ms = Date.parse(occurredAt);
  return Number.isNaN(ms) ? undefined : new Date(ms).toISOString().slice(0, 10);
}

/** The session the connector holds, for clients that authenticate themselves (CDC streaming). */
export interface SalesforceSession {
  accessToken(): Promise<string>;
  /** A fresh access token (after the streaming API answered 401::Authentication invalid). */
  reauthenticate(): Promise<string>;
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
  const noteKeyObject: NoteKeyObject = notesAs === 'content-note' ? 'ContentVersion' : 'Task';

  const loginUrl = options.loginUrl ?? 'https://login.salesforce.com';
  const tokenStore = options.tokenStore;
  const jwt = options.jwt;

  /** One grant: JWT bearer, or the refresh-token grant with the newest refresh token we know. */
  async function grant(stored: StoredToken | null): Promise<SalesforceTokenResponse> {
    if (jwt) {
      return requestJwtToken(conn, {
        clientId: options.clientId,
        username: jwt.username,
        privateKey: jwt.privateKey,
        loginUrl,
      });
    }
    const refreshToken = stored?.refreshToken ?? conn.refreshToken;
    if (!refreshToken) throw new Error('No refresh token found in the connection');
    return (await conn.oauth2.refreshToken(refreshToken)) as unknown as SalesforceTokenResponse;
  }

  /** jsforce's refreshFn: every refresh goes through `grant`, under the Redis lock when a tokenStore is set. */
  const refreshFn = (
    c: Connection,
    callback: (err?: Error, accessToken?: string, res?: SalesforceTokenResponse) => void,
  ): void => {
    const staleAccessToken = c.accessToken ?? undefined;
    const refreshed: Promise<SalesforceTokenResponse> = tokenStore
      ? lockedRefresh(
          tokenStore.redis,
          tokenStore.key,
          async (stored) => {
            const res = await grant(stored);
            return {
              accessToken: res.access_token,
              ...(res.refresh_token ? { refreshToken: res.refresh_token } : {}),
            };
          },
          {
            ...(staleAccessToken ? { staleAccessToken } : {}),
            ...(tokenStore.codec ? { codec: tokenStore.codec } : {}),
          },
        ).then((stored) => ({
          access_token: stored.accessToken,
          ...(stored.refreshToken ? { refresh_token: stored.refreshToken } : {}),
          instance_url: c.instanceUrl,
          id: '',
        }))
      : grant(null);
    refreshed.then(
      (res) => {
        lastRefreshFailure = undefined;
        callback(undefined, res.access_token, res);
      },
      (err: unknown) => {
        const error = err instanceof Error ? err : new Error(String(err));
        lastRefreshFailure = { error, refused: isRefusedGrant(error) };
        callback(error);
      },
    );
  };
  /**
   * jsforce reports a failed refresh as a new Error naming only our message; this remembers what the
   * failure was, so an unreachable token endpoint or a Redis outage is retried, not taken for revoked
   * credentials.
   */
  let lastRefreshFailure: { error: Error; refused: boolean } | undefined;
  const isTransientRefreshFailure = (err: unknown): boolean =>
    lastRefreshFailure !== undefined &&
    !lastRefreshFailure.refused &&
    err instanceof Error &&
    err.message === `Unable to refresh session due to: ${lastRefreshFailure.error.message}`;

  const conn: Connection = new Connection({
    instanceUrl: options.instanceUrl.replace(/\/+$/, ''),
    ...(options.accessToken ? { accessToken: options.accessToken } : {}),
    ...(options.refreshToken ? { refreshToken: options.refreshToken } : {}),
    oauth2: {
      clientId: options.clientId,
      clientSecret: options.clientSecret,
      loginUrl,
    },
    version: options.apiVersion,
    // Our refreshFn for every flow: it adds the Redis lock where configured and classifies failures.
    ...(jwt || tokenStore || options.refreshToken ? { refreshFn: refreshFn as never } : {}),
  });

  /** With a tokenStore, the first call starts from the stored session (and refresh token), if any. */
  let loaded: Promise<void> | undefined;
  const loadStoredToken = (): Promise<void> => {
    if (!tokenStore) return Promise.resolve();
    loaded ??= readStoredToken(tokenStore.redis, tokenStore.key, tokenStore.codec).then(
      (stored) => {
        if (!stored) return;
        conn.accessToken = stored.accessToken;
        if (stored.refreshToken) conn.refreshToken = stored.refreshToken;
      },
      () => {
        loaded = undefined; // Redis unreachable: try again on the next call; jsforce refreshes on a 401.
      },
    );
    return loaded;
  };
  let rotatedRefreshToken: string | undefined;
  conn.on('refresh', (accessToken: string, res: unknown) => {
    const refreshToken =
      isRecord(res) && typeof res.refresh_token === 'string' ? res.refresh_token : undefined;
    if (refreshToken) {
      rotatedRefreshToken = refreshToken;
      conn.refreshToken = refreshToken;
    }
    try {
      options.onRefresh?.(accessToken, refreshToken);
    } catch {
      // A persistence hook must not break the call that triggered the refresh.
    }
  });

  const redact = redactor(() => [
    options.accessToken,
    options.refreshToken,
    options.clientSecret,
    conn.accessToken,
    conn.refreshToken,
    rotatedRefreshToken,
  ]);
  const apiUsage = (): ApiUsage => conn.limitInfo.apiUsage;

  /** One jsforce call, its failure as a connector error. */
  async function call<T>(operation: string, send: () => PromiseLike<T>): Promise<T> {
    const started = performance.now();
    try {
      const result = await send();
      report(operation, 200, started);
      return result;
    } catch (err) {
      const failure = connectorError(operation, err);
      report(operation, errorCodeOf(err) ?? 'network', started);
      throw failure;
    }
  }

  function report(operation: string, status: number | string, started: number): void {
    try {
      options.onCall?.({ operation, status, durationMs: performance.now() - started });
    } catch {
      // A metrics hook must not turn a successful call into a failure.
    }
  }

  function connectorError(operation: string, err: unknown): Error {
    if (isTransientRefreshFailure(err)) {
      const reason = redact(lastRefreshFailure?.error.message ?? '').slice(0, 500);
      return new SalesforceTransientError(`Salesforce session refresh for ${operation} failed: ${reason}`, {
        operation,
      });
    }
    return toConnectorError(operation, err, redact, apiUsage());
  }

  /** A per-record failure of a collection save. */
  function recordFailure(errors: unknown, subject: string): WriteFailure {
    const first = Array.isArray(errors) ? errors.find(isRecord) : undefined;
    const code = first && typeof first.statusCode === 'string' ? first.statusCode : 'UNKNOWN';
    const message = first && typeof first.message === 'string' ? redact(first.message) : 'no message';
    const fields =
      first && Array.isArray(first.fields) && first.fields.length ? ` [${first.fields.join(', ')}]` : '';
    const notFound = code === 'NOT_FOUND' || code === 'ENTITY_IS_DELETED';
    return {
      status: notFound ? 404 : PERMANENT_RECORD_CODES.has(code) ? 400 : undefined,
      message: `${subject}: ${code}: ${message}${fields}`,
      permanent: PERMANENT_RECORD_CODES.has(code),
    };
  }

  /** The whole collection call was refused: every record fails with the reason. */
  const refusedFailure = (err: SalesforceRequestError): WriteFailure => ({
    status: 400,
    message: err.message,
    permanent: true,
  });

  // --- accounts ------------------------------------------------------------------------------------

  async function getAccount(accountId: string, fieldNames: readonly string[]): Promise<AccountSnapshot> {
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
  async function listAccounts(
    fieldNames: readonly string[],
    page: { after?: string | null; limit?: number } = {},
  ): Promise<AccountPage> {
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

  async function updateAccounts(updates: readonly AccountUpdate[]): Promise<UpdateResult[]> {
    if (updates.length === 0) return [];
    if (updates.length > SALESFORCE_COLLECTION_LIMIT) {
      throw new RangeError(
        `updateAccounts takes at most ${SALESFORCE_COLLECTION_LIMIT} updates, got ${updates.length}`,
      );
    }
    // One id twice in a collection is refused: merge updates of one account (later wins).
    const records: { Id: string; [field: string]: string | null }[] = [];
    const recordOf = new Map<string, number>();
    for (const update of updates) {
      let index = recordOf.get(update.accountId);
      if (index === undefined) {
        index = records.length;
        recordOf.set(update.accountId, index);
        records.push({ Id: update.accountId });
      }
      const record = records[index];
      if (!record) continue;
      // null clears the field (JSON null in a collection update).
      for (const [name, value] of Object.entries(update.fields)) record[fieldName(name)] = value;
    }

    let outcomes: (WriteFailure | undefined)[];
    try {
      // jsforce sends an array as one PATCH /composite/sobjects (API ≥ 42.0), results in request order.
      const results = (await call('composite.sobjects.update', () =>
        conn.sobject('Account').update(records, { allOrNone: false }),
      )) as SaveResultLike[];
      outcomes = records.map((record, i) => {
        const result = results[i];
        if (result?.success === true) return undefined;
        if (!result) {
          return {
            status: undefined,
            message: `Salesforce's answer did not report Account ${record.Id}`,
            permanent: false,
          };
        }
        return recordFailure(result.errors, `Salesforce Account ${record.Id}`);
      });
    } catch (err) {
      if (!(err instanceof SalesforceRequestError)) throw err;
      const failure = refusedFailure(err);
      outcomes = records.map(() => failure);
    }
    return updates.map((update) => {
      const failure = outcomes[recordOf.get(update.accountId) ?? -1];
      return failure
        ? { accountId: update.accountId, ok: false, error: failure }
        : { accountId: update.accountId, ok: true };
    });
  }

  // --- notes ---------------------------------------------------------------------------------------

  /** Every row of a SOQL query, following nextRecordsUrl. */
  async function queryAll(
    operation: string,
    soql: string,
    onRow: (row: Record<string, unknown>) => void,
  ): Promise<void> {
    type Row = Record<string, unknown>;
    let page = await call(operation, () => conn.query<Row>(soql, { autoFetch: false }));
    for (;;) {
      for (const row of page.records) onRow(row);
      const next = page.nextRecordsUrl;
      if (page.done || !next) break;
      page = await call('queryMore', () => conn.queryMore<Row>(next));
    }
  }

  /** A row's value of a field, whatever case Salesforce answered its name in. */
  const fieldOf = (row: Record<string, unknown>, field: string): unknown =>
    Object.entries(row).find(([k]) => k.toLowerCase() === field.toLowerCase())?.[1];

  const inList = (ids: readonly string[]) => ids.map((id) => `'${id}'`).join(', ');

  async function existingNoteKeys(accountId: string): Promise<Set<string>> {
    if (!RECORD_ID.test(accountId)) {
      throw new AccountNotFoundError(
        accountId,
        `Salesforce Account ${JSON.stringify(accountId)} is no record id`,
      );
    }
    const keys = new Set<string>();
    const addKey = (row: Record<string, unknown>) => {
      const key = fieldOf(row, NOTE_KEY_FIELD);
      if (typeof key === 'string' && key !== '') keys.add(key);
    };
    // The id matched RECORD_ID (letters and digits only), so it is safe inside the quotes.
    if (notesAs === 'task') {
      await queryAll('query', `SELECT ${NOTE_KEY_FIELD} FROM Task WHERE WhatId = '${accountId}'`, addKey);
      return keys;
    }
    // ContentDocumentLink must be filtered by LinkedEntityId or ContentDocumentId (Salesforce's rule).
    const documentIds = new Set<string>();
    await queryAll(
      'query.ContentDocumentLink',
      `SELECT ContentDocumentId FROM ContentDocumentLink WHERE LinkedEntityId = '${accountId}'`,
      (row) => {
        const id = fieldOf(row, 'ContentDocumentId');
        if (typeof id === 'string' && RECORD_ID.test(id)) documentIds.add(id);
      },
    );
    // Every version, not only the latest: a person editing the note in Salesforce adds a version that
    // does not carry our key, and the note must still count as created.
    const ids = [...documentIds];
    for (let i = 0; i < ids.length; i += IN_CHUNK) {
      const chunk = ids.slice(i, i + IN_CHUNK);
      await queryAll(
        'query.ContentVersion',
        `SELECT ${NOTE_KEY_FIELD} FROM ContentVersion WHERE ContentDocumentId IN (${inList(chunk)}) AND FileType = 'SNOTE'`,
        addKey,
      );
    }
    return keys;
  }

  function createNotes(drafts: readonly NoteDraft[]): Promise<NoteResult[]> {
    return createNotesOnce(drafts, SALESFORCE_COLLECTION_LIMIT, (unique) =>
      notesAs === 'content-note' ? createContentNotes(unique) : createTasks(unique),
    );
  }

  /** Notes as completed Tasks: one collection create. */
  async function createTasks(unique: readonly NoteDraft[]): Promise<NoteOutcome[]> {
    const records = unique.map((draft) => {
      const keyLine = `${NOTE_KEY_LINE_PREFIX}${draft.dedupeKey}`;
      const body = draft.body.slice(0, DESCRIPTION_MAX - keyLine.length - 2);
      const date = activityDate(draft.occurredAt);
      return {
        WhatId: draft.accountId,
        Subject: draft.title.slice(0, SUBJECT_MAX),
        Description: body ? `${body}\n\n${keyLine}` : keyLine,
        ...(date ? { ActivityDate: date } : {}),
        Status: 'Completed',
        [NOTE_KEY_FIELD]: draft.dedupeKey,
      };
    });

    try {
      const results = (await call('composite.sobjects.create', () =>
        conn.sobject('Task').create(records, { allOrNone: false }),
      )) as SaveResultLike[];
      return unique.map((draft, i) => {
        const result = results[i];
        if (result?.success === true && typeof result.id === 'string') return { noteId: result.id };
        if (!result) {
          return {
            status: undefined,
            message: "Salesforce's answer did not report the Task",
            permanent: false,
          };
        }
        return recordFailure(result.errors, `Task for Salesforce Account ${draft.accountId}`);
      });
    } catch (err) {
      if (!(err instanceof SalesforceRequestError)) throw err;
      const failure = refusedFailure(err);
      return unique.map(() => failure);
    }
  }

  /**
   * Notes as ContentNotes, four calls for the batch: create the notes (collection), read their
   * ContentVersion ids (one query), write each key on its version (collection), link each note to its
   * Account with ShareType 'V' (collection). A note that failed after it was created is deleted (one
   * more call) so no half-made note stays behind: unlinked it would be invisible, unkeyed it would be
   * made again. Key before link: a note becomes visible on the Account only once it carries its key.
   */
  async function createContentNotes(unique: readonly NoteDraft[]): Promise<NoteOutcome[]> {
    const outcomes: (NoteOutcome | undefined)[] = unique.map(() => undefined);
    /** Created note ids by draft index, while the note is still on its way. */
    const pending = new Map<number, string>();
    const subject = (i: number) => `ContentNote for Salesforce Account ${unique[i]?.accountId ?? '?'}`;
    const fail = (i: number, failure: WriteFailure) => {
      outcomes[i] = failure;
    };
    /** Runs one step's call; a refused call fails every pending note with the reason. */
    const step = async <T>(send: () => Promise<T>): Promise<T | undefined> => {
      try {
        return await send();
      } catch (err) {
        if (!(err instanceof SalesforceRequestError)) {
          await discard([...pending.values()]).catch(() => undefined);
          throw err;
        }
        const failure = refusedFailure(err);
        for (const i of pending.keys()) if (!outcomes[i]) fail(i, failure);
        return undefined;
      }
    };
    /** Collection results for the given pending indices: failures recorded, the rest stay pending. */
    const settle = (indices: number[], results: SaveResultLike[] | undefined, what: string) => {
      if (!results) return;
      indices.forEach((i, n) => {
        const result = results[n];
        if (result?.success === true) return;
        fail(
          i,
          result
            ? recordFailure(result.errors, `${subject(i)} (${what})`)
            : {
                status: undefined,
                message: `Salesforce's answer did not report the ${what}`,
                permanent: false,
              },
        );
      });
    };

    // 1. The notes.
    const notes = unique.map((draft) => ({
      Title: (draft.title.trim() || 'Buyer Intel signal').slice(0, NOTE_TITLE_MAX),
      Content: Buffer.from(noteHtml(draft.body), 'utf8').toString('base64'),
    }));
    let created: SaveResultLike[];
    try {
      created = (await call('composite.sobjects.create.ContentNote', () =>
        conn.sobject('ContentNote').create(notes, { allOrNone: false }),
      )) as SaveResultLike[];
    } catch (err) {
      if (!(err instanceof SalesforceRequestError)) throw err;
      const failure = refusedFailure(err);
      return unique.map(() => failure);
    }
    unique.forEach((_, i) => {
      const result = created[i];
      if (result?.success === true && typeof result.id === 'string') pending.set(i, result.id);
      else
        fail(
          i,
          result
            ? recordFailure(result.errors, subject(i))
            : {
                status: undefined,
                message: "Salesforce's answer did not report the ContentNote",
                permanent: false,
              },
        );
    });

    // 2. Their versions (a ContentNote's id is its ContentDocument id).
    const versionOf = new Map<string, string>();
    if (pending.size) {
      const ids = [...pending.values()];
      await step(() =>
        queryAll(
          'query.ContentVersion',
          `SELECT Id, ContentDocumentId FROM ContentVersion WHERE ContentDocumentId IN (${inList(ids)}) AND IsLatest = true`,
          (row) => {
            const doc = fieldOf(row, 'ContentDocumentId');
            const id = fieldOf(row, 'Id');
            if (typeof doc === 'string' && typeof id === 'string') versionOf.set(doc.slice(0, 15), id);
          },
        ),
      );
    }

    // 3. The key on each version.
    const keyed = [...pending.entries()].filter(([i, noteId]) => {
      if (outcomes[i]) return false;
      if (versionOf.has(noteId.slice(0, 15))) return true;
      fail(i, {
        status: undefined,
        message: `${subject(i)}: no ContentVersion found for ${noteId}`,
        permanent: false,
      });
      return false;
    });
    if (keyed.length) {
      const records = keyed.map(([i, noteId]) => ({
        Id: versionOf.get(noteId.slice(0, 15)) ?? '',
        [NOTE_KEY_FIELD]: unique[i]?.dedupeKey ?? '',
      }));
      const results = await step(
        async () =>
          (await call('composite.sobjects.update.ContentVersion', () =>
            conn.sobject('ContentVersion').update(records, { allOrNone: false }),
          )) as SaveResultLike[],
      );
      settle(
        keyed.map(([i]) => i),
        results,
        'key on its ContentVersion',
      );
    }

    // 4. The link to the Account.
    const linking = [...pending.entries()].filter(([i]) => !outcomes[i]);
    if (linking.length) {
      const records = linking.map(([i, noteId]) => ({
        ContentDocumentId: noteId,
        LinkedEntityId: unique[i]?.accountId ?? '',
        ShareType: 'V',
      }));
      const results = await step(
        async () =>
          (await call('composite.sobjects.create.ContentDocumentLink', () =>
            conn.sobject('ContentDocumentLink').create(records, { allOrNone: false }),
          )) as SaveResultLike[],
      );
      settle(
        linking.map(([i]) => i),
        results,
        'link to the Account',
      );
    }

    // 5. Done, or deleted.
    const failedNotes = [...pending.entries()].filter(([i]) => outcomes[i]);
    for (const [i, noteId] of pending) if (!outcomes[i]) outcomes[i] = { noteId };
    if (failedNotes.length) {
      const left = await discard(failedNotes.map(([, id]) => id)).catch(
        () => new Set(failedNotes.map(([, id]) => id)),
      );
      for (const [i, noteId] of failedNotes) {
        const outcome = outcomes[i];
        if (left.has(noteId) && outcome && !('noteId' in outcome))
          outcomes[i] = {
            ...outcome,
            message: `${outcome.message} (ContentNote ${noteId} was left behind unlinked)`,
          };
      }
    }
    return outcomes.map((o) => o ?? { status: undefined, message: 'no outcome', permanent: false });
  }

  /** Deletes half-made notes (one collection call); the ids it could not delete. */
  async function discard(noteIds: readonly string[]): Promise<Set<string>> {
    if (noteIds.length === 0) return new Set();
    const results = (await call('composite.sobjects.delete', () =>
      conn.sobject('ContentNote').destroy([...noteIds], { allOrNone: false }),
    )) as SaveResultLike[];
    return new Set(noteIds.filter((_, n) => results[n]?.success !== true));
  }

  // --- fields --------------------------------------------------------------------------------------

  /**
   * Upserts our Account fields and the note key field (on Task, or on ContentVersion for ContentNotes)
   * through the Metadata API (10 per call). In an
   * org the integration user still needs field-level access to them before the first write.
   */
  async function ensureFields(fields: readonly FieldDefinition[]): Promise<EnsureFieldsResult> {
    const metadata: CustomFieldMetadata[] = [
      ...fields.map((f) => toCustomFieldMetadata(f, fieldName(f.name))),
      noteKeyFieldMetadata(noteKeyObject),
    ];
    const created: string[] = [];
    const existing: string[] = [];
    for (let i = 0; i < metadata.length; i += METADATA_BATCH) {
      const chunk = metadata.slice(i, i + METADATA_BATCH);
      const results = await call('metadata.upsert', () =>
        conn.metadata.upsert('CustomField', chunk as unknown as Parameters<typeof conn.metadata.create>[1][]),
      );
      for (const result of Array.isArray(results) ? results : [results]) {
        if (!result.success) {
          const errors = Array.isArray(result.errors) ? result.errors : [result.errors];
          const detail = errors
            .map((e: unknown) => (isRecord(e) ? `${String(e.statusCode)}: ${String(e.message)}` : String(e)))
            .join('; ');
          throw new SalesforceRequestError(
            redact(`Salesforce refused the custom field ${result.fullName}: ${detail}`),
            { operation: 'metadata.upsert', errorCode: 'METADATA_UPSERT_FAILED' },
          );
        }
        (result.created ? created : existing).push(result.fullName);
      }
    }
    return { created, existing };
  }

  /** Runs `fn` once the stored session (if any) is installed. */
  const afterLoad =
    <A extends unknown[], R>(fn: (...args: A) => Promise<R>) =>
    async (...args: A): Promise<R> => {
      await loadStoredToken();
      return fn(...args);
    };

  /** A new session through the same grant and lock as jsforce's own refreshes (for the streaming client). */
  const reauthenticate = (): Promise<string> =>
    new Promise((resolve, reject) => {
      refreshFn(conn, (err, accessToken, res) => {
        if (err || !accessToken) return reject(err ?? new Error('the refresh returned no access token'));
        conn.accessToken = accessToken;
        conn.emit('refresh', accessToken, res);
        resolve(accessToken);
      });
    });

  return {
    session: {
      accessToken: async () => {
        await loadStoredToken();
        return conn.accessToken ?? reauthenticate();
      },
      reauthenticate: () =>
        reauthenticate().catch((err: unknown) => Promise.reject(connectorError('session.refresh', err))),
    },
    kind: 'salesforce',
    tenant: options.orgId,
    maxUpdateBatch: SALESFORCE_COLLECTION_LIMIT,
    maxNoteBatch: SALESFORCE_COLLECTION_LIMIT,
    getAccount: afterLoad(getAccount),
    listAccounts: afterLoad(listAccounts),
    updateAccounts: afterLoad(updateAccounts),
    existingNoteKeys: afterLoad(existingNoteKeys),
    createNotes: afterLoad(createNotes),
    ensureFields: afterLoad(ensureFields),
  };
}
