// Change Data Capture events as Salesforce delivers them over CometD: every create, update or delete of
// an Account becomes `{schema, payload: {ChangeEventHeader, …fields}, event: {replayId}}` on
// /data/AccountChangeEvent. Replay ids only grow; events are kept for the retention window (72 hours)
// and up to a maximum count, oldest dropped first. The payload follows the CometD (JSON) form: a CREATE
// carries every non-null field, an UPDATE only the changed ones (named in changedFields, with
// LastModifiedDate), a DELETE only the header. Address parts are nested under the compound field
// (BillingAddress.City), dates are ISO 8601 in UTC, and Id, SystemModstamp and IsDeleted are never sent.
import { createHash, randomUUID } from 'node:crypto';
import type { FieldValue } from './field-types.ts';
import type { ChangeKind, SalesforceStore, SObjectRecord } from './store.ts';

export const ACCOUNT_CHANGE_CHANNEL = '/data/AccountChangeEvent';

export type ChangeType = 'CREATE' | 'UPDATE' | 'DELETE' | 'UNDELETE';

export interface ChangeEventHeader {
  entityName: string;
  recordIds: string[];
  changeType: ChangeType;
  changeOrigin: string;
  transactionKey: string;
  sequenceNumber: number;
  commitTimestamp: number;
  commitNumber: number;
  commitUser: string;
  changedFields: string[];
  nulledFields: string[];
  diffFields: string[];
}

export interface ChangeEventData {
  schema: string;
  payload: { ChangeEventHeader: ChangeEventHeader; [field: string]: unknown };
  event: { replayId: number };
}

export interface RetainedEvent {
  channel: string;
  replayId: number;
  /** When it was committed (ms since epoch), for retention. */
  committedAt: number;
  data: ChangeEventData;
}

export interface ChangeEventSettings {
  /** How long events can be replayed. Default 72 hours. */
  retentionMs?: number;
  /** Most events kept; the oldest go first. Default 100,000. */
  maxEvents?: number;
  /** Clock, for tests. */
  now?: () => number;
}

const KIND_TO_TYPE: Record<ChangeKind, ChangeType> = {
  created: 'CREATE',
  updated: 'UPDATE',
  deleted: 'DELETE',
};
const NEVER_SENT = new Set(['Id', 'SystemModstamp', 'IsDeleted']);
const ADDRESS_PART = /^(Billing|Shipping)(Street|City|State|PostalCode|Country|Latitude|Longitude)$/;
const DATETIME = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}\+0000$/;

const eventValue = (v: FieldValue): FieldValue =>
  typeof v === 'string' && DATETIME.test(v) ? v.replace('+0000', 'Z') : v;

/** `BillingCity` → `BillingAddress.City`, as changedFields names address parts. */
function eventFieldName(field: string): string {
  const m = ADDRESS_PART.exec(field);
  return m ? `${m[1]}Address.${m[2]}` : field;
}

function putField(body: Record<string, unknown>, field: string, value: FieldValue): void {
  const m = ADDRESS_PART.exec(field);
  if (!m) {
    body[field] = eventValue(value);
    return;
  }
  const compound = `${m[1]}Address`;
  const existing = body[compound];
  const address = (typeof existing === 'object' && existing !== null ? existing : {}) as Record<
    string,
    unknown
  >;
  address[m[2] ?? ''] = eventValue(value);
  body[compound] = address;
}

export class ChangeEventLog {
  readonly events: RetainedEvent[] = [];
  retentionMs: number;
  maxEvents: number;
  readonly #store: SalesforceStore;
  readonly #now: () => number;
  readonly #listeners = new Set<() => void>();
  readonly #unsubscribe: () => void;
  #lastReplayId = 0;
  #commitNumber = 10_000_000_000;

  constructor(store: SalesforceStore, settings: ChangeEventSettings = {}) {
    this.#store = store;
    this.retentionMs = settings.retentionMs ?? 72 * 3600 * 1000;
    this.maxEvents = settings.maxEvents ?? 100_000;
    this.#now = settings.now ?? Date.now;
    this.#unsubscribe = store.onChange((kind, record, changed) => this.#record(kind, record, changed));
  }

  /** The newest replay id issued (0 before any event). */
  get lastReplayId(): number {
    return this.#lastReplayId;
  }

  /** Events still retained, oldest first. */
  retained(): RetainedEvent[] {
    this.#trim();
    return this.events;
  }

  /** Is `replayId` one of the retained events (the only ids a subscribe may resume after)? */
  isRetained(replayId: number): boolean {
    return this.retained().some((e) => e.replayId === replayId);
  }

  /** Calls `listener` after every new event; returns the way to stop. */
  onEvent(listener: () => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  close(): void {
    this.#unsubscribe();
    this.#listeners.clear();
  }

  /** Publishes `payload` as is, with the next replay id (tests: a malformed or unexpected event). */
  publishRaw(payload: Record<string, unknown>): RetainedEvent {
    const replayId = ++this.#lastReplayId;
    const event = {
      channel: ACCOUNT_CHANGE_CHANNEL,
      replayId,
      committedAt: this.#now(),
      data: { schema: this.#schemaId(), payload, event: { replayId } } as unknown as ChangeEventData,
    };
    this.#append(event);
    return event;
  }

  #append(event: RetainedEvent): void {
    this.events.push(event);
    this.#trim();
    for (const listener of this.#listeners) listener();
  }

  #trim(): void {
    const oldest = this.#now() - this.retentionMs;
    let drop = 0;
    while (drop < this.events.length && (this.events[drop]?.committedAt ?? 0) < oldest) drop++;
    drop = Math.max(drop, this.events.length - this.maxEvents);
    if (drop > 0) this.events.splice(0, drop);
  }

  #record(kind: ChangeKind, record: SObjectRecord, changed: string[]): void {
    if (record.type !== 'Account') return;
    const committedAt = this.#now();
    const changeType = KIND_TO_TYPE[kind];
    const body: Record<string, unknown> = {};
    let changedFields: string[] = [];
    const nulledFields: string[] = [];
    if (changeType === 'CREATE') {
      for (const [field, value] of record.values)
        if (value !== null && !NEVER_SENT.has(field)) putField(body, field, value);
    } else if (changeType === 'UPDATE') {
      const fields = [...new Set([...changed, 'LastModifiedDate'])];
      for (const field of fields) {
        const value = record.values.get(field) ?? null;
        putField(body, field, value);
        if (value === null) nulledFields.push(eventFieldName(field));
      }
      changedFields = fields.map(eventFieldName);
    }
    const replayId = ++this.#lastReplayId;
    this.#append({
      channel: ACCOUNT_CHANGE_CHANNEL,
      replayId,
      committedAt,
      data: {
        schema: this.#schemaId(),
        payload: {
          ChangeEventHeader: {
            entityName: 'Account',
            recordIds: [record.id],
            changeType,
            changeOrigin: 'com/salesforce/api/rest/62.0',
            transactionKey: randomUUID(),
            sequenceNumber: 1,
            commitTimestamp: committedAt,
            commitNumber: ++this.#commitNumber,
            commitUser: this.#store.userId,
            changedFields,
            nulledFields,
            diffFields: [],
          },
          ...body,
        },
        event: { replayId },
      },
    });
  }

  /** The schema id changes when the Account's fields do (a custom field added), as Salesforce's does. */
  #schemaId(): string {
    return createHash('sha256')
      .update(this.#store.fields('Account').join(','))
      .digest('base64url')
      .slice(0, 22);
  }
}
