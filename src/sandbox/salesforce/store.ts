// An in-memory Salesforce org: Accounts and Tasks with 18-char ids, the standard fields the product uses,
// and custom fields (API names ending `__c`) defined at runtime. Field names are case-insensitive on the
// way in and stored under their defined spelling, as Salesforce does.

import {
  entityIsDeleted,
  invalidField,
  invalidFieldForInsertUpdate,
  malformedId,
  notFound,
  requiredFieldMissing,
  SalesforceError,
} from './errors.ts';
import { canonicalId, IdFactory, isWellFormedId, KEY_PREFIXES } from './ids.ts';

export type FieldValue = string | number | boolean | null;
export type SObjectType = 'Account' | 'Task';

interface FieldDef {
  name: string;
  /** Read-only: set by the system (Id, audit fields). */
  system?: boolean;
  required?: boolean;
  default?: FieldValue;
}

const AUDIT: FieldDef[] = [
  { name: 'OwnerId' },
  { name: 'CreatedDate', system: true },
  { name: 'LastModifiedDate', system: true },
  { name: 'SystemModstamp', system: true },
  { name: 'IsDeleted', system: true },
];

const STANDARD_FIELDS: Record<SObjectType, FieldDef[]> = {
  Account: [
    { name: 'Id', system: true },
    { name: 'Name', required: true },
    { name: 'Type' },
    { name: 'BillingCity' },
    { name: 'BillingState' },
    { name: 'Phone' },
    { name: 'Website' },
    { name: 'Industry' },
    { name: 'Description' },
    ...AUDIT,
  ],
  Task: [
    { name: 'Id', system: true },
    { name: 'WhatId' },
    { name: 'Subject' },
    { name: 'ActivityDate' },
    { name: 'Status', default: 'Not Started' },
    { name: 'Priority', default: 'Normal' },
    { name: 'Description' },
    ...AUDIT,
  ],
};

export const SOBJECT_TYPES: readonly SObjectType[] = ['Account', 'Task'];

export function resolveType(name: string): SObjectType | undefined {
  return SOBJECT_TYPES.find((t) => t.toLowerCase() === name.toLowerCase());
}

export interface SObjectRecord {
  type: SObjectType;
  id: string;
  values: Map<string, FieldValue>;
  deleted: boolean;
}

export type ChangeKind = 'created' | 'updated' | 'deleted';
export type ChangeListener = (kind: ChangeKind, record: SObjectRecord, changed: string[]) => void;

export interface StoreOptions {
  /** The org's 18-char id. Default a fixed sandbox value. */
  orgId?: string;
  /** The integration user's id (owner of created records). */
  userId?: string;
  /** Clock, for tests. */
  now?: () => Date;
}

/** Salesforce's REST datetime form: 2026-11-21T23:54:32.000+0000. */
export function formatDateTime(d: Date): string {
  return d.toISOString().replace('Z', '+0000');
}

export class SalesforceStore {
  readonly orgId: string;
  readonly userId: string;
  readonly ids = new IdFactory();
  readonly #now: () => Date;
  readonly #records = new Map<string, SObjectRecord>();
  readonly #custom: Record<SObjectType, FieldDef[]> = { Account: [], Task: [] };
  readonly #listeners: ChangeListener[] = [];

  constructor(options: StoreOptions = {}) {
    const ids = new IdFactory('5g', 0x1a2b3c);
    this.orgId = options.orgId ?? ids.next(KEY_PREFIXES.Organization);
    this.userId = options.userId ?? ids.next(KEY_PREFIXES.User);
    this.#now = options.now ?? (() => new Date());
  }

  onChange(listener: ChangeListener): () => void {
    this.#listeners.push(listener);
    return () => {
      const i = this.#listeners.indexOf(listener);
      if (i >= 0) this.#listeners.splice(i, 1);
    };
  }

  /** Defines a custom field (what the Metadata API's CustomField upsert does). Idempotent. */
  defineCustomField(type: SObjectType, name: string): string {
    if (!/^[A-Za-z](?:[A-Za-z0-9]|_(?!_))*__c$/.test(name) || name.slice(0, -3).includes('__'))
      throw new Error(`invalid custom field API name: ${name}`);
    const existing = this.#custom[type].find((f) => f.name.toLowerCase() === name.toLowerCase());
    if (existing) return existing.name;
    this.#custom[type].push({ name });
    return name;
  }

  fields(type: SObjectType): string[] {
    return [...STANDARD_FIELDS[type], ...this.#custom[type]].map((f) => f.name);
  }

  #def(type: SObjectType, name: string): FieldDef | undefined {
    const lower = name.toLowerCase();
    return [...STANDARD_FIELDS[type], ...this.#custom[type]].find((f) => f.name.toLowerCase() === lower);
  }

  /** The defined spelling of a field, or INVALID_FIELD. */
  fieldName(type: SObjectType, name: string): string {
    const def = this.#def(type, name);
    if (!def) throw invalidField(type, name);
    return def.name;
  }

  /** Checks values for a create or update; returns them under their defined spelling. */
  #writable(type: SObjectType, values: Record<string, unknown>): Map<string, FieldValue> {
    const out = new Map<string, FieldValue>();
    const readOnly: string[] = [];
    for (const [key, value] of Object.entries(values)) {
      const def = this.#def(type, key);
      if (!def) throw invalidField(type, key);
      if (def.system) {
        readOnly.push(def.name);
        continue;
      }
      if (value !== null && !['string', 'number', 'boolean'].includes(typeof value))
        throw new SalesforceError(400, [
          {
            message: `Cannot deserialize instance of ${def.name} from ${Array.isArray(value) ? 'START_ARRAY' : 'START_OBJECT'} value`,
            errorCode: 'JSON_PARSER_ERROR',
          },
        ]);
      out.set(def.name, value as FieldValue);
    }
    if (readOnly.length) throw invalidFieldForInsertUpdate(readOnly);
    return out;
  }

  /** Throws the error a create would answer, without writing (allOrNone checks). */
  validateCreate(type: SObjectType, values: Record<string, unknown>): Map<string, FieldValue> {
    const given = this.#writable(type, values);
    const missing = [...STANDARD_FIELDS[type], ...this.#custom[type]]
      .filter((f) => f.required && (given.get(f.name) ?? '') === '')
      .map((f) => f.name);
    if (missing.length) throw requiredFieldMissing(missing);
    return given;
  }

  /** Throws the error an update would answer, without writing (allOrNone checks). */
  validateUpdate(type: SObjectType, id: string, values: Record<string, unknown>): Map<string, FieldValue> {
    this.find(type, id);
    const given = this.#writable(type, values);
    const required = [...STANDARD_FIELDS[type], ...this.#custom[type]].filter((f) => f.required);
    const blanked = required.filter((f) => given.has(f.name) && (given.get(f.name) ?? '') === '');
    if (blanked.length) throw requiredFieldMissing(blanked.map((f) => f.name));
    return given;
  }

  create(type: SObjectType, values: Record<string, unknown>): SObjectRecord {
    const given = this.validateCreate(type, values);
    const id = this.ids.next(KEY_PREFIXES[type]);
    const now = formatDateTime(this.#now());
    const record: SObjectRecord = { type, id, values: new Map(), deleted: false };
    for (const name of this.fields(type)) {
      const def = this.#def(type, name);
      record.values.set(name, def?.default ?? null);
    }
    for (const [k, v] of given) record.values.set(k, v);
    record.values.set('Id', id);
    if (record.values.get('OwnerId') === null) record.values.set('OwnerId', this.userId);
    record.values.set('CreatedDate', now);
    record.values.set('LastModifiedDate', now);
    record.values.set('SystemModstamp', now);
    record.values.set('IsDeleted', false);
    this.#records.set(id, record);
    this.#emit('created', record, [...given.keys()]);
    return record;
  }

  /** A live record by id (15 or 18 chars); MALFORMED_ID, NOT_FOUND or ENTITY_IS_DELETED otherwise. */
  find(type: SObjectType, id: string): SObjectRecord {
    if (!isWellFormedId(id)) throw malformedId(type, id);
    const record = this.#records.get(canonicalId(id));
    if (!record || record.type !== type) throw notFound();
    if (record.deleted) throw entityIsDeleted();
    return record;
  }

  update(type: SObjectType, id: string, values: Record<string, unknown>): SObjectRecord {
    const given = this.validateUpdate(type, id, values);
    const record = this.find(type, id);
    const changed: string[] = [];
    for (const [k, v] of given) {
      if (record.values.get(k) !== v) changed.push(k);
      record.values.set(k, v);
    }
    const now = formatDateTime(this.#now());
    record.values.set('LastModifiedDate', now);
    record.values.set('SystemModstamp', now);
    this.#emit('updated', record, changed);
    return record;
  }

  delete(type: SObjectType, id: string): void {
    const record = this.find(type, id);
    record.deleted = true;
    record.values.set('IsDeleted', true);
    record.values.set('SystemModstamp', formatDateTime(this.#now()));
    this.#emit('deleted', record, []);
  }

  /** Live records of a type, in id order (ids grow with creation). */
  list(type: SObjectType): SObjectRecord[] {
    return [...this.#records.values()]
      .filter((r) => r.type === type && !r.deleted)
      .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  }

  #emit(kind: ChangeKind, record: SObjectRecord, changed: string[]): void {
    for (const l of this.#listeners) l(kind, record, changed);
  }
}
