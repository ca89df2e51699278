// Records as HubSpot returns them: `id`, `properties` (keys in alphabetical order), optional
// `propertiesWithHistory`, `createdAt`, `updatedAt`, `archived`, and on reads the requested `associations`.
// GET and list omit requested properties that have no value (the object API guide says so); search
// returns them as null. The creation time, hs_lastmodifieddate and hs_object_id are always included.
import { OBJECT_TYPES, type ObjectType, resolveObjectType } from './object-types.ts';
import type { CrmRecord, HubSpotStore } from './store.ts';

export interface PresentOptions {
  properties?: string[];
  propertiesWithHistory?: string[];
  /** Search: requested properties without a value appear as null. */
  nullForMissing?: boolean;
  /** Object types whose associated ids to include (GET and list only). */
  associations?: string[];
}

export function presentRecord(store: HubSpotStore, record: CrmRecord, options: PresentOptions = {}) {
  const info = OBJECT_TYPES[record.objectType];
  const names = new Set([
    ...(options.properties?.length ? options.properties : info.defaultProperties),
    info.createdateProperty,
    'hs_lastmodifieddate',
    'hs_object_id',
  ]);
  const properties: Record<string, string | null> = {};
  for (const name of [...names].sort()) {
    const value = record.values.get(name);
    if (value !== undefined) properties[name] = value;
    else if (options.nullForMissing && store.property(record.objectType, name)) properties[name] = null;
  }
  const history = options.propertiesWithHistory?.length
    ? presentHistory(record, options.propertiesWithHistory)
    : undefined;
  const associations = options.associations?.length
    ? presentAssociations(store, record, options.associations)
    : undefined;
  return {
    id: record.id,
    properties,
    ...(history ? { propertiesWithHistory: history } : {}),
    createdAt: record.createdAt,
    updatedAt: record.updatedAt,
    archived: record.archived,
    ...(associations ? { associations } : {}),
  };
}

/** The answer to a create or update: the written properties plus the always-present ones. */
export function presentWrite(record: CrmRecord, written: Record<string, string>) {
  const info = OBJECT_TYPES[record.objectType];
  const properties: Record<string, string> = {};
  const names = new Set([
    ...Object.keys(written),
    info.createdateProperty,
    'hs_lastmodifieddate',
    'hs_object_id',
  ]);
  for (const name of [...names].sort()) properties[name] = record.values.get(name) ?? written[name] ?? '';
  return {
    id: record.id,
    properties,
    createdAt: record.createdAt,
    updatedAt: record.updatedAt,
    archived: record.archived,
  };
}

function presentHistory(record: CrmRecord, names: string[]) {
  const out: Record<string, { value: string; timestamp: string; sourceType: string; sourceId?: string }[]> =
    {};
  for (const name of names) {
    const entries = record.history.get(name);
    if (entries?.length) out[name] = entries.map((e) => ({ ...e }));
  }
  return out;
}

function presentAssociations(store: HubSpotStore, record: CrmRecord, requested: string[]) {
  const out: Record<string, { results: { id: string; type: string }[] }> = {};
  for (const raw of requested) {
    const toType: ObjectType | undefined = resolveObjectType(raw);
    if (!toType) continue;
    const results = store
      .associations(record.objectType, record.id, toType)
      .flatMap((a) => a.types.map((t) => ({ id: a.toId, type: t.name })));
    if (results.length) out[raw] = { results };
  }
  return Object.keys(out).length ? out : undefined;
}
