// Associations v4 (/crm/v4/objects/{type}/{id}/associations/...) and their batch read
// (/crm/v4/associations/{from}/{to}/batch/read). An association is visible from both sides: creating
// note→company (190) also creates company→note (189). Object ids are strings, as associations-v4.json
// declares them; unlabelled types carry `label: null` (HubSpot's answers; the spec says string).
import { validationError } from '../errors.ts';
import { defaultAssociationType, OBJECT_TYPES } from '../object-types.ts';
import type { RouteModule } from '../operation.ts';
import { intParam, isRecord, objectBody, objectTypeParam, origin, stringParam } from '../request.ts';
import { compareIds } from '../store.ts';

const V4 = '/crm/v4/objects';
/** The batch read's input limit (developer changelog, "Batch Read Limit for HubSpot Associations API"). */
export const ASSOCIATION_BATCH_READ_LIMIT = 1000;
/** Associations per input per page: the single list's largest page (HubSpot does not document it). */
const BATCH_READ_PAGE = 500;

export const registerAssociationRoutes: RouteModule = (define, ctx) => {
  const { store } = ctx;

  define(
    'put',
    `${V4}/:objectType/:objectId/associations/default/:toObjectType/:toObjectId`,
    'crm.associations.v4.basicApi.createDefault',
    (req) => {
      const startedAt = new Date().toISOString();
      const fromType = objectTypeParam(String(req.params.objectType));
      const toType = objectTypeParam(String(req.params.toObjectType));
      const fromId = String(req.params.objectId);
      const toId = String(req.params.toObjectId);
      const def = defaultAssociationType(fromType, toType);
      if (!def) {
        throw validationError(`There is no default association type from ${fromType} to ${toType}`);
      }
      store.associate(fromType, fromId, toType, toId, [
        { associationCategory: def.category, associationTypeId: def.typeId },
      ]);
      return {
        status: 'COMPLETE',
        results: [
          {
            from: { id: fromId },
            to: { id: toId },
            associationSpec: { associationCategory: def.category, associationTypeId: def.typeId },
          },
          {
            from: { id: toId },
            to: { id: fromId },
            associationSpec: { associationCategory: def.category, associationTypeId: def.inverseTypeId },
          },
        ],
        startedAt,
        completedAt: new Date().toISOString(),
      };
    },
  );

  define(
    'put',
    `${V4}/:objectType/:objectId/associations/:toObjectType/:toObjectId`,
    'crm.associations.v4.basicApi.create',
    (req, res) => {
      const fromType = objectTypeParam(String(req.params.objectType));
      const toType = objectTypeParam(String(req.params.toObjectType));
      const fromId = String(req.params.objectId);
      const toId = String(req.params.toObjectId);
      const body: unknown = req.body;
      if (!Array.isArray(body) || body.length === 0) {
        throw validationError('Invalid input JSON: the body must be a non-empty array of association types');
      }
      const specs = body.map((s) => {
        if (!isRecord(s))
          throw validationError('Invalid input JSON: each association type must be an object');
        return {
          associationCategory: String(s.associationCategory),
          associationTypeId: Number(s.associationTypeId),
        };
      });
      const defs = store.associate(fromType, fromId, toType, toId, specs);
      res.status(201);
      return {
        fromObjectTypeId: OBJECT_TYPES[fromType].typeId,
        fromObjectId: fromId,
        toObjectTypeId: OBJECT_TYPES[toType].typeId,
        toObjectId: toId,
        labels: defs.map((d) => d.label).filter((l): l is string => l !== null),
      };
    },
  );

  define(
    'get',
    `${V4}/:objectType/:objectId/associations/:toObjectType`,
    'crm.associations.v4.basicApi.getPage',
    (req) => {
      const fromType = objectTypeParam(String(req.params.objectType));
      const toType = objectTypeParam(String(req.params.toObjectType));
      const fromId = String(req.params.objectId);
      const limit = intParam(req.query, 'limit', { default: 500, max: 500 });
      const after = stringParam(req.query, 'after');
      const all = store.associations(fromType, fromId, toType);
      if (after !== undefined && !/^\d+$/.test(after))
        throw validationError(`after must be an object id, got ${after}`);
      // The cursor is the id of the first association of the next page.
      const start = after === undefined ? 0 : all.filter((a) => compareIds(a.toId, after) < 0).length;
      const page = all.slice(start, start + limit);
      const next = all[start + limit];
      return {
        results: page.map((a) => ({
          toObjectId: a.toId,
          associationTypes: a.types.map((t) => ({ category: t.category, typeId: t.typeId, label: t.label })),
        })),
        ...(next
          ? {
              paging: {
                next: {
                  after: next.toId,
                  link: `${origin(req)}${V4}/${req.params.objectType}/${fromId}/associations/${req.params.toObjectType}?limit=${limit}&after=${next.toId}`,
                },
              },
            }
          : {}),
      };
    },
  );

  define(
    'post',
    '/crm/v4/associations/:fromObjectType/:toObjectType/batch/read',
    'crm.associations.v4.batchApi.getPage',
    (req, res) => {
      const startedAt = new Date().toISOString();
      const fromType = objectTypeParam(String(req.params.fromObjectType));
      const toType = objectTypeParam(String(req.params.toObjectType));
      const inputs = objectBody(req).inputs;
      if (!Array.isArray(inputs)) throw validationError('Invalid input JSON: inputs must be an array');
      if (inputs.length > ASSOCIATION_BATCH_READ_LIMIT) {
        throw validationError(
          `Batch input limit exceeded: ${inputs.length} inputs. The maximum is ${ASSOCIATION_BATCH_READ_LIMIT}.`,
          { context: { limit: [String(ASSOCIATION_BATCH_READ_LIMIT)] } },
        );
      }
      const results: unknown[] = [];
      const missing: string[] = [];
      for (const input of inputs) {
        if (!isRecord(input) || (typeof input.id !== 'string' && typeof input.id !== 'number'))
          throw validationError('Invalid input JSON: each input must have an id');
        const id = String(input.id);
        const after = input.after === undefined || input.after === null ? undefined : String(input.after);
        if (after !== undefined && !/^\d+$/.test(after))
          throw validationError(`after must be an object id, got ${after}`);
        const record = /^\d+$/.test(id) ? store.get(fromType, id) : undefined;
        if (!record || record.archived) {
          missing.push(id);
          continue;
        }
        // Each input pages on its own: `after` (from its result's paging) is the next page's first id.
        const all = store.associations(fromType, id, toType);
        const start = after === undefined ? 0 : all.filter((a) => compareIds(a.toId, after) < 0).length;
        const next = all[start + BATCH_READ_PAGE];
        results.push({
          from: { id },
          to: all.slice(start, start + BATCH_READ_PAGE).map((a) => ({
            toObjectId: a.toId,
            associationTypes: a.types.map((t) => ({
              category: t.category,
              typeId: t.typeId,
              label: t.label,
            })),
          })),
          ...(next ? { paging: { next: { after: next.toId } } } : {}),
        });
      }
      const errors = missing.length
        ? [
            {
              status: 'error',
              category: 'OBJECT_NOT_FOUND',
              message: `Could not get some ${OBJECT_TYPES[fromType].upper} objects, they may be deleted or not exist. Check that ids are valid.`,
              context: { ids: missing },
            },
          ]
        : [];
      res.status(errors.length ? 207 : 200);
      return {
        status: 'COMPLETE',
        results,
        ...(errors.length ? { numErrors: errors.length, errors } : {}),
        startedAt,
        completedAt: new Date().toISOString(),
      };
    },
  );
};
