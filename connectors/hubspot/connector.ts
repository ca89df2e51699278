// The CrmConnector for HubSpot, on the official @hubspot/api-client. One SDK call per connector call
// where HubSpot allows it (batch update, batch create with inline associations); every SDK type stays in
// this file. Retries are the caller's: the SDK client runs with numberOfApiCallRetries 0 and no limiter,
// and failures come out as AccountNotFoundError, CrmAuthError, CrmRateLimitError, HubSpotTransientError
// (retry later) or HubSpotRequestError (HubSpot refused the request). No message carries the token.
//
// Notes carry their dedupe key in the note body (see note-html.ts), so `existingNoteKeys` reads the
// truth from HubSpot itself: the company's note associations (v4), then the notes' bodies in batches.

import { Client } from '@hubspot/api-client';
import { type CallBudget, CallBudgetTimeout } from '../call-budget.ts';
import { createNotesOnce, type NoteOutcome } from '../note-batch.ts';
import {
  AccountNotFoundError,
  type AccountPage,
  type AccountSnapshot,
  type AccountUpdate,
  type CrmConnector,
  CrmRateLimitError,
  type EnsureFieldsResult,
  type FieldDefinition,
  type NoteDraft,
  type NoteResult,
  type UpdateResult,
  type WriteFailure,
} from '../types.ts';
import {
  describeProperties,
  errorContext,
  HubSpotRequestError,
  HubSpotTransientError,
  isApiFailure,
  type RejectedProperty,
  redactor,
  rejectedProperties,
  toConnectorError,
} from './errors.ts';
import { toPropertyDefinition } from './fields.ts';
import { extractNoteKeys, renderNoteHtml } from './note-html.ts';

export { HubSpotRequestError, HubSpotTransientError } from './errors.ts';

export interface HubSpotCallEvent {
  /** The SDK method, e.g. `crm.companies.batchApi.update`. */
  operation: string;
  /** The HTTP status, or 'network' when no answer came (connection failure, timeout). */
  status: number | 'network';
  durationMs: number;
}

export interface HubSpotConnectorOptions {
  /** A private-app token or an OAuth access token. */
  accessToken: string;
  /** Replaces https://api.hubapi.com (the sandbox's URL in tests and demos). */
  basePath?: string;
  /** The HubSpot account (hub) id: the connector's tenant. */
  portalId: string;
  /** Deadline per HTTP call. Default 30 s. */
  fetchTimeoutMs?: number;
  /**
   * HubSpot's per-10-second limit, shared by every worker (see call-budget.ts): each call takes a slot
   * first. A budget that stays full ends the call with CrmRateLimitError, so the queue waits.
   */
  budget?: CallBudget;
  /** Group of the company properties `ensureFields` creates. Default buyer_intel / Buyer Intelligence. */
  propertyGroup?: { name: string; label: string };
  /** Called after every HTTP call (metrics, logs). Must not throw; errors are swallowed. */
  onCall?: (event: HubSpotCallEvent) => void;
}

export const DEFAULT_PROPERTY_GROUP = { name: 'buyer_intel', label: 'Buyer Intelligence' } as const;
export const DEFAULT_FETCH_TIMEOUT_MS = 30_000;
/** HubSpot's batch limit for object writes and reads. */
export const HUBSPOT_BATCH_LIMIT = 100;
/** note → company, HUBSPOT_DEFINED (company → note is 189). */
const NOTE_TO_COMPANY_TYPE_ID = 190;
/** The largest page of the v4 association list. */
const ASSOCIATION_PAGE_SIZE = 500;
const ACCOUNT_PROPERTIES = ['name', 'state', 'city', 'domain', 'website'] as const;

type Crm = Client['crm'];
type PropertyCreate = Parameters<Crm['properties']['coreApi']['createWithHttpInfo']>[1];
type NotesBatchCreate = Parameters<Crm['objects']['notes']['batchApi']['createWithHttpInfo']>[0];
type NoteCreateInput = NotesBatchCreate['inputs'][number];
type AssociationCategory = NonNullable<
  NoteCreateInput['associations']
>[number]['types'][number]['associationCategory'];

/** What the SDK's `…WithHttpInfo` methods resolve with. */
interface HttpAnswer<T> {
  httpStatusCode: number;
  data: T;
}

/** A 207 error (StandardError) or the like, read without trusting its shape. */
interface BatchError {
  category?: unknown;
  message?: unknown;
  context?: unknown;
  errors?: unknown;
}

interface BatchAnswer {
  results?: { id?: unknown; objectWriteTraceId?: unknown; properties?: Record<string, string | null> }[];
  errors?: BatchError[];
}

class DeadlineExceeded extends Error {}

const emptyToNull = (value: string | null | undefined): string | null =>
  value === undefined || value === null || value === '' ? null : value;

/** The ISO timestamp HubSpot expects for hs_timestamp (passed through unchanged when unparseable). */
function toSnapshot(
  id: string,
  properties: Record<string, string | null>,
  fieldNames: readonly string[],
): AccountSnapshot {
  const fields: Record<string, string | null> = {};
  for (const name of fieldNames) fields[name] = emptyToNull(properties[name]);
  return {
    id,
    name: emptyToNull(properties.name),
    state: emptyToNull(properties.state),
    city: emptyToNull(properties.city),
    website: emptyToNull(properties.website) ?? emptyToNull(properties.domain),
    fields,
  };
}

function noteTimestamp(occurredAt: string): string {
  const ms = Date.parse(occurredAt);
  return Number.isNaN(ms) ? occurredAt : new Date(ms).toISOString();
}

export function createHubSpotConnector(options: HubSpotConnectorOptions): CrmConnector {
  if (!options.accessToken) throw new Error('createHubSpotConnector: accessToken is required');
  if (!options.portalId) throw new Error('createHubSpotConnector: portalId is required');
  const timeoutMs = options.fetchTimeoutMs ?? DEFAULT_FETCH_TIMEOUT_MS;
  const group = options.propertyGroup ?? DEFAULT_PROPERTY_GROUP;
  const redact = redactor(options.accessToken);
  const basePath = options.basePath?.replace(/\/+$/, '');

  const client = new Client({
    accessToken: options.accessToken,
    ...(basePath ? { basePath } : {}),
    numberOfApiCallRetries: 0,
  });
  // The SDK keeps its decorators (retries, limiter) in a process-wide singleton and applies them when an
  // API object is first built. Build ours now, right after `new Client` set "none", so a Client created
  // elsewhere later cannot add retries or a limiter to this connector's calls.
  const companiesApi = client.crm.companies;
  const notesApi = client.crm.objects.notes;
  const associationsApi = client.crm.associations.v4;
  const propertiesApi = client.crm.properties;

  const report = (event: HubSpotCallEvent) => {
    try {
      options.onCall?.(event);
    } catch {
      // A metrics hook must not turn a successful write into a failure.
    }
  };

  /** One HTTP call: deadline, onCall, and the SDK's failure as a connector error. */
  async function call<T>(
    operation: string,
    send: () => Promise<HttpAnswer<T>>,
  ): Promise<{ status: number; data: T }> {
    if (options.budget) {
      try {
        await options.budget.take();
      } catch (err) {
        if (err instanceof CallBudgetTimeout)
          throw new CrmRateLimitError(
            `HubSpot call budget full before ${operation}`,
            err.retryAfterMs,
            'CALL_BUDGET',
          );
        throw err;
      }
    }
    const started = performance.now();
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new DeadlineExceeded()), timeoutMs);
      timer.unref();
    });
    try {
      const answer = await Promise.race([send(), deadline]);
      report({ operation, status: answer.httpStatusCode, durationMs: performance.now() - started });
      return { status: answer.httpStatusCode, data: answer.data };
    } catch (err) {
      const durationMs = performance.now() - started;
      report({ operation, status: isApiFailure(err) ? err.code : 'network', durationMs });
      if (err instanceof DeadlineExceeded) {
        throw new HubSpotTransientError(`HubSpot ${operation} did not answer within ${timeoutMs} ms`, {
          operation,
        });
      }
      throw toConnectorError(operation, err, redact);
    } finally {
      clearTimeout(timer);
    }
  }

  const isStatus = (err: unknown, status: number): err is HubSpotRequestError =>
    err instanceof HubSpotRequestError && err.status === status;

  // --- accounts ------------------------------------------------------------------------------------

  async function getAccount(accountId: string, fieldNames: readonly string[]): Promise<AccountSnapshot> {
    const names = [...new Set([...ACCOUNT_PROPERTIES, ...fieldNames])];
    let properties: Record<string, string | null>;
    try {
      const { data } = await call('crm.companies.basicApi.getById', () =>
        companiesApi.basicApi.getByIdWithHttpInfo(accountId, names),
      );
      properties = data.properties ?? {};
    } catch (err) {
      if (isStatus(err, 404)) {
        throw new AccountNotFoundError(accountId, `HubSpot company ${accountId} not found`);
      }
      throw err;
    }
    return toSnapshot(accountId, properties, fieldNames);
  }

  async function listAccounts(
    fieldNames: readonly string[],
    page: { after?: string | null; limit?: number } = {},
  ): Promise<AccountPage> {
    const names = [...new Set([...ACCOUNT_PROPERTIES, ...fieldNames])];
    const limit = Math.min(Math.max(page.limit ?? HUBSPOT_BATCH_LIMIT, 1), HUBSPOT_BATCH_LIMIT);
    const { data } = await call('crm.companies.basicApi.getPage', () =>
      companiesApi.basicApi.getPageWithHttpInfo(limit, page.after ?? undefined, names),
    );
    return {
      accounts: data.results.map((c) => toSnapshot(c.id, c.properties ?? {}, fieldNames)),
      next: data.paging?.next?.after ?? null,
    };
  }

  async function updateAccounts(updates: readonly AccountUpdate[]): Promise<UpdateResult[]> {
    if (updates.length === 0) return [];
    if (updates.length > HUBSPOT_BATCH_LIMIT) {
      throw new RangeError(
        `updateAccounts takes at most ${HUBSPOT_BATCH_LIMIT} updates, got ${updates.length}`,
      );
    }
    // HubSpot rejects a whole batch that names an id twice: merge updates of one account (later wins).
    const records: { accountId: string; properties: Record<string, string> }[] = [];
    const recordOf = new Map<string, number>();
    for (const update of updates) {
      let index = recordOf.get(update.accountId);
      if (index === undefined) {
        index = records.length;
        recordOf.set(update.accountId, index);
        records.push({ accountId: update.accountId, properties: {} });
      }
      const record = records[index];
      if (!record) continue;
      // HubSpot clears a property with "".
      for (const [name, value] of Object.entries(update.fields)) record.properties[name] = value ?? '';
    }

    const outcomes = await writeRecords(records);
    return updates.map((update) => {
      const failure = outcomes[recordOf.get(update.accountId) ?? -1];
      return failure
        ? { accountId: update.accountId, ok: false, error: failure }
        : { accountId: update.accountId, ok: true };
    });
  }

  /** One batch update; per record: undefined = written, or why not. */
  async function writeRecords(
    records: { accountId: string; properties: Record<string, string> }[],
  ): Promise<(WriteFailure | undefined)[]> {
    // objectWriteTraceId on every input makes HubSpot report invalid values per record (207) instead
    // of refusing the whole batch; it is how a 207 error names the input it belongs to.
    const inputs = records.map((r, i) => ({
      id: r.accountId,
      properties: r.properties,
      objectWriteTraceId: String(i),
    }));
    let answer: { status: number; data: BatchAnswer };
    try {
      answer = await call('crm.companies.batchApi.update', () =>
        companiesApi.batchApi.updateWithHttpInfo({ inputs }),
      );
    } catch (err) {
      if (err instanceof HubSpotRequestError) return wholeBatchRefused(err, records);
      throw err;
    }

    const failures = new Map<number, WriteFailure>();
    const unattributed: WriteFailure[] = [];
    for (const error of answer.data.errors ?? []) {
      const context = errorContext(error);
      let attributed = false;
      for (const traceId of context.objectWriteTraceId ?? []) {
        const index = Number(traceId);
        if (Number.isInteger(index) && records[index]) {
          failures.set(index, recordFailure(error));
          attributed = true;
        }
      }
      for (const id of context.ids ?? []) {
        const index = records.findIndex((r) => r.accountId === id);
        if (index >= 0) {
          failures.set(index, recordFailure(error, `HubSpot company ${id}`));
          attributed = true;
        }
      }
      if (!attributed) unattributed.push(recordFailure(error));
    }
    const written = new Set<string>();
    for (const result of answer.data.results ?? []) {
      if (typeof result.id === 'string') written.add(result.id);
      const index = Number(result.objectWriteTraceId);
      const record = typeof result.objectWriteTraceId === 'string' ? records[index] : undefined;
      if (record) written.add(record.accountId);
    }
    return records.map((record, index) => {
      const failure = failures.get(index);
      if (failure) return failure;
      if (answer.status === 200 || written.has(record.accountId)) return undefined;
      return (
        unattributed[0] ?? {
          status: undefined,
          message: `HubSpot's batch answer (${answer.status}) did not report company ${record.accountId}`,
          permanent: false,
        }
      );
    });
  }

  /**
   * A 4xx for the whole batch. Records that carry a rejected property fail permanently (the message
   * names it); the others were refused only for their company, so they may be sent again. A batch of
   * one is its own culprit.
   */
  function wholeBatchRefused(
    err: HubSpotRequestError,
    records: { accountId: string; properties: Record<string, string> }[],
  ): WriteFailure[] {
    const rejected = err.rejectedProperties;
    return records.map((record) => {
      const own = rejected.filter((p) => Object.hasOwn(record.properties, p.name));
      if (own.length) {
        return {
          status: err.status,
          message: `HubSpot rejected ${describeProperties(own)}`,
          permanent: true,
        };
      }
      const reason = rejected.length ? `HubSpot rejected ${describeProperties(rejected)}` : err.message;
      return {
        status: err.status,
        message: records.length === 1 ? reason : `not written: HubSpot refused the whole batch (${reason})`,
        permanent: records.length === 1,
      };
    });
  }

  // --- notes ---------------------------------------------------------------------------------------

  function createNotes(drafts: readonly NoteDraft[]): Promise<NoteResult[]> {
    return createNotesOnce(drafts, HUBSPOT_BATCH_LIMIT, createUnique);
  }

  async function createUnique(unique: NoteDraft[]): Promise<NoteOutcome[]> {
    const category = 'HUBSPOT_DEFINED' as AssociationCategory;
    const inputs: NoteCreateInput[] = unique.map((draft, i) => ({
      properties: { hs_timestamp: noteTimestamp(draft.occurredAt), hs_note_body: renderNoteHtml(draft) },
      associations: [
        {
          to: { id: draft.accountId },
          types: [{ associationCategory: category, associationTypeId: NOTE_TO_COMPANY_TYPE_ID }],
        },
      ],
      objectWriteTraceId: String(i),
    }));

    let outcomes: NoteOutcome[];
    try {
      const answer = await call('crm.objects.notes.batchApi.create', () =>
        notesApi.batchApi.createWithHttpInfo({ inputs }),
      );
      outcomes = matchCreated(unique, answer.data, answer.status);
    } catch (err) {
      if (!(err instanceof HubSpotRequestError)) throw err;
      outcomes = notesRefused(err, unique);
    }
    return outcomes;
  }

  /** Pairs a batch create's results and errors with its inputs. */
  function matchCreated(
    notes: NoteDraft[],
    data: BatchAnswer,
    status: number,
  ): ({ noteId: string } | WriteFailure)[] {
    const outcomes: ({ noteId: string } | WriteFailure | undefined)[] = notes.map(() => undefined);
    const unattributed: WriteFailure[] = [];
    for (const error of data.errors ?? []) {
      let attributed = false;
      for (const traceId of errorContext(error).objectWriteTraceId ?? []) {
        const index = Number(traceId);
        if (Number.isInteger(index) && index >= 0 && index < notes.length) {
          outcomes[index] = noteFailure(error, notes[index]?.accountId);
          attributed = true;
        }
      }
      if (!attributed) unattributed.push(noteFailure(error, undefined));
    }
    const open = (index: number) => outcomes[index] === undefined;
    const leftovers: string[] = [];
    for (const result of data.results ?? []) {
      if (typeof result.id !== 'string') continue;
      // HubSpot echoes objectWriteTraceId on results; without it, our marker in the body says which.
      let index = typeof result.objectWriteTraceId === 'string' ? Number(result.objectWriteTraceId) : -1;
      if (!(Number.isInteger(index) && index >= 0 && index < notes.length && open(index))) {
        const keys = extractNoteKeys(result.properties?.hs_note_body);
        index = notes.findIndex((n, i) => open(i) && keys.includes(n.dedupeKey));
      }
      if (index >= 0) outcomes[index] = { noteId: result.id };
      else leftovers.push(result.id);
    }
    // Anything still unmatched pairs up in input order (HubSpot answers in input order in practice).
    return outcomes.map((outcome) => {
      if (outcome) return outcome;
      const noteId = leftovers.shift();
      if (noteId) return { noteId };
      return (
        unattributed[0] ?? {
          status: undefined,
          message: `HubSpot's batch answer (${status}) did not report this note`,
          permanent: false,
        }
      );
    });
  }

  /** A 4xx for the whole note batch: notes for companies HubSpot named as invalid fail for good. */
  function notesRefused(err: HubSpotRequestError, notes: NoteDraft[]): WriteFailure[] {
    const invalidCompanies = invalidCompanyIds(err.context);
    return notes.map((note) => {
      if (invalidCompanies.has(note.accountId)) {
        return {
          status: err.status,
          message: `HubSpot company ${note.accountId} does not exist: ${err.hubspotMessage || err.message}`,
          permanent: true,
        };
      }
      return {
        status: err.status,
        message:
          notes.length === 1 ? err.message : `not created: HubSpot refused the whole batch (${err.message})`,
        permanent: notes.length === 1 && invalidCompanies.size === 0,
      };
    });
  }

  async function existingNoteKeys(accountId: string): Promise<Set<string>> {
    const noteIds = new Set<string>();
    const seenCursors = new Set<string>();
    let after: string | undefined;
    do {
      const cursor = after;
      let page: { results?: { toObjectId?: unknown }[]; paging?: { next?: { after?: string } } };
      try {
        ({ data: page } = await call('crm.associations.v4.basicApi.getPage', () =>
          associationsApi.basicApi.getPageWithHttpInfo(
            'companies',
            accountId,
            'notes',
            cursor,
            ASSOCIATION_PAGE_SIZE,
          ),
        ));
      } catch (err) {
        if (isStatus(err, 404))
          throw new AccountNotFoundError(accountId, `HubSpot company ${accountId} not found`);
        throw err;
      }
      for (const association of page.results ?? []) {
        if (association.toObjectId !== undefined && association.toObjectId !== null) {
          noteIds.add(String(association.toObjectId));
        }
      }
      after = page.paging?.next?.after;
      if (after !== undefined) {
        if (seenCursors.has(after)) break;
        seenCursors.add(after);
      }
    } while (after !== undefined);

    const keys = new Set<string>();
    const ids = [...noteIds];
    for (let start = 0; start < ids.length; start += HUBSPOT_BATCH_LIMIT) {
      const chunk = ids.slice(start, start + HUBSPOT_BATCH_LIMIT);
      // A 207 lists notes deleted since the association was read: they hold no key any more.
      const { data } = await call('crm.objects.notes.batchApi.read', () =>
        notesApi.batchApi.readWithHttpInfo(
          { inputs: chunk.map((id) => ({ id })), properties: ['hs_note_body'], propertiesWithHistory: [] },
          false,
        ),
      );
      for (const note of data.results ?? []) {
        for (const key of extractNoteKeys(note.properties?.hs_note_body)) keys.add(key);
      }
    }
    return keys;
  }

  // --- fields --------------------------------------------------------------------------------------

  async function ensureFields(definitions: readonly FieldDefinition[]): Promise<EnsureFieldsResult> {
    try {
      await call('crm.properties.groupsApi.create', () =>
        propertiesApi.groupsApi.createWithHttpInfo('companies', {
          name: group.name,
          label: group.label,
          displayOrder: -1,
        }),
      );
    } catch (err) {
      if (!isStatus(err, 409)) throw err; // 409: the group exists
    }
    const { data } = await call('crm.properties.coreApi.getAll', () =>
      propertiesApi.coreApi.getAllWithHttpInfo('companies', false),
    );
    const existingNames = new Set((data.results ?? []).map((p) => p.name));
    const created: string[] = [];
    const existing: string[] = [];
    const seen = new Set<string>();
    for (const definition of definitions) {
      if (seen.has(definition.name)) continue;
      seen.add(definition.name);
      if (existingNames.has(definition.name)) {
        existing.push(definition.name);
        continue;
      }
      const def = toPropertyDefinition(definition, group.name);
      const property: PropertyCreate = {
        ...def,
        type: def.type as PropertyCreate['type'],
        fieldType: def.fieldType as PropertyCreate['fieldType'],
      };
      try {
        await call('crm.properties.coreApi.create', () =>
          propertiesApi.coreApi.createWithHttpInfo('companies', property),
        );
        created.push(definition.name);
      } catch (err) {
        if (!isStatus(err, 409)) throw err; // created meanwhile by someone else
        existing.push(definition.name);
      }
    }
    return { created, existing };
  }

  return {
    kind: 'hubspot',
    tenant: options.portalId,
    maxUpdateBatch: HUBSPOT_BATCH_LIMIT,
    maxNoteBatch: HUBSPOT_BATCH_LIMIT,
    getAccount,
    listAccounts,
    updateAccounts,
    existingNoteKeys,
    createNotes,
    ensureFields,
  };

  // --- failures of single records ------------------------------------------------------------------

  /**
   * A 207 error as one record's failure. Permanent: the company does not exist, or HubSpot named the
   * property it rejects (unknown, read-only, a value it can never take). Anything else may pass later.
   */
  function recordFailure(error: BatchError, subject?: string): WriteFailure {
    const category = typeof error.category === 'string' ? error.category : undefined;
    const message = redact(typeof error.message === 'string' ? error.message : 'HubSpot reported an error');
    if (category === 'OBJECT_NOT_FOUND') {
      return {
        status: 404,
        message: `${subject ?? 'HubSpot company'} not found (deleted or never existed): ${message}`,
        permanent: true,
      };
    }
    const rejected: RejectedProperty[] = rejectedProperties(error).map((p) => ({
      ...p,
      message: redact(p.message),
    }));
    if (rejected.length) {
      return { status: 400, message: `HubSpot rejected ${describeProperties(rejected)}`, permanent: true };
    }
    return {
      status: category === 'VALIDATION_ERROR' ? 400 : undefined,
      message: `${category ?? 'error'}: ${message}`,
      permanent: false,
    };
  }

  /** A 207 error of a note create: a missing company is permanent (it would never take the note). */
  function noteFailure(error: BatchError, accountId: string | undefined): WriteFailure {
    const context = errorContext(error);
    const invalid = invalidCompanyIds(context);
    // Each note has one association, to its company: "associations are invalid" means the company is gone.
    const badAssociation =
      error.category === 'VALIDATION_ERROR' &&
      typeof error.message === 'string' &&
      /association/i.test(error.message) &&
      rejectedProperties(error).length === 0;
    if (accountId && (invalid.has(accountId) || error.category === 'OBJECT_NOT_FOUND' || badAssociation)) {
      const message = redact(typeof error.message === 'string' ? error.message : '');
      return {
        status: 400,
        message: `HubSpot company ${accountId} does not exist: ${message}`,
        permanent: true,
      };
    }
    return recordFailure(error);
  }
}

/** Company ids from HubSpot's INVALID_OBJECT_IDS context ("COMPANY=123 is not valid"). */
function invalidCompanyIds(context: Record<string, string[]>): Set<string> {
  const ids = new Set<string>();
  for (const entry of context.INVALID_OBJECT_IDS ?? []) {
    const id = /COMPANY=(\d+)/i.exec(entry)?.[1];
    if (id) ids.add(id);
  }
  return ids;
}
