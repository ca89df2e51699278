// sObject Collections: POST /composite/sobjects (create) and PATCH /composite/sobjects (update), up to
// 200 records of `{attributes: {type}, ...fields}` (updates carry `id`, each id once: refuseDuplicateIds).
// Results in request order: `{id, success: true, errors: []}` or `{success: false, errors: [{statusCode,
// message, fields}]}`; an update of an id naming no record is INVALID_CROSS_REFERENCE_KEY.
// allOrNone: nothing is written when any record fails; the valid ones answer
// ALL_OR_NONE_OPERATION_ROLLED_BACK. DELETE /composite/sobjects?ids=a,b[&allOrNone=true] deletes up to
// 200 records of any type: `{id, success: true, errors: []}` or `{id, success: false, errors}` (no id
// for a malformed one). A deleted record (recycle bin) answers ENTITY_IS_DELETED; deleting a ContentNote
// or ContentDocument deletes its versions and links too (store.ts).
import { SalesforceError } from '../errors.ts';
import { canonicalId, isWellFormedId } from '../ids.ts';
import type { OperationContext, RouteModule } from '../operation.ts';
import { resolveType, type SObjectType } from '../store.ts';
import { isRecord, objectBody } from './sobjects.ts';

export const MAX_COLLECTION_RECORDS = 200;

interface RecordError {
  statusCode: string;
  message: string;
  fields: string[];
}

type SaveResult = { id?: string; success: boolean; errors: RecordError[] };

interface Item {
  type: SObjectType;
  id?: string;
  values: Record<string, unknown>;
}

const recordErrors = (err: SalesforceError): RecordError[] =>
  err.errors.map((e) => ({ statusCode: e.errorCode, message: e.message, fields: e.fields ?? [] }));

function parseItems(body: unknown, update: boolean): { allOrNone: boolean; items: (Item | RecordError)[] } {
  const { allOrNone, records } = objectBody(body);
  if (!Array.isArray(records))
    throw new SalesforceError(400, [{ message: 'records is required', errorCode: 'JSON_PARSER_ERROR' }]);
  if (records.length > MAX_COLLECTION_RECORDS)
    throw new SalesforceError(400, [
      {
        message: `record limit reached. cannot submit more than ${MAX_COLLECTION_RECORDS} records into this call`,
        errorCode: 'EXCEEDED_ID_LIMIT',
        fields: [],
      },
    ]);
  const items = records.map((r): Item | RecordError => {
    if (!isRecord(r))
      return { statusCode: 'JSON_PARSER_ERROR', message: 'record must be an object', fields: [] };
    const { attributes, id, Id, ...values } = r;
    const type = isRecord(attributes) ? resolveType(String(attributes.type)) : undefined;
    if (!type)
      return {
        statusCode: 'INVALID_TYPE',
        message: 'Must send a concrete entity type.',
        fields: [],
      };
    if (!update)
      return { type, values: id === undefined && Id === undefined ? values : { Id: id ?? Id, ...values } };
    const recordId = id ?? Id;
    if (typeof recordId !== 'string')
      return { statusCode: 'MISSING_ARGUMENT', message: 'Id not specified in an update call', fields: [] };
    return { type, id: recordId, values };
  });
  return { allOrNone: allOrNone === true, items };
}

/**
 * The same record twice in one update (its 15- and 18-character ids included) fails the whole call:
 * 400, nothing written, whatever allOrNone says. The REST guide is silent. Salesforce Help 000384876
 * says an update naming one id twice in a batch "will fail with 'Duplicate Id Specified' and specify the
 * duplicate Id" ("Duplicate id specified: 0013000000auCyTAAU"), and Apex's Database.update(list, false)
 * throws for the whole list, allOrNone false or not ("Duplicate id in list",
 * salesforce.stackexchange.com/questions/214333). No document gives the REST errorCode: DUPLICATE_VALUE
 * is the documented code for a value that must be unique, which an Id is.
 */
function refuseDuplicateIds(items: readonly (Item | RecordError)[]): void {
  const seen = new Set<string>();
  for (const item of items) {
    if (!('type' in item) || item.id === undefined) continue;
    const key = isWellFormedId(item.id) ? canonicalId(item.id) : item.id;
    if (seen.has(key))
      throw new SalesforceError(400, [
        { message: `Duplicate id specified: ${item.id}`, errorCode: 'DUPLICATE_VALUE', fields: [] },
      ]);
    seen.add(key);
  }
}

/**
 * A record an update names that does not exist (never did, or purged from the recycle bin). A single
 * PATCH /sobjects/{type}/{id} answers 404 NOT_FOUND for its URL (REST guide, "Status Codes and Error
 * Responses": the resource was not found); inside a collection no document shows NOT_FOUND as a
 * record's statusCode, nor says what an unknown id answers. Of the documented record status codes the
 * one for an id that names no record is INVALID_CROSS_REFERENCE_KEY "invalid cross reference id" (what
 * this emulator answers for a reference field naming none, too); a record in the recycle bin stays
 * ENTITY_IS_DELETED "entity is deleted".
 */
const MISSING_RECORD: RecordError = {
  statusCode: 'INVALID_CROSS_REFERENCE_KEY',
  message: 'invalid cross reference id',
  fields: [],
};

function save(ctx: OperationContext, body: unknown, update: boolean): SaveResult[] {
  const { allOrNone, items } = parseItems(body, update);
  // The deserializer reads the whole body first: a value of the wrong type fails the request, not a record.
  for (const item of items) if ('type' in item) ctx.store.checkDeserializable(item.type, item.values);
  if (update) refuseDuplicateIds(items);
  const check = (item: Item | RecordError): RecordError[] => {
    if (!('type' in item)) return [item];
    try {
      if (item.id !== undefined) ctx.store.validateUpdate(item.type, item.id, item.values);
      else ctx.store.validateCreate(item.type, item.values);
      return [];
    } catch (err) {
      if (!(err instanceof SalesforceError)) throw err;
      if (item.id !== undefined && err.errors[0]?.errorCode === 'NOT_FOUND') return [MISSING_RECORD];
      return recordErrors(err);
    }
  };
  if (allOrNone) {
    const problems = items.map(check);
    if (problems.some((p) => p.length > 0)) {
      return problems.map((errors, i) => {
        const item = items[i];
        const id = item && 'id' in item && item.id !== undefined ? { id: item.id } : {};
        return errors.length
          ? { success: false, errors }
          : {
              ...id,
              success: false,
              errors: [
                {
                  statusCode: 'ALL_OR_NONE_OPERATION_ROLLED_BACK',
                  message:
                    'Record rolled back because not all records were valid and the request was using AllOrNone header',
                  fields: [],
                },
              ],
            };
      });
    }
  }
  return items.map((item): SaveResult => {
    const errors = check(item);
    if (errors.length || !('type' in item)) return { success: false, errors };
    const record =
      item.id !== undefined
        ? ctx.store.update(item.type, item.id, item.values)
        : ctx.store.create(item.type, item.values);
    return { id: record.id, success: true, errors: [] };
  });
}

function destroy(ctx: OperationContext, rawIds: unknown, rawAllOrNone: unknown): SaveResult[] {
  const ids = typeof rawIds === 'string' ? rawIds.split(',').filter((id) => id !== '') : [];
  if (ids.length === 0)
    throw new SalesforceError(400, [
      { message: 'ids parameter is required', errorCode: 'MISSING_ARGUMENT', fields: ['ids'] },
    ]);
  if (ids.length > MAX_COLLECTION_RECORDS)
    throw new SalesforceError(400, [
      {
        message: `record limit reached. cannot submit more than ${MAX_COLLECTION_RECORDS} records into this call`,
        errorCode: 'EXCEEDED_ID_LIMIT',
        fields: [],
      },
    ]);
  const checkOne = (id: string): RecordError[] => {
    try {
      ctx.store.find(ctx.store.typeOf(id), id);
      if (ctx.store.typeOf(id) === 'ContentVersion') {
        return [
          {
            statusCode: 'INVALID_TYPE_FOR_OPERATION',
            message: 'entity type cannot be deleted: Content Version',
            fields: [],
          },
        ];
      }
      return [];
    } catch (err) {
      if (err instanceof SalesforceError) return recordErrors(err);
      throw err;
    }
  };
  // The REST API guide's example (allOrNone false) answers a malformed id without `id`: it names no record.
  const idOf = (id: string, errors: RecordError[]) =>
    errors[0]?.statusCode === 'MALFORMED_ID' ? {} : { id };
  if (String(rawAllOrNone).toLowerCase() === 'true') {
    const problems = ids.map(checkOne);
    if (problems.some((p) => p.length > 0))
      return ids.map((id, i) => ({
        ...idOf(id, problems[i] ?? []),
        success: false,
        errors: problems[i]?.length
          ? (problems[i] ?? [])
          : [
              {
                statusCode: 'ALL_OR_NONE_OPERATION_ROLLED_BACK',
                message:
                  'Record rolled back because not all records were valid and the request was using AllOrNone header',
                fields: [],
              },
            ],
      }));
  }
  return ids.map((id): SaveResult => {
    const errors = checkOne(id);
    if (errors.length) return { ...idOf(id, errors), success: false, errors };
    ctx.store.delete(ctx.store.typeOf(id), id);
    return { id, success: true, errors: [] };
  });
}

export const registerCompositeRoutes: RouteModule = (define, ctx) => {
  define('delete', '/composite/sobjects', 'composite.sobjects.delete', (req) =>
    destroy(ctx, req.query.ids, req.query.allOrNone),
  );
  define('post', '/composite/sobjects', 'composite.sobjects.create', (req) => save(ctx, req.body, false));
  define('patch', '/composite/sobjects', 'composite.sobjects.update', (req) => save(ctx, req.body, true));
};
