// The in-memory portal: property definitions and groups, companies and notes with their property history,
// and associations. Every write names its source (an app writing through the API, or a person in the CRM
// UI) and is published to listeners, which is how the webhook sender learns about creations and changes.
// Record ids are numeric strings from a counter that starts at a realistic 11-digit value and advances by
// small seeded steps, so clients cannot assume ids are small, contiguous or 32-bit.
import { seededRandom } from '../shared/faults.ts';
import {
  defaultGroups,
  defaultProperties,
  type PropertyDefinition,
  type PropertyGroup,
} from './default-properties.ts';
import {
  alreadyExists,
  type InvalidProperty,
  invalidAssociations,
  invalidPropertyValues,
  notFound,
  objectNotFound,
} from './errors.ts';
import { ASSOCIATION_TYPES, type AssociationTypeDef, OBJECT_TYPES, type ObjectType } from './object-types.ts';
import { OwnerDirectory } from './owners.ts';
import { buildPropertyDefinition, buildPropertyGroup } from './property-schema.ts';
import { checkValue } from './property-values.ts';

/** Where a write came from, as webhooks (`changeSource`) and property history (`sourceType`) report it. */
export type ChangeSource =
  | 'INTEGRATION'
  | 'API'
  | 'CRM_UI'
  | 'CRM_UI_BULK_ACTION'
  | 'IMPORT'
  | 'AUTOMATION_PLATFORM'
  | 'MOBILE_IOS'
  | 'MOBILE_ANDROID';

export interface WriteOptions {
  /** Default for direct store calls: CRM_UI (a person editing the record in HubSpot). */
  source?: ChangeSource;
  /** "userId:123" for people, the app id for integrations. */
  sourceId?: string;
}

export interface HistoryEntry {
  value: string;
  timestamp: string;
  sourceType: ChangeSource;
  sourceId?: string;
  updatedByUserId?: number;
}

export interface CrmRecord {
  objectType: ObjectType;
  id: string;
  /** Only properties with a value; a cleared property is absent. */
  values: Map<string, string>;
  /** Newest first, per property. */
  history: Map<string, HistoryEntry[]>;
  createdAt: string;
  updatedAt: string;
  archived: boolean;
}

export type StoreEvent =
  | {
      kind: 'creation';
      objectType: ObjectType;
      objectId: string;
      occurredAt: number;
      source: ChangeSource;
      sourceId?: string;
      /** The properties the writer set. */
      properties: Record<string, string>;
    }
  | {
      kind: 'propertyChange';
      objectType: ObjectType;
      objectId: string;
      occurredAt: number;
      source: ChangeSource;
      sourceId?: string;
      propertyName: string;
      propertyValue: string;
      /** The value was set by the creation of the record. */
      atCreation: boolean;
    };

export interface StoreOptions {
  portalId?: number;
  /** The first record id handed out. Default 21,438,000,000 + a seeded offset. */
  firstObjectId?: number;
  /** Seeds the id steps. */
  seed?: number;
  /** The person CRM_UI writes are attributed to. */
  userId?: number;
  /** Where the portal is hosted (the account details' dataHostingLocation). Default na1. */
  dataHostingLocation?: HostingLocation;
}

/**
 * The hosting locations whose UI domain HubSpot's "Get account details" shows (na1: app.hubspot.com,
 * eu1: app-eu1.hubspot.com). Others exist, but their domain is not documented there: left out rather
 * than guessed.
 */
export const UI_DOMAINS = { na1: 'app.hubspot.com', eu1: 'app-eu1.hubspot.com' } as const;
export type HostingLocation = keyof typeof UI_DOMAINS;

export const DEFAULT_PORTAL_ID = 48_213_907;
export const DEFAULT_USER_ID = 71_530_244;
const SYSTEM_PROPERTIES = new Set(['hs_object_id', 'hs_lastmodifieddate', 'createdate', 'hs_createdate']);

export const compareIds = (a: string, b: string) => a.length - b.length || (a < b ? -1 : a > b ? 1 : 0);

export class HubSpotStore {
  readonly portalId: number;
  readonly userId: number;
  readonly dataHostingLocation: HostingLocation;
  /** The users records can be assigned to (`hubspot_owner_id`): the Owners API. */
  readonly owners = new OwnerDirectory();
  readonly #properties = new Map<ObjectType, Map<string, PropertyDefinition>>();
  readonly #groups = new Map<ObjectType, Map<string, PropertyGroup>>();
  readonly #records = new Map<ObjectType, Map<string, CrmRecord>>();
  /** `${type}:${id}` → `${toType}:${toId}` → association type ids. */
  readonly #associations = new Map<string, Map<string, Set<number>>>();
  readonly #listeners = new Set<(event: StoreEvent) => void>();
  readonly #random: () => number;
  #nextId: number;

  constructor(options: StoreOptions = {}) {
    this.portalId = options.portalId ?? DEFAULT_PORTAL_ID;
    this.userId = options.userId ?? DEFAULT_USER_ID;
    this.dataHostingLocation = options.dataHostingLocation ?? 'na1';
    this.#random = seededRandom(options.seed ?? 11);
    this.#nextId = options.firstObjectId ?? 21_438_000_000 + Math.floor(this.#random() * 900_000);
    for (const type of Object.keys(OBJECT_TYPES) as ObjectType[]) {
      this.#properties.set(type, new Map(defaultProperties(type).map((p) => [p.name, p])));
      this.#groups.set(type, new Map(defaultGroups(type).map((g) => [g.name, g])));
      this.#records.set(type, new Map());
    }
  }

  /** Subscribe to creations and property changes; returns the unsubscribe function. */
  onChange(listener: (event: StoreEvent) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  // --- Properties and groups -----------------------------------------------------------------------

  properties(type: ObjectType): PropertyDefinition[] {
    return [...this.#propertyMap(type).values()];
  }

  property(type: ObjectType, name: string): PropertyDefinition | undefined {
    return this.#propertyMap(type).get(name);
  }

  createProperty(type: ObjectType, body: unknown): PropertyDefinition {
    const def = buildPropertyDefinition(body, this.#groupMap(type), new Date().toISOString());
    if (this.#propertyMap(type).has(def.name)) {
      throw alreadyExists(`A property named '${def.name}' already exists.`);
    }
    this.#propertyMap(type).set(def.name, def);
    return def;
  }

  groups(type: ObjectType): PropertyGroup[] {
    return [...this.#groupMap(type).values()];
  }

  group(type: ObjectType, name: string): PropertyGroup | undefined {
    return this.#groupMap(type).get(name);
  }

  createGroup(type: ObjectType, body: unknown): PropertyGroup {
    const group = buildPropertyGroup(body);
    if (this.#groupMap(type).has(group.name)) {
      throw alreadyExists(`A property group named '${group.name}' already exists.`);
    }
    this.#groupMap(type).set(group.name, group);
    return group;
  }

  /** Checks property values the way a create or update does; returns the stored forms and the rejects. */
  checkProperties(
    type: ObjectType,
    input: Record<string, unknown>,
  ): { values: Record<string, string>; invalid: InvalidProperty[] } {
    const values: Record<string, string> = {};
    const invalid: InvalidProperty[] = [];
    for (const [name, raw] of Object.entries(input)) {
      const def = this.property(type, name);
      if (!def) {
        invalid.push({ name, error: 'PROPERTY_DOESNT_EXIST', message: `Property "${name}" does not exist` });
      } else if (def.modificationMetadata.readOnlyValue) {
        invalid.push({
          name,
          error: 'READ_ONLY_VALUE',
          message: `"${name}" is a read only property; its value cannot be set.`,
        });
      } else {
        const check = checkValue(def, raw);
        if (!check.ok) invalid.push(check.invalid);
        else if (name === 'hubspot_owner_id' && check.value && !this.owners.isAssignable(check.value))
          // An owner id must name an active owner (a user id, or a deactivated user, is refused).
          invalid.push({
            name,
            error: 'INVALID_OWNER_ID',
            message: `${check.value} is not a valid owner id`,
          });
        else values[name] = check.value;
      }
    }
    return { values, invalid };
  }

  // --- Records -------------------------------------------------------------------------------------

  get(type: ObjectType, id: string): CrmRecord | undefined {
    return this.#recordMap(type).get(id);
  }

  /** Moves a record to the recycle bin, as HubSpot's DELETE does; false when there is no such record. */
  archive(type: ObjectType, id: string): boolean {
    const record = this.get(type, id);
    if (!record) return false;
    if (!record.archived) {
      record.archived = true;
      record.updatedAt = new Date().toISOString();
    }
    return true;
  }

  /** Records in id order (the order HubSpot's list endpoints page in). */
  all(type: ObjectType): CrmRecord[] {
    return [...this.#recordMap(type).values()].sort((a, b) => compareIds(a.id, b.id));
  }

  /** The record whose unique-value property `name` equals `value` (`hs_object_id` is the record id). */
  findByUniqueProperty(type: ObjectType, name: string, value: string): CrmRecord | undefined {
    if (name === 'hs_object_id') return this.get(type, value);
    return this.all(type).find((r) => r.values.get(name) === value);
  }

  /** Validates and creates; throws the 400 HubSpot answers for invalid property values. */
  create(type: ObjectType, input: Record<string, unknown>, options: WriteOptions = {}): CrmRecord {
    const { values, invalid } = this.checkProperties(type, input);
    if (invalid.length) throw invalidPropertyValues(this.portalId, invalid);
    return this.insert(type, values, options);
  }

  /** Creates from already checked values (see checkProperties). */
  insert(type: ObjectType, values: Record<string, string>, options: WriteOptions = {}): CrmRecord {
    const source = this.#source(options);
    const now = Date.now();
    const nowIso = new Date(now).toISOString();
    const id = this.#newId();
    const createdateProperty = OBJECT_TYPES[type].createdateProperty;
    const record: CrmRecord = {
      objectType: type,
      id,
      values: new Map(),
      history: new Map(),
      createdAt: values[createdateProperty] || nowIso,
      updatedAt: nowIso,
      archived: false,
    };
    const set = Object.entries(values).filter(([, v]) => v !== '');
    const all: [string, string][] = [
      [createdateProperty, record.createdAt],
      ['hs_lastmodifieddate', nowIso],
      ['hs_object_id', id],
      ...set.filter(([name]) => name !== createdateProperty),
    ];
    for (const [name, value] of all) {
      record.values.set(name, value);
      record.history.set(name, [this.#entry(value, nowIso, source)]);
    }
    this.#recordMap(type).set(id, record);
    this.#emit({
      kind: 'creation',
      objectType: type,
      objectId: id,
      occurredAt: now,
      ...source,
      properties: Object.fromEntries(set),
    });
    for (const [name, value] of set) {
      if (SYSTEM_PROPERTIES.has(name)) continue;
      this.#emit({
        kind: 'propertyChange',
        objectType: type,
        objectId: id,
        occurredAt: now,
        ...source,
        propertyName: name,
        propertyValue: value,
        atCreation: true,
      });
    }
    return record;
  }

  /** Validates and updates; "" clears a value. Throws 404 for an unknown id, 400 for invalid values. */
  update(
    type: ObjectType,
    id: string,
    input: Record<string, unknown>,
    options: WriteOptions = {},
  ): { record: CrmRecord; changed: string[] } {
    const record = this.get(type, id);
    if (!record) throw objectNotFound(id);
    const { values, invalid } = this.checkProperties(type, input);
    if (invalid.length) throw invalidPropertyValues(this.portalId, invalid);
    return { record, changed: this.apply(record, values, options) };
  }

  /** Writes already checked values to a record; returns the names whose value changed. */
  apply(record: CrmRecord, values: Record<string, string>, options: WriteOptions = {}): string[] {
    const source = this.#source(options);
    const now = Date.now();
    const nowIso = new Date(now).toISOString();
    const changed = Object.entries(values).filter(
      ([name, value]) => (record.values.get(name) ?? '') !== value,
    );
    if (!changed.length) return [];
    for (const [name, value] of changed) {
      if (value === '') record.values.delete(name);
      else record.values.set(name, value);
      const history = record.history.get(name) ?? [];
      history.unshift(this.#entry(value, nowIso, source));
      record.history.set(name, history);
    }
    record.updatedAt = nowIso;
    record.values.set('hs_lastmodifieddate', nowIso);
    record.history.get('hs_lastmodifieddate')?.unshift(this.#entry(nowIso, nowIso, source));
    for (const [name, value] of changed) {
      this.#emit({
        kind: 'propertyChange',
        objectType: record.objectType,
        objectId: record.id,
        occurredAt: now,
        ...source,
        propertyName: name,
        propertyValue: value,
        atCreation: false,
      });
    }
    return changed.map(([name]) => name);
  }

  // --- Associations --------------------------------------------------------------------------------

  /**
   * Associates two records with the given type ids (and the inverse types on the other side). Throws
   * HubSpot's 400 when a record does not exist or a type id does not connect these object types.
   */
  associate(
    fromType: ObjectType,
    fromId: string,
    toType: ObjectType,
    toId: string,
    types: { associationCategory: string; associationTypeId: number }[],
  ): AssociationTypeDef[] {
    const defs = types.map((t) => {
      const def = ASSOCIATION_TYPES.find(
        (d) =>
          d.typeId === t.associationTypeId &&
          d.category === t.associationCategory &&
          d.from === fromType &&
          d.to === toType,
      );
      if (!def) {
        const spec = `${t.associationCategory}=${t.associationTypeId}`;
        throw invalidAssociations({
          associationSpec: [spec],
          INVALID_ASSOCIATION_TYPE_ID: [`${spec} is not a valid association definition id`],
        });
      }
      return def;
    });
    // An archived record is no target: HubSpot documents archived records as not returned by reads and
    // says nothing of associating one; the stricter answer is the one for an unknown id, which our
    // connectors read as "the company is gone".
    const live = (type: ObjectType, id: string) => this.get(type, id)?.archived === false;
    const missing = [
      live(fromType, fromId) ? undefined : `${OBJECT_TYPES[fromType].upper}=${fromId} is not valid`,
      live(toType, toId) ? undefined : `${OBJECT_TYPES[toType].upper}=${toId} is not valid`,
    ].filter((m): m is string => m !== undefined);
    if (missing.length) throw invalidAssociations({ INVALID_OBJECT_IDS: missing });
    for (const def of defs) {
      this.#link(fromType, fromId, toType, toId, def.typeId);
      this.#link(toType, toId, fromType, fromId, def.inverseTypeId);
    }
    return defs;
  }

  /**
   * The live records of `toType` associated with a record, in id order, with their association types.
   * An archived record keeps its links (restoring it brings them back) but is in no association read.
   */
  associations(
    fromType: ObjectType,
    fromId: string,
    toType: ObjectType,
  ): { toId: string; types: AssociationTypeDef[] }[] {
    const links = this.#associations.get(`${fromType}:${fromId}`) ?? new Map<string, Set<number>>();
    const out: { toId: string; types: AssociationTypeDef[] }[] = [];
    for (const [key, typeIds] of links) {
      const [type, toId = ''] = key.split(':');
      if (type !== toType || this.get(toType, toId)?.archived !== false) continue;
      const types = [...typeIds]
        .map((typeId) => ASSOCIATION_TYPES.find((d) => d.typeId === typeId && d.from === fromType))
        .filter((d): d is AssociationTypeDef => d !== undefined);
      out.push({ toId, types });
    }
    return out.sort((a, b) => compareIds(a.toId, b.toId));
  }

  // --- Conveniences for tests and the demo (default source: a person in the CRM UI) -------------

  createCompany(properties: Record<string, unknown>, options: WriteOptions = {}): CrmRecord {
    return this.create('companies', properties, options);
  }

  updateCompany(id: string, properties: Record<string, unknown>, options: WriteOptions = {}): CrmRecord {
    return this.update('companies', id, properties, options).record;
  }

  getCompany(id: string): CrmRecord | undefined {
    return this.get('companies', id);
  }

  companies(): CrmRecord[] {
    return this.all('companies');
  }

  /** Creates a note, associated (note→company 190) with the given companies. */
  createNote(
    properties: Record<string, unknown>,
    companyIds: string[] = [],
    options: WriteOptions = {},
  ): CrmRecord {
    for (const id of companyIds) {
      if (this.get('companies', id)?.archived !== false)
        throw invalidAssociations({ INVALID_OBJECT_IDS: [`COMPANY=${id} is not valid`] });
    }
    const note = this.create('notes', properties, options);
    for (const id of companyIds) {
      this.associate('notes', note.id, 'companies', id, [
        { associationCategory: 'HUBSPOT_DEFINED', associationTypeId: 190 },
      ]);
    }
    return note;
  }

  /** The live notes associated with a company, oldest first. */
  notesOf(companyId: string): CrmRecord[] {
    return this.associations('companies', companyId, 'notes')
      .map((a) => this.get('notes', a.toId))
      .filter((n): n is CrmRecord => n !== undefined);
  }

  /** A property value as a plain string, or undefined. */
  valueOf(type: ObjectType, id: string, property: string): string | undefined {
    const record = this.get(type, id);
    if (!record) throw notFound(`no ${OBJECT_TYPES[type].singular} ${id}`);
    return record.values.get(property);
  }

  // --- Internals -----------------------------------------------------------------------------------

  #propertyMap(type: ObjectType): Map<string, PropertyDefinition> {
    const map = this.#properties.get(type);
    if (!map) throw new Error(`unknown object type ${type}`);
    return map;
  }

  #groupMap(type: ObjectType): Map<string, PropertyGroup> {
    const map = this.#groups.get(type);
    if (!map) throw new Error(`unknown object type ${type}`);
    return map;
  }

  #recordMap(type: ObjectType): Map<string, CrmRecord> {
    const map = this.#records.get(type);
    if (!map) throw new Error(`unknown object type ${type}`);
    return map;
  }

  #newId(): string {
    const id = this.#nextId;
    this.#nextId += 1 + Math.floor(this.#random() * 40);
    return String(id);
  }

  #source(options: WriteOptions): { source: ChangeSource; sourceId?: string } {
    const source = options.source ?? 'CRM_UI';
    const sourceId =
      options.sourceId ??
      (source === 'CRM_UI' || source.startsWith('MOBILE') ? `userId:${this.userId}` : undefined);
    return sourceId === undefined ? { source } : { source, sourceId };
  }

  #entry(
    value: string,
    timestamp: string,
    source: { source: ChangeSource; sourceId?: string },
  ): HistoryEntry {
    const userId = source.sourceId?.startsWith('userId:') ? Number(source.sourceId.slice(7)) : undefined;
    return {
      value,
      timestamp,
      sourceType: source.source,
      ...(source.sourceId === undefined ? {} : { sourceId: source.sourceId }),
      ...(userId === undefined || Number.isNaN(userId) ? {} : { updatedByUserId: userId }),
    };
  }

  #link(fromType: ObjectType, fromId: string, toType: ObjectType, toId: string, typeId: number): void {
    const key = `${fromType}:${fromId}`;
    const links = this.#associations.get(key) ?? new Map<string, Set<number>>();
    const types = links.get(`${toType}:${toId}`) ?? new Set<number>();
    types.add(typeId);
    links.set(`${toType}:${toId}`, types);
    this.#associations.set(key, links);
  }

  #emit(event: StoreEvent): void {
    for (const listener of this.#listeners) {
      try {
        listener(event);
      } catch {
        // A listener's failure must not undo or fail the write.
      }
    }
  }
}
