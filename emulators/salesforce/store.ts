// An in-memory Salesforce org: Accounts, Tasks and Salesforce Files/Notes (ContentDocument, ContentVersion,
// ContentDocumentLink and the ContentNote view over them) with 18-char ids, the standard fields the product
// uses, and custom fields (API names ending `__c`) defined at runtime on the objects that allow them. Field
// names are case-insensitive on the way in and stored under their defined spelling, as Salesforce does.
//
// Files: a ContentDocument (069) is never inserted directly; inserting a ContentVersion (068) without a
// ContentDocumentId, or a ContentNote, creates one, plus a ContentDocumentLink (06A) to the owner
// (ShareType 'I'). A ContentNote is the document of FileType SNOTE seen through its latest version: it
// has the document's id, and updating its Title or Content adds a version (IsLatest moves to it).
// Deleting the note or the document deletes its versions and links. base64 fields (Content,
// VersionData) are kept as base64 text.

import {
  badPicklistValue,
  entityIsDeleted,
  invalidCrossReferenceKey,
  invalidField,
  invalidFieldForInsertUpdate,
  invalidTypeForOperation,
  malformedId,
  malformedReference,
  notFound,
  referenceIsDeleted,
  requiredFieldMissing,
  SalesforceError,
} from './errors.ts';
import {
  checkFieldValue,
  DeserializeError,
  type FieldSpec,
  type FieldValue,
  TEXT_255,
} from './field-types.ts';
import { canonicalId, IdFactory, isWellFormedId, KEY_PREFIXES } from './ids.ts';

export type SObjectType =
  | 'Account'
  | 'Task'
  | 'ContentNote'
  | 'ContentDocument'
  | 'ContentVersion'
  | 'ContentDocumentLink'
  | 'User';

interface FieldDef {
  name: string;
  /** Read-only: set by the system (Id, audit fields). */
  system?: boolean;
  /** Set on create, read-only afterwards. */
  createOnly?: boolean;
  /** A base64 field: REST answers carry a URL to the blob instead of the value. */
  base64?: boolean;
  required?: boolean;
  default?: FieldValue;
  /** What the field accepts (field-types.ts); none: checked by the store's own rules (ids, base64). */
  spec?: FieldSpec;
  /** The field's label, as errors name it. Default: its API name. */
  label?: string;
}

const text = (length: number): FieldSpec => ({ kind: 'text', length });
const openPicklist: FieldSpec = { kind: 'picklist', values: [], restricted: false };

const DATETIME: FieldSpec = { kind: 'datetime' };
const AUDIT: FieldDef[] = [
  { name: 'OwnerId' },
  { name: 'CreatedDate', system: true, spec: DATETIME },
  { name: 'LastModifiedDate', system: true, spec: DATETIME },
  { name: 'SystemModstamp', system: true, spec: DATETIME },
  { name: 'IsDeleted', system: true },
];

/** A Task's IsClosed follows its Status (the default TaskStatus picklist closes only `Completed`). */
function deriveClosed(record: { type: SObjectType; values: Map<string, FieldValue> }): void {
  if (record.type === 'Task') record.values.set('IsClosed', record.values.get('Status') === 'Completed');
}

const STANDARD_FIELDS: Record<SObjectType, FieldDef[]> = {
  Account: [
    { name: 'Id', system: true },
    { name: 'Name', required: true, spec: TEXT_255, label: 'Account Name' },
    { name: 'Type', spec: openPicklist, label: 'Account Type' },
    { name: 'BillingCity', spec: text(40), label: 'Billing City' },
    { name: 'BillingState', spec: text(80), label: 'Billing State/Province' },
    { name: 'BillingPostalCode', spec: text(20), label: 'Billing Zip/Postal Code' },
    // A textarea(255) in Salesforce: text of that length, line breaks allowed.
    { name: 'BillingStreet', spec: text(255), label: 'Billing Street' },
    { name: 'Phone', spec: text(40), label: 'Account Phone' },
    { name: 'Website', spec: TEXT_255, label: 'Website' },
    { name: 'Industry', spec: openPicklist, label: 'Industry' },
    { name: 'Description', spec: text(32_000), label: 'Account Description' },
    ...AUDIT,
  ],
  Task: [
    { name: 'Id', system: true },
    { name: 'WhatId' },
    { name: 'Subject', spec: TEXT_255, label: 'Subject' },
    { name: 'ActivityDate', spec: { kind: 'date' }, label: 'Due Date Only' },
    // Task Status and Priority are restricted standard picklists (TaskStatus, TaskPriority) with these
    // default values in a new org.
    {
      name: 'Status',
      default: 'Not Started',
      label: 'Status',
      spec: {
        kind: 'picklist',
        values: ['Not Started', 'In Progress', 'Completed', 'Waiting on someone else', 'Deferred'],
        restricted: true,
      },
    },
    {
      name: 'Priority',
      default: 'Normal',
      label: 'Priority',
      spec: { kind: 'picklist', values: ['High', 'Normal', 'Low'], restricted: true },
    },
    { name: 'Description', spec: text(32_000), label: 'Comments' },
    // Read-only, derived from Status: true for a status marked closed (in a new org, Completed only).
    { name: 'IsClosed', system: true, default: false },
    ...AUDIT,
  ],
  ContentNote: [
    { name: 'Id', system: true },
    { name: 'Title', required: true, spec: TEXT_255, label: 'Title' },
    { name: 'Content', base64: true },
    { name: 'TextPreview', system: true },
    { name: 'FileType', system: true },
    { name: 'FileExtension', system: true },
    { name: 'ContentSize', system: true },
    { name: 'ContentModifiedDate', system: true, spec: DATETIME },
    { name: 'IsReadOnly', system: true },
    { name: 'LatestContentId', system: true },
    { name: 'LatestPublishedVersionId', system: true },
    { name: 'SharingPrivacy', createOnly: true },
    { name: 'OwnerId', createOnly: true },
    { name: 'CreatedDate', system: true, spec: DATETIME },
    { name: 'LastModifiedDate', system: true, spec: DATETIME },
    { name: 'IsDeleted', system: true },
  ],
  ContentDocument: [
    { name: 'Id', system: true },
    { name: 'Title', system: true },
    { name: 'FileType', system: true },
    { name: 'FileExtension', system: true },
    { name: 'ContentSize', system: true },
    { name: 'ContentModifiedDate', system: true, spec: DATETIME },
    { name: 'LatestPublishedVersionId', system: true },
    { name: 'PublishStatus', system: true },
    { name: 'SharingPrivacy', system: true },
    { name: 'IsArchived', system: true },
    { name: 'OwnerId', system: true },
    { name: 'CreatedDate', system: true, spec: DATETIME },
    { name: 'LastModifiedDate', system: true, spec: DATETIME },
    { name: 'SystemModstamp', system: true, spec: DATETIME },
    { name: 'IsDeleted', system: true },
  ],
  ContentVersion: [
    { name: 'Id', system: true },
    { name: 'ContentDocumentId', createOnly: true },
    { name: 'Title', spec: TEXT_255, label: 'Title' },
    { name: 'Description', spec: text(1000), label: 'Description' },
    { name: 'PathOnClient', createOnly: true },
    { name: 'VersionData', createOnly: true, base64: true },
    { name: 'FirstPublishLocationId', createOnly: true },
    { name: 'FileType', system: true },
    { name: 'FileExtension', system: true },
    { name: 'IsLatest', system: true },
    { name: 'IsMajorVersion', system: true },
    { name: 'VersionNumber', system: true },
    { name: 'ContentSize', system: true },
    { name: 'ContentModifiedDate', system: true, spec: DATETIME },
    ...AUDIT,
  ],
  // The users of the org (who own records). Name is the compound of FirstName and LastName. Creating
  // one through the API also needs Alias, ProfileId, TimeZoneSidKey and the locale keys in Salesforce:
  // this emulator asks for Username, LastName and Email only.
  User: [
    { name: 'Id', system: true },
    { name: 'Username', required: true, spec: text(80), label: 'Username' },
    { name: 'FirstName', spec: text(40), label: 'First Name' },
    { name: 'LastName', required: true, spec: text(80), label: 'Last Name' },
    { name: 'Name', system: true },
    { name: 'Email', required: true, spec: text(128), label: 'Email' },
    { name: 'IsActive', spec: { kind: 'checkbox', default: true }, default: true, label: 'Active' },
    { name: 'CreatedDate', system: true, spec: DATETIME },
    { name: 'LastModifiedDate', system: true, spec: DATETIME },
    { name: 'SystemModstamp', system: true, spec: DATETIME },
  ],
  ContentDocumentLink: [
    { name: 'Id', system: true },
    { name: 'ContentDocumentId', createOnly: true, required: true },
    { name: 'LinkedEntityId', createOnly: true, required: true },
    { name: 'ShareType', required: true },
    { name: 'Visibility' },
    { name: 'SystemModstamp', system: true, spec: DATETIME },
    { name: 'IsDeleted', system: true },
  ],
};

export const SOBJECT_TYPES: readonly SObjectType[] = [
  'Account',
  'Task',
  'ContentNote',
  'ContentDocument',
  'ContentVersion',
  'ContentDocumentLink',
  'User',
];

/** Objects that take custom fields (ContentNote, ContentDocument and ContentDocumentLink do not). */
const CUSTOMIZABLE: readonly SObjectType[] = ['Account', 'Task', 'ContentVersion'];
export function supportsCustomFields(type: SObjectType): boolean {
  return CUSTOMIZABLE.includes(type);
}

/** Whether a field of a type is base64 (standard fields only; custom base64 fields do not exist). */
export function isBase64Field(type: string, field: string): boolean {
  const defs = (STANDARD_FIELDS as Record<string, FieldDef[] | undefined>)[type];
  return defs?.some((f) => f.base64 && f.name === field) ?? false;
}

const SHARE_TYPES = ['V', 'C', 'I'];
const VISIBILITIES = ['AllUsers', 'InternalUsers', 'SharedUsers'];
/** File extension → ContentVersion.FileType (the ones we meet; anything else is UNKNOWN). */
const FILE_TYPES: Record<string, string> = {
  snote: 'SNOTE',
  txt: 'TEXT',
  pdf: 'PDF',
  csv: 'CSV',
  html: 'HTML',
  png: 'PNG',
  jpg: 'JPG',
};

/**
 * What Salesforce does to a note's HTML before saving: "If the input contains unsafe HTML characters or
 * new lines, we automatically strip them out" (ContentNote.Content). Drops line breaks and active
 * content (script, style, iframe, object, embed) and event-handler attributes.
 */
export function sanitizeNoteHtml(html: string): string {
  return html
    .replace(/[\r\n]+/g, '')
    .replace(/<(script|style|iframe|object|embed)\b[^>]*>[\s\S]*?<\/\1\s*>/gi, '')
    .replace(/<\/?(script|style|iframe|object|embed)\b[^>]*>/gi, '')
    .replace(/\s+on[a-z]+\s*=\s*("[^"]*"|'[^']*'|[^\s>]+)/gi, '');
}

/** The note's text: tags dropped, the common entities decoded, at most 255 characters. */
function textPreview(html: string): string {
  const text = html
    .replace(/<\/(p|div|li)>|<br\s*\/?>/gi, ' ')
    .replace(/<[^>]*>/g, '')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#0?39;/g, "'")
    .replace(/&nbsp;/g, ' ')
    .replace(/&amp;/g, '&')
    .replace(/\s+/g, ' ')
    .trim();
  return text.slice(0, 255);
}

const LABELS: Record<string, string> = {
  ContentDocumentId: 'Content Document ID',
  LinkedEntityId: 'Linked Entity ID',
  FirstPublishLocationId: 'First Publish Location ID',
  WhatId: 'Related To ID',
};

export function resolveType(name: string): SObjectType | undefined {
  return SOBJECT_TYPES.find((t) => t.toLowerCase() === name.toLowerCase());
}

/** One field as describe tells it (describe.ts). `editable`: the integration user's field-level Edit. */
export interface FieldInfo {
  name: string;
  label: string;
  custom: boolean;
  spec?: FieldSpec;
  system: boolean;
  createOnly: boolean;
  required: boolean;
  base64: boolean;
  default?: FieldValue;
  editable: boolean;
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
  /**
   * Fields the integration user may read but not edit (field-level security), as `Account.Name__c`:
   * a write naming one is refused INVALID_FIELD_FOR_INSERT_UPDATE. Also `setFieldEditable`.
   */
  readOnlyFields?: readonly string[];
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
  readonly #custom: Record<SObjectType, FieldDef[]> = {
    Account: [],
    Task: [],
    ContentNote: [],
    ContentDocument: [],
    ContentVersion: [],
    ContentDocumentLink: [],
    User: [],
  };
  readonly #listeners: ChangeListener[] = [];
  /** `type.field` (lower case) the integration user cannot edit: its profile gives Read, not Edit. */
  readonly #readOnly = new Set<string>();

  constructor(options: StoreOptions = {}) {
    const ids = new IdFactory('5g', 0x1a2b3c);
    this.orgId = options.orgId ?? ids.next(KEY_PREFIXES.Organization);
    this.userId = options.userId ?? ids.next(KEY_PREFIXES.User);
    this.#now = options.now ?? (() => new Date());
    for (const qualified of options.readOnlyFields ?? []) {
      const [type, field] = qualified.split('.');
      const resolved = resolveType(type ?? '');
      if (!resolved || !field) throw new Error(`readOnlyFields: "${qualified}" is not Object.Field`);
      this.setFieldEditable(resolved, field, false);
    }
    this.#addIntegrationUser();
  }

  /**
   * Field-level security of the integration user for one field (defined now or later): without Edit a
   * write naming it is refused INVALID_FIELD_FOR_INSERT_UPDATE and describe calls it not updateable.
   */
  setFieldEditable(type: SObjectType, field: string, editable: boolean): void {
    const key = `${type}.${field}`.toLowerCase();
    if (editable) this.#readOnly.delete(key);
    else this.#readOnly.add(key);
  }

  #editable(type: SObjectType, field: string): boolean {
    return !this.#readOnly.has(`${type}.${field}`.toLowerCase());
  }

  /** What describe answers of a type's fields (describe.ts): the definitions, with the user's access. */
  fieldInfo(type: SObjectType): FieldInfo[] {
    return this.#defs(type).map((def) => ({
      name: def.name,
      label: def.label ?? LABELS[def.name] ?? def.name,
      custom: def.name.endsWith('__c'),
      ...(def.spec ? { spec: def.spec } : {}),
      system: def.system === true,
      createOnly: def.createOnly === true,
      required: def.required === true,
      base64: def.base64 === true,
      ...(def.default !== undefined ? { default: def.default } : {}),
      editable: this.#editable(type, def.name),
    }));
  }

  /** The user the API acts as (and the default owner of what it creates) is a User of the org too. */
  #addIntegrationUser(): void {
    const now = formatDateTime(this.#now());
    const values = new Map<string, FieldValue>(
      this.fields('User').map((f) => [f, this.#def('User', f)?.default ?? null]),
    );
    const own: [string, FieldValue][] = [
      ['Id', this.userId],
      ['Username', `integration@${this.orgId.toLowerCase()}.sandbox`],
      ['FirstName', 'Integration'],
      ['LastName', 'User'],
      ['Name', 'Integration User'],
      ['Email', `integration@${this.orgId.toLowerCase()}.sandbox`],
      ['CreatedDate', now],
      ['LastModifiedDate', now],
      ['SystemModstamp', now],
    ];
    for (const [k, v] of own) values.set(k, v);
    this.#records.set(this.userId, { type: 'User', id: this.userId, values, deleted: false });
  }

  /** A User's Name: its FirstName and LastName, as Salesforce composes it. */
  #composeName(record: SObjectRecord): void {
    if (record.type !== 'User') return;
    const parts = [record.values.get('FirstName'), record.values.get('LastName')].filter(
      (v) => typeof v === 'string' && v !== '',
    );
    record.values.set('Name', parts.join(' '));
  }

  onChange(listener: ChangeListener): () => void {
    this.#listeners.push(listener);
    return () => {
      const i = this.#listeners.indexOf(listener);
      if (i >= 0) this.#listeners.splice(i, 1);
    };
  }

  /**
   * Defines a custom field (what the Metadata API's CustomField upsert does); a field defined again takes
   * the new spec and label, as an upsert does. Without a spec: Text(255).
   */
  defineCustomField(type: SObjectType, name: string, spec: FieldSpec = TEXT_255, label?: string): string {
    if (!supportsCustomFields(type)) throw new Error(`${type} does not support custom fields`);
    if (!/^[A-Za-z](?:[A-Za-z0-9]|_(?!_))*__c$/.test(name) || name.slice(0, -3).includes('__'))
      throw new Error(`invalid custom field API name: ${name}`);
    // A Checkbox has a value on every record from the moment it exists: its default (field-types.ts).
    const initial: FieldValue = spec.kind === 'checkbox' ? (spec.default ?? false) : null;
    let def = this.#custom[type].find((f) => f.name.toLowerCase() === name.toLowerCase());
    if (def) {
      def.spec = spec;
      if (label !== undefined) def.label = label;
    } else {
      def = { name, spec, ...(label !== undefined ? { label } : {}) };
      this.#custom[type].push(def);
    }
    if (initial !== null) def.default = initial;
    else delete def.default;
    const stored = def.name;
    for (const record of this.#records.values())
      if (record.type === type && (record.values.get(stored) ?? null) === null)
        record.values.set(stored, initial);
    return stored;
  }

  fields(type: SObjectType): string[] {
    return [...STANDARD_FIELDS[type], ...this.#custom[type]].map((f) => f.name);
  }

  #defs(type: SObjectType): FieldDef[] {
    return [...STANDARD_FIELDS[type], ...this.#custom[type]];
  }

  #def(type: SObjectType, name: string): FieldDef | undefined {
    const lower = name.toLowerCase();
    return this.#defs(type).find((f) => f.name.toLowerCase() === lower);
  }

  /** Whether a field holds dates or dateTimes (SOQL compares those unquoted, as instants). */
  temporalKind(type: SObjectType, name: string): 'date' | 'datetime' | undefined {
    const spec = this.#def(type, name)?.spec;
    return spec?.kind === 'date' || spec?.kind === 'datetime' ? spec.kind : undefined;
  }

  /**
   * What a SOQL filter on a field must compare it with: an id (quoted, well-formed), text (quoted), a
   * number or a boolean (unquoted). Reference fields are the spec-less ones named …Id. undefined: a
   * system field this emulator does not type (compared as given).
   */
  filterKind(type: SObjectType, name: string): 'id' | 'string' | 'double' | 'boolean' | undefined {
    const def = this.#def(type, name);
    if (!def) return undefined;
    if (!def.spec && !def.base64 && /Id$/.test(def.name)) return 'id';
    switch (def.spec?.kind) {
      case 'text':
      case 'picklist':
        return 'string';
      case 'number':
        return 'double';
      case 'checkbox':
        return 'boolean';
      default:
        return undefined;
    }
  }

  /** The defined spelling of a field, or INVALID_FIELD. */
  fieldName(type: SObjectType, name: string): string {
    const def = this.#def(type, name);
    if (!def) throw invalidField(type, name);
    return def.name;
  }

  /** Checks values for a create or update; returns them under their defined spelling. */
  #writable(type: SObjectType, values: Record<string, unknown>, update: boolean): Map<string, FieldValue> {
    const out = new Map<string, FieldValue>();
    const readOnly: string[] = [];
    for (const [key, value] of Object.entries(values)) {
      const def = this.#def(type, key);
      if (!def) throw invalidField(type, key);
      if (def.system || (update && def.createOnly) || !this.#editable(type, def.name)) {
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
      if (def.base64 && value !== null && typeof value !== 'string')
        throw new SalesforceError(400, [
          {
            message: `Cannot deserialize instance of base64 from ${typeof value === 'number' ? 'VALUE_NUMBER_INT' : 'VALUE_TRUE'} value`,
            errorCode: 'JSON_PARSER_ERROR',
          },
        ]);
      out.set(def.name, value as FieldValue);
    }
    if (readOnly.length) throw invalidFieldForInsertUpdate(readOnly);
    for (const [name, value] of out) {
      const def = this.#def(type, name);
      if (def?.spec) out.set(name, checkFieldValue(def.spec, name, def.label ?? name, value));
    }
    return out;
  }

  /**
   * Throws what the REST deserializer would refuse in these values (a value that is no value of its
   * field's type); anything else is left to validateCreate/validateUpdate. A collection checks every
   * record this way before it writes any.
   */
  checkDeserializable(type: SObjectType, values: Record<string, unknown>): void {
    for (const [key, value] of Object.entries(values)) {
      const def = this.#def(type, key);
      if (!def?.spec || (value !== null && !['string', 'number', 'boolean'].includes(typeof value))) continue;
      try {
        checkFieldValue(def.spec, def.name, def.label ?? def.name, value as FieldValue);
      } catch (err) {
        if (err instanceof DeserializeError) throw err;
      }
    }
  }

  /** Throws the error a create would answer, without writing (allOrNone checks). */
  validateCreate(type: SObjectType, values: Record<string, unknown>): Map<string, FieldValue> {
    if (type === 'ContentDocument') throw invalidTypeForOperation('inserted', 'Content Document');
    const given = this.#writable(type, values, false);
    const required = this.#defs(type).filter((f) => f.required);
    if (type === 'ContentVersion') {
      required.push({ name: 'PathOnClient' }, { name: 'VersionData' });
    }
    const missing = required.filter((f) => (given.get(f.name) ?? '') === '').map((f) => f.name);
    if (missing.length) throw requiredFieldMissing(missing);
    if (type === 'ContentVersion') {
      const docId = given.get('ContentDocumentId');
      if (docId !== undefined && docId !== null) this.#document('ContentDocumentId', docId);
      const location = given.get('FirstPublishLocationId');
      if (location !== undefined && location !== null) this.#linkable('FirstPublishLocationId', location);
    }
    if (type === 'Task') this.#checkWhat(given.get('WhatId'));
    this.#checkOwner(given.get('OwnerId'));
    if (type === 'ContentDocumentLink') {
      const doc = this.#document('ContentDocumentId', given.get('ContentDocumentId') ?? null);
      const entity = this.#linkable('LinkedEntityId', given.get('LinkedEntityId') ?? null);
      this.#checkLinkPicklists(given);
      const duplicate = this.#linksOf(doc.id).some((l) => l.values.get('LinkedEntityId') === entity);
      if (duplicate)
        throw new SalesforceError(400, [
          {
            message: `Document with ID: ${doc.id} is already linked with the entity with ID: ${entity}`,
            errorCode: 'DUPLICATE_VALUE',
            fields: [],
          },
        ]);
    }
    return given;
  }

  /** Throws the error an update would answer, without writing (allOrNone checks). */
  validateUpdate(type: SObjectType, id: string, values: Record<string, unknown>): Map<string, FieldValue> {
    this.find(type, id);
    const given = this.#writable(type, values, true);
    const required = this.#defs(type).filter((f) => f.required);
    const blanked = required.filter((f) => given.has(f.name) && (given.get(f.name) ?? '') === '');
    if (blanked.length) throw requiredFieldMissing(blanked.map((f) => f.name));
    if (type === 'ContentDocumentLink') this.#checkLinkPicklists(given);
    if (type === 'Task') this.#checkWhat(given.get('WhatId'));
    this.#checkOwner(given.get('OwnerId'));
    return given;
  }

  /**
   * An OwnerId naming a User must name an active one: INACTIVE_OWNER_OR_USER for a deactivated user,
   * INVALID_CROSS_REFERENCE_KEY for an id of no user. (Queues, 00G, are not modelled: left alone.)
   */
  #checkOwner(value: FieldValue | undefined): void {
    if (typeof value !== 'string' || !value.startsWith(KEY_PREFIXES.User)) return;
    const user = isWellFormedId(value) ? this.#records.get(canonicalId(value)) : undefined;
    if (user?.type !== 'User') throw invalidCrossReferenceKey();
    if (user.values.get('IsActive') !== true)
      throw new SalesforceError(400, [
        {
          message: `operation performed with inactive user [${user.id}] as owner of record`,
          errorCode: 'INACTIVE_OWNER_OR_USER',
          fields: [],
        },
      ]);
  }

  /**
   * Task.WhatId ("Related To ID") names a live record that activities can relate to: MALFORMED_ID for
   * no id at all, INVALID_CROSS_REFERENCE_KEY for an unknown id or one of an object a Task cannot
   * relate to (a file), ENTITY_IS_DELETED for a record in the recycle bin — the record errors of the
   * REST guide. Empty: a Task related to nothing.
   */
  #checkWhat(value: FieldValue | undefined): void {
    if (value === undefined || value === null || value === '') return;
    const target = this.#target('WhatId', value);
    if (typeof target === 'string' || target.type.startsWith('Content')) throw invalidCrossReferenceKey();
  }

  #checkLinkPicklists(given: Map<string, FieldValue>): void {
    const share = given.get('ShareType');
    if (share !== undefined && !SHARE_TYPES.includes(String(share)))
      throw badPicklistValue('ShareType', String(share));
    const visibility = given.get('Visibility');
    if (visibility !== undefined && visibility !== null && !VISIBILITIES.includes(String(visibility)))
      throw badPicklistValue('Visibility', String(visibility));
  }

  /** A reference field's target: a well-formed id of a live record (or the org / our user). */
  #target(field: string, value: FieldValue): SObjectRecord | string {
    const label = LABELS[field] ?? field;
    if (typeof value !== 'string' || !isWellFormedId(value))
      throw malformedReference(label, String(value), field);
    const id = canonicalId(value);
    if (id === this.userId || id === this.orgId) return id;
    const record = this.#records.get(id);
    if (!record) throw invalidCrossReferenceKey();
    if (record.deleted) throw referenceIsDeleted();
    return record;
  }

  #document(field: string, value: FieldValue): SObjectRecord {
    const target = this.#target(field, value);
    if (typeof target === 'string' || target.type !== 'ContentDocument')
      throw malformedReference(LABELS[field] ?? field, String(value), field);
    return target;
  }

  /** What a file can be linked to: a record (not a file), our user or the org. Its 18-char id. */
  #linkable(field: string, value: FieldValue): string {
    const target = this.#target(field, value);
    if (typeof target === 'string') return target;
    if (target.type.startsWith('Content')) throw invalidCrossReferenceKey();
    return target.id;
  }

  #linksOf(documentId: string): SObjectRecord[] {
    return this.list('ContentDocumentLink').filter((l) => l.values.get('ContentDocumentId') === documentId);
  }

  #versionsOf(documentId: string): SObjectRecord[] {
    return this.list('ContentVersion').filter((v) => v.values.get('ContentDocumentId') === documentId);
  }

  /** Writes a new record of a stored type (validation done), with defaults, id and audit fields. */
  #insert(type: Exclude<SObjectType, 'ContentNote'>, given: Map<string, FieldValue>): SObjectRecord {
    const id = this.ids.next(KEY_PREFIXES[type]);
    const now = formatDateTime(this.#now());
    const record: SObjectRecord = { type, id, values: new Map(), deleted: false };
    const fields = this.fields(type);
    for (const name of fields) record.values.set(name, this.#def(type, name)?.default ?? null);
    for (const [k, v] of given) record.values.set(k, v);
    const system: [string, FieldValue][] = [
      ['Id', id],
      ['CreatedDate', now],
      ['LastModifiedDate', now],
      ['SystemModstamp', now],
      ['IsDeleted', false],
    ];
    for (const [k, v] of system) if (fields.includes(k)) record.values.set(k, v);
    deriveClosed(record);
    if (fields.includes('OwnerId') && record.values.get('OwnerId') === null)
      record.values.set('OwnerId', this.userId);
    this.#composeName(record);
    this.#records.set(id, record);
    this.#emit('created', record, [...given.keys()]);
    return record;
  }

  #touch(record: SObjectRecord): void {
    const now = formatDateTime(this.#now());
    if (record.values.has('LastModifiedDate')) record.values.set('LastModifiedDate', now);
    if (record.values.has('SystemModstamp')) record.values.set('SystemModstamp', now);
  }

  /**
   * A new ContentVersion: of the given document (IsLatest moves to it), or of a new ContentDocument
   * linked to its owner (and to FirstPublishLocationId when given).
   */
  #addVersion(given: Map<string, FieldValue>): SObjectRecord {
    const path = String(given.get('PathOnClient') ?? '');
    const dot = path.lastIndexOf('.');
    const extension = dot >= 0 ? path.slice(dot + 1).toLowerCase() : '';
    const fileType = FILE_TYPES[extension] ?? 'UNKNOWN';
    const data = String(given.get('VersionData') ?? '');
    const size = Buffer.from(data, 'base64').length;
    const title = given.get('Title') ?? (dot >= 0 ? path.slice(0, dot) : path);
    const now = formatDateTime(this.#now());
    const docId = given.get('ContentDocumentId');
    let doc: SObjectRecord;
    let number = 1;
    if (typeof docId === 'string') {
      doc = this.#document('ContentDocumentId', docId);
      const versions = this.#versionsOf(doc.id);
      number = versions.length + 1;
      for (const v of versions) {
        if (v.values.get('IsLatest') !== true) continue;
        v.values.set('IsLatest', false);
        this.#touch(v);
        this.#emit('updated', v, ['IsLatest']);
      }
    } else {
      doc = this.#insert(
        'ContentDocument',
        new Map<string, FieldValue>([
          ['Title', title],
          ['FileType', fileType],
          ['FileExtension', extension || null],
          ['PublishStatus', 'R'],
          ['SharingPrivacy', given.get('SharingPrivacy') ?? 'N'],
          ['IsArchived', false],
          ['OwnerId', given.get('OwnerId') ?? this.userId],
        ]),
      );
    }
    const values = new Map(given);
    values.delete('SharingPrivacy');
    for (const [k, v] of [
      ['ContentDocumentId', doc.id],
      ['Title', title],
      ['FileType', fileType],
      ['FileExtension', extension || null],
      ['IsLatest', true],
      ['IsMajorVersion', true],
      ['VersionNumber', String(number)],
      ['ContentSize', size],
      ['ContentModifiedDate', now],
    ] as [string, FieldValue][])
      values.set(k, v);
    const version = this.#insert('ContentVersion', values);
    for (const [k, v] of [
      ['Title', title],
      ['ContentSize', size],
      ['ContentModifiedDate', now],
      ['LatestPublishedVersionId', version.id],
    ] as [string, FieldValue][])
      doc.values.set(k, v);
    if (number === 1) {
      const owner = String(version.values.get('OwnerId') ?? this.userId);
      this.#link(doc.id, owner, 'I');
      const location = given.get('FirstPublishLocationId');
      if (typeof location === 'string') {
        const entity = this.#linkable('FirstPublishLocationId', location);
        if (entity !== owner) this.#link(doc.id, entity, 'I');
      }
    } else {
      this.#touch(doc);
      this.#emit('updated', doc, ['LatestPublishedVersionId']);
    }
    return version;
  }

  #link(documentId: string, entityId: string, shareType: string): SObjectRecord {
    return this.#insert(
      'ContentDocumentLink',
      new Map<string, FieldValue>([
        ['ContentDocumentId', documentId],
        ['LinkedEntityId', entityId],
        ['ShareType', shareType],
        ['Visibility', 'AllUsers'],
      ]),
    );
  }

  /** The ContentNote view of a note's document. */
  #noteView(doc: SObjectRecord): SObjectRecord {
    const latest = this.#records.get(String(doc.values.get('LatestPublishedVersionId')));
    const content = latest?.values.get('VersionData') ?? null;
    const html = typeof content === 'string' ? Buffer.from(content, 'base64').toString('utf8') : '';
    const values = new Map<string, FieldValue>();
    const from: Record<string, FieldValue | undefined> = {
      Id: doc.id,
      Title: doc.values.get('Title'),
      Content: content,
      TextPreview: textPreview(html),
      FileType: 'SNOTE',
      FileExtension: 'snote',
      ContentSize: doc.values.get('ContentSize'),
      ContentModifiedDate: doc.values.get('ContentModifiedDate'),
      IsReadOnly: false,
      LatestContentId: latest?.id ?? null,
      LatestPublishedVersionId: latest?.id ?? null,
      SharingPrivacy: doc.values.get('SharingPrivacy'),
      OwnerId: doc.values.get('OwnerId'),
      CreatedDate: doc.values.get('CreatedDate'),
      LastModifiedDate: doc.values.get('LastModifiedDate'),
      IsDeleted: doc.deleted,
    };
    for (const name of this.fields('ContentNote')) values.set(name, from[name] ?? null);
    return { type: 'ContentNote', id: doc.id, values, deleted: doc.deleted };
  }

  /** A note's content as Salesforce keeps it: decoded, sanitized, base64 again. */
  #noteData(content: FieldValue | undefined): string {
    const html = typeof content === 'string' ? Buffer.from(content, 'base64').toString('utf8') : '';
    return Buffer.from(sanitizeNoteHtml(html), 'utf8').toString('base64');
  }

  create(type: SObjectType, values: Record<string, unknown>): SObjectRecord {
    const given = this.validateCreate(type, values);
    if (type === 'ContentNote') {
      const title = String(given.get('Title'));
      const version = this.#addVersion(
        new Map<string, FieldValue>([
          ['Title', title],
          ['PathOnClient', `${title}.snote`],
          ['VersionData', this.#noteData(given.get('Content'))],
          ...(given.has('OwnerId')
            ? [['OwnerId', given.get('OwnerId') ?? null] as [string, FieldValue]]
            : []),
          ...(given.has('SharingPrivacy')
            ? [['SharingPrivacy', given.get('SharingPrivacy') ?? null] as [string, FieldValue]]
            : []),
        ]),
      );
      return this.find('ContentNote', String(version.values.get('ContentDocumentId')));
    }
    if (type === 'ContentVersion') return this.#addVersion(given);
    if (type === 'ContentDocumentLink') {
      const entity = this.#linkable('LinkedEntityId', given.get('LinkedEntityId') ?? null);
      given.set(
        'ContentDocumentId',
        this.#document('ContentDocumentId', given.get('ContentDocumentId') ?? null).id,
      );
      given.set('LinkedEntityId', entity);
      if (!given.has('Visibility') || given.get('Visibility') === null) given.set('Visibility', 'AllUsers');
    }
    if (type === 'ContentDocument') throw invalidTypeForOperation('inserted', 'Content Document');
    return this.#insert(type, given);
  }

  /** A live record by id (15 or 18 chars); MALFORMED_ID, NOT_FOUND or ENTITY_IS_DELETED otherwise. */
  find(type: SObjectType, id: string): SObjectRecord {
    if (!isWellFormedId(id)) throw malformedId(type, id);
    const record = this.#records.get(canonicalId(id));
    if (type === 'ContentNote') {
      if (record?.type !== 'ContentDocument' || record.values.get('FileType') !== 'SNOTE') throw notFound();
      if (record.deleted) throw entityIsDeleted();
      return this.#noteView(record);
    }
    if (!record || record.type !== type) throw notFound();
    if (record.deleted) throw entityIsDeleted();
    return record;
  }

  /** The type of a record id (for DELETE /composite/sobjects?ids=…); NOT_FOUND when unknown. */
  typeOf(id: string): SObjectType {
    if (!isWellFormedId(id)) throw malformedId('sObject', id);
    const record = this.#records.get(canonicalId(id));
    if (!record) throw notFound();
    return record.type;
  }

  update(type: SObjectType, id: string, values: Record<string, unknown>): SObjectRecord {
    const given = this.validateUpdate(type, id, values);
    if (type === 'ContentNote') {
      const note = this.find(type, id);
      if (given.size === 0) return note;
      const title = String(given.get('Title') ?? note.values.get('Title'));
      this.#addVersion(
        new Map<string, FieldValue>([
          ['ContentDocumentId', note.id],
          ['Title', title],
          ['PathOnClient', `${title}.snote`],
          [
            'VersionData',
            given.has('Content') ? this.#noteData(given.get('Content')) : (note.values.get('Content') ?? ''),
          ],
        ]),
      );
      return this.find(type, id);
    }
    const record = this.find(type, id);
    const changed: string[] = [];
    for (const [k, v] of given) {
      if (record.values.get(k) !== v) changed.push(k);
      record.values.set(k, v);
    }
    this.#composeName(record);
    deriveClosed(record);
    this.#touch(record);
    this.#emit('updated', record, changed);
    return record;
  }

  #remove(record: SObjectRecord): void {
    record.deleted = true;
    if (record.values.has('IsDeleted')) record.values.set('IsDeleted', true);
    if (record.values.has('SystemModstamp')) record.values.set('SystemModstamp', formatDateTime(this.#now()));
    this.#emit('deleted', record, []);
  }

  delete(type: SObjectType, id: string): void {
    if (type === 'User') {
      // Users are deactivated (IsActive false), never deleted.
      this.find(type, id);
      throw invalidTypeForOperation('deleted', 'User');
    }
    if (type === 'ContentVersion') {
      this.find(type, id);
      throw invalidTypeForOperation('deleted', 'Content Version');
    }
    if (type === 'ContentNote' || type === 'ContentDocument') {
      const note = this.find(type, id);
      const doc = this.#records.get(note.id);
      if (!doc) throw notFound();
      for (const link of this.#linksOf(doc.id)) this.#remove(link);
      for (const version of this.#versionsOf(doc.id)) this.#remove(version);
      this.#remove(doc);
      return;
    }
    const record = this.find(type, id);
    this.#remove(record);
    if (type === 'Account' || type === 'Task') {
      for (const link of this.list('ContentDocumentLink'))
        if (link.values.get('LinkedEntityId') === record.id) this.#remove(link);
    }
  }

  /** Live records of a type, in id order (ids grow with creation). */
  list(type: SObjectType): SObjectRecord[] {
    if (type === 'ContentNote') {
      return this.list('ContentDocument')
        .filter((d) => d.values.get('FileType') === 'SNOTE')
        .map((d) => this.#noteView(d));
    }
    return [...this.#records.values()]
      .filter((r) => r.type === type && !r.deleted)
      .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  }

  /** The bytes of a base64 field (what GET /sobjects/{type}/{id}/{field} answers); null when empty. */
  blob(type: SObjectType, id: string, field: string): Buffer | null {
    const record = this.find(type, id);
    const name = this.fieldName(type, field);
    if (!isBase64Field(type, name)) throw notFound();
    const value = record.values.get(name);
    return typeof value === 'string' ? Buffer.from(value, 'base64') : null;
  }

  #emit(kind: ChangeKind, record: SObjectRecord, changed: string[]): void {
    for (const l of this.#listeners) l(kind, record, changed);
  }
}
