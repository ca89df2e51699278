// The CRM object API (v3) shared by companies and notes: basic get/create/update and list, batch
// read/create/update, and search. Per-type rules (required properties, inline association defaults)
// come in through `ObjectRules`.
import type { Request } from 'express';
import type { Caller } from '../auth.ts';
import {
  type HubSpotError,
  type InvalidProperty,
  invalidAssociations,
  invalidPropertyValues,
  objectNotFound,
  propertyValuesMessage,
  validationError,
} from '../errors.ts';
import { ASSOCIATION_TYPES, OBJECT_TYPES, type ObjectType } from '../object-types.ts';
import { type DefineOperation, type OperationContext, writeSource } from '../operation.ts';
import { presentRecord, presentWrite } from '../present.ts';
import {
  boolParam,
  intParam,
  isRecord,
  listParam,
  objectBody,
  origin,
  propertiesOf,
  requireMembers,
  stringList,
  stringParam,
} from '../request.ts';
import { parseSearch, runSearch, SEARCH_RESULT_CAP } from '../search.ts';
import { type CrmRecord, compareIds } from '../store.ts';

export const BATCH_LIMIT = 100;

export interface ObjectRules {
  /** Extra checks on the properties of a new record; returns a 400 to send, if any. */
  checkCreate?: (properties: Record<string, unknown>) => HubSpotError | undefined;
  /** Extra checks on the properties of an update; returns a 400 to send, if any. */
  checkUpdate?: (properties: Record<string, unknown>) => HubSpotError | undefined;
}

interface InlineAssociation {
  toType: ObjectType;
  toId: string;
  spec: { associationCategory: string; associationTypeId: number };
}

/** `Crm{Type}` operation names, after the SDK's api/method names (`crm.companies.basicApi.getById`). */
export const opName = (type: ObjectType, api: string, method: string) =>
  type === 'companies' ? `crm.companies.${api}.${method}` : `crm.objects.${type}.${api}.${method}`;

/** A batch call's `inputs`: an array of at most BATCH_LIMIT, or HubSpot's 400. */
export function batchInputs(req: Request): unknown[] {
  const inputs = objectBody(req).inputs;
  if (!Array.isArray(inputs)) throw validationError('Invalid input JSON: inputs must be an array');
  if (inputs.length > BATCH_LIMIT) {
    throw validationError(
      `Batch input limit exceeded: ${inputs.length} inputs. The maximum is ${BATCH_LIMIT}.`,
      {
        context: { limit: [String(BATCH_LIMIT)] },
      },
    );
  }
  return inputs;
}

export function registerObjectRoutes(
  define: DefineOperation,
  ctx: OperationContext,
  type: ObjectType,
  rules: ObjectRules = {},
): void {
  const { store } = ctx;
  const info = OBJECT_TYPES[type];
  const base = `/crm/v3/objects/${type}`;

  /** A record by id, or by a unique-value property when `idProperty` is given. */
  const find = (id: string, idProperty: string | undefined): CrmRecord | undefined => {
    if (!idProperty || idProperty === 'hs_object_id') return store.get(type, id);
    const def = store.property(type, idProperty);
    if (!def) throw validationError(`Property "${idProperty}" does not exist`);
    if (!def.hasUniqueValue) {
      throw validationError(
        `Unable to perform lookup by non-unique ${info.typeId} property ${idProperty} in portal ID ${store.portalId}`,
      );
    }
    return store.findByUniqueProperty(type, idProperty, id);
  };

  /** Checks properties and inline associations of a new record without writing anything. */
  const prepareCreate = (input: unknown) => {
    if (!isRecord(input)) throw validationError('Invalid input JSON: each input must be an object');
    requireMembers(input, 'SimplePublicObjectInputForCreate', ['properties']);
    const properties = propertiesOf(input);
    const checked = store.checkProperties(type, properties);
    const extra = checked.invalid.length ? undefined : rules.checkCreate?.(properties);
    const associations = checked.invalid.length || extra ? [] : parseInlineAssociations(input.associations);
    return { checked, extra, associations };
  };

  const parseInlineAssociations = (raw: unknown): InlineAssociation[] => {
    if (raw === undefined || raw === null) return [];
    if (!Array.isArray(raw)) throw validationError('Invalid input JSON: associations must be an array');
    const out: InlineAssociation[] = [];
    const missing: string[] = [];
    for (const a of raw) {
      const toId = isRecord(a) && isRecord(a.to) ? String(a.to.id ?? '') : '';
      const types = isRecord(a) && Array.isArray(a.types) ? a.types : [];
      if (!toId || !types.length)
        throw validationError('Invalid input JSON: each association needs `to.id` and `types`');
      for (const t of types) {
        const spec = {
          associationCategory: isRecord(t) ? String(t.associationCategory) : '',
          associationTypeId: isRecord(t) ? Number(t.associationTypeId) : Number.NaN,
        };
        const def = ASSOCIATION_TYPES.find(
          (d) =>
            d.from === type && d.typeId === spec.associationTypeId && d.category === spec.associationCategory,
        );
        if (!def) {
          const label = `${spec.associationCategory}=${spec.associationTypeId}`;
          throw invalidAssociations({
            associationSpec: [label],
            INVALID_ASSOCIATION_TYPE_ID: [`${label} is not a valid association definition id`],
          });
        }
        // An archived record is no association target (see store.associate).
        if (store.get(def.to, toId)?.archived !== false)
          missing.push(`${OBJECT_TYPES[def.to].upper}=${toId} is not valid`);
        out.push({ toType: def.to, toId, spec });
      }
    }
    if (missing.length) throw invalidAssociations({ INVALID_OBJECT_IDS: [...new Set(missing)] });
    return out;
  };

  const insert = (
    prepared: ReturnType<typeof prepareCreate>,
    caller: Caller,
  ): { record: CrmRecord; written: Record<string, string> } => {
    const record = store.insert(type, prepared.checked.values, writeSource(ctx, caller));
    for (const a of prepared.associations) store.associate(type, record.id, a.toType, a.toId, [a.spec]);
    return { record, written: prepared.checked.values };
  };

  const readOptions = (req: Request) => {
    const properties = listParam(req.query, 'properties');
    const propertiesWithHistory = listParam(req.query, 'propertiesWithHistory');
    const associations = listParam(req.query, 'associations');
    return {
      ...(properties ? { properties } : {}),
      ...(propertiesWithHistory ? { propertiesWithHistory } : {}),
      ...(associations ? { associations } : {}),
    };
  };

  // --- Basic ---------------------------------------------------------------------------------------

  define('get', base, opName(type, 'basicApi', 'getPage'), (req) => {
    const limit = intParam(req.query, 'limit', { default: 10, max: 100 });
    const after = stringParam(req.query, 'after');
    if (after !== undefined && !/^\d+$/.test(after))
      throw validationError(`after must be a record id, got ${after}`);
    // archived=true lists the recycle bin; by default only live records.
    const archived = boolParam(req.query, 'archived');
    const records = store
      .all(type)
      .filter((r) => r.archived === archived && (after === undefined || compareIds(r.id, after) >= 0));
    const page = records.slice(0, limit);
    const next = records[limit];
    const options = readOptions(req);
    const link = () => {
      const params = new URLSearchParams();
      for (const [key, value] of Object.entries(req.query)) {
        if (key === 'after') continue;
        for (const v of Array.isArray(value) ? value : [value]) params.append(key, String(v));
      }
      params.set('after', next?.id ?? '');
      return `${origin(req)}${base}?${params.toString()}`;
    };
    return {
      results: page.map((r) => presentRecord(store, r, options)),
      ...(next ? { paging: { next: { after: next.id, link: link() } } } : {}),
    };
  });

  define('post', base, opName(type, 'basicApi', 'create'), (req, res, caller) => {
    const prepared = prepareCreate(objectBody(req));
    if (prepared.checked.invalid.length)
      throw invalidPropertyValues(store.portalId, prepared.checked.invalid);
    if (prepared.extra) throw prepared.extra;
    const { record, written } = insert(prepared, caller);
    res.status(201);
    return presentWrite(record, written);
  });

  define('get', `${base}/:id`, opName(type, 'basicApi', 'getById'), (req) => {
    const id = String(req.params.id);
    const record = find(id, stringParam(req.query, 'idProperty'));
    if (!record || record.archived !== boolParam(req.query, 'archived')) throw objectNotFound(id);
    return presentRecord(store, record, readOptions(req));
  });

  // Archive (HubSpot's DELETE moves the record to the recycle bin): 204. For an id that never existed
  // we answer 404 like the other single-record routes (HubSpot's answer there is unconfirmed).
  define('delete', `${base}/:id`, opName(type, 'basicApi', 'archive'), (req, res) => {
    const id = String(req.params.id);
    if (!store.archive(type, id)) throw objectNotFound(id);
    res.status(204).end();
    return undefined;
  });

  define('patch', `${base}/:id`, opName(type, 'basicApi', 'update'), (req, _res, caller) => {
    const id = String(req.params.id);
    const body = objectBody(req);
    const record = find(id, stringParam(req.query, 'idProperty'));
    requireMembers(body, 'SimplePublicObjectInput', ['properties']);
    if (!record || record.archived) throw objectNotFound(id);
    const properties = propertiesOf(body);
    const { values, invalid } = store.checkProperties(type, properties);
    if (invalid.length) throw invalidPropertyValues(store.portalId, invalid);
    const extra = rules.checkUpdate?.(properties);
    if (extra) throw extra;
    store.apply(record, values, writeSource(ctx, caller));
    return presentWrite(record, values);
  });

  // --- Batch ---------------------------------------------------------------------------------------

  const batchResponse = (results: unknown[], errors: unknown[], startedAt: string) => ({
    status: 'COMPLETE',
    results,
    ...(errors.length ? { numErrors: errors.length, errors } : {}),
    startedAt,
    completedAt: new Date().toISOString(),
  });

  define('post', `${base}/batch/read`, opName(type, 'batchApi', 'read'), (req, res) => {
    const startedAt = new Date().toISOString();
    const body = objectBody(req);
    const inputs = batchInputs(req);
    const idProperty = typeof body.idProperty === 'string' ? body.idProperty : undefined;
    const properties = stringList(body.properties, 'properties');
    const propertiesWithHistory = stringList(body.propertiesWithHistory, 'propertiesWithHistory');
    const archived = boolParam(req.query, 'archived');
    const results: unknown[] = [];
    const missing: string[] = [];
    for (const input of inputs) {
      const id = isRecord(input) ? String(input.id ?? '') : '';
      const record = find(id, idProperty);
      if (!record || record.archived !== archived) missing.push(id);
      else {
        results.push(
          presentRecord(store, record, {
            ...(properties ? { properties } : {}),
            ...(propertiesWithHistory ? { propertiesWithHistory } : {}),
          }),
        );
      }
    }
    const errors = missing.length
      ? [
          {
            status: 'error',
            category: 'OBJECT_NOT_FOUND',
            message: `Could not get some ${info.upper} objects, they may be deleted or not exist. Check that ids are valid.`,
            context: { ids: missing },
          },
        ]
      : [];
    res.status(errors.length ? 207 : 200);
    return batchResponse(results, errors, startedAt);
  });

  define('post', `${base}/batch/create`, opName(type, 'batchApi', 'create'), (req, res, caller) => {
    const startedAt = new Date().toISOString();
    const inputs = batchInputs(req);
    const traced =
      inputs.length > 0 && inputs.every((i) => isRecord(i) && typeof i.objectWriteTraceId === 'string');
    const prepared = inputs.map((input) => {
      try {
        return { input, ...prepareCreate(input) };
      } catch (err) {
        if (traced) return { input, failure: err as HubSpotError };
        throw err;
      }
    });
    const errors: unknown[] = [];
    const invalidAll: InvalidProperty[] = [];
    for (const p of prepared) {
      const failure = 'failure' in p ? p.failure : p.checked.invalid.length ? undefined : p.extra;
      const invalid = 'failure' in p ? [] : p.checked.invalid;
      if (!failure && !invalid.length) continue;
      if (!traced) {
        if (failure) throw failure;
        invalidAll.push(...invalid);
        continue;
      }
      const traceId = isRecord(p.input) ? String(p.input.objectWriteTraceId) : '';
      errors.push({
        status: 'error',
        category: failure ? String(failure.body.category ?? 'VALIDATION_ERROR') : 'VALIDATION_ERROR',
        message: failure ? failure.message : propertyValuesMessage(store.portalId, invalid),
        context: { objectWriteTraceId: [traceId] },
      });
    }
    if (invalidAll.length) throw invalidPropertyValues(store.portalId, invalidAll);
    const results = prepared.flatMap((p) => {
      if ('failure' in p || p.checked.invalid.length || p.extra) return [];
      const { record, written } = insert(p, caller);
      return [presentWrite(record, written)];
    });
    res.status(errors.length ? 207 : 201);
    return batchResponse(results, errors, startedAt);
  });

  define('post', `${base}/batch/update`, opName(type, 'batchApi', 'update'), (req, res, caller) => {
    const startedAt = new Date().toISOString();
    const inputs = batchInputs(req).map((input) => {
      if (!isRecord(input)) throw validationError('Invalid input JSON: each input must be an object');
      requireMembers(input, 'SimplePublicObjectBatchInput', ['id', 'properties']);
      const properties = propertiesOf(input);
      const extra = rules.checkUpdate?.(properties);
      if (extra) throw extra;
      return {
        id: String(input.id),
        idProperty: typeof input.idProperty === 'string' ? input.idProperty : undefined,
        traceId: typeof input.objectWriteTraceId === 'string' ? input.objectWriteTraceId : undefined,
        checked: store.checkProperties(type, properties),
      };
    });
    const seen = new Set<string>();
    const duplicates = [...new Set(inputs.map((i) => i.id).filter((id) => seen.has(id) || !seen.add(id)))];
    if (duplicates.length) {
      throw validationError(
        `Duplicate IDs found in batch input: [${duplicates.join(', ')}]. IDs must be unique`,
        {
          context: { ids: duplicates },
        },
      );
    }
    const traced = inputs.length > 0 && inputs.every((i) => i.traceId !== undefined);
    const invalidInputs = inputs.filter((i) => i.checked.invalid.length);
    if (invalidInputs.length && !traced) {
      throw invalidPropertyValues(
        store.portalId,
        invalidInputs.flatMap((i) => i.checked.invalid),
      );
    }
    const errors: unknown[] = invalidInputs.map((i) => ({
      status: 'error',
      category: 'VALIDATION_ERROR',
      message: propertyValuesMessage(store.portalId, i.checked.invalid),
      context: { objectWriteTraceId: [i.traceId ?? ''] },
    }));
    const results: unknown[] = [];
    const missing: string[] = [];
    const source = writeSource(ctx, caller);
    for (const input of inputs) {
      if (input.checked.invalid.length) continue;
      const record = find(input.id, input.idProperty);
      if (!record || record.archived) {
        missing.push(input.id);
        continue;
      }
      store.apply(record, input.checked.values, source);
      results.push(presentWrite(record, input.checked.values));
    }
    if (missing.length) {
      errors.push({
        status: 'error',
        category: 'OBJECT_NOT_FOUND',
        message: `Could not get some ${info.upper} objects, they may be deleted or not exist. Check that ids are valid.`,
        context: { ids: missing },
      });
    }
    res.status(errors.length ? 207 : 200);
    return batchResponse(results, errors, startedAt);
  });

  // --- Search --------------------------------------------------------------------------------------

  define(
    'post',
    `${base}/search`,
    opName(type, 'searchApi', 'doSearch'),
    (req) => {
      const search = parseSearch(store, type, objectBody(req));
      const matches = runSearch(store, type, search);
      const reachable = Math.min(matches.length, SEARCH_RESULT_CAP);
      const page = matches.slice(search.offset, Math.min(search.offset + search.limit, reachable));
      const nextOffset = search.offset + search.limit;
      return {
        total: matches.length,
        results: page.map((r) =>
          presentRecord(store, r, {
            ...(search.properties ? { properties: search.properties } : {}),
            nullForMissing: true,
          }),
        ),
        ...(nextOffset < reachable ? { paging: { next: { after: String(nextOffset) } } } : {}),
      };
    },
    { search: true },
  );
}
