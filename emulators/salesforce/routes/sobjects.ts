// sObject rows: GET (optional `fields=a,b`), POST create → 201 {id, success, errors}, PATCH → 204,
// DELETE → 204; GET /sobjects/{type}/{id}/{field} answers a base64 field's bytes (a note's HTML, a
// file's data); GET /sobjects/{type}/describe the object's fields (describe.ts).
import { describeSObject } from '../describe.ts';
import { notFound, SalesforceError } from '../errors.ts';
import { isWellFormedId } from '../ids.ts';
import { apiVersion, type RouteModule } from '../operation.ts';
import { presentRecord } from '../present.ts';
import { resolveType, type SObjectType } from '../store.ts';

export const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

function typeOf(name: unknown): SObjectType {
  const type = resolveType(String(name));
  if (!type) throw notFound();
  return type;
}

/** A JSON object body; an array or scalar is JSON_PARSER_ERROR like Salesforce's deserializer. */
export function objectBody(body: unknown): Record<string, unknown> {
  if (!isRecord(body))
    throw new SalesforceError(400, [
      {
        message: `Cannot deserialize instance of sObject from ${Array.isArray(body) ? 'START_ARRAY' : 'VALUE_STRING'} value`,
        errorCode: 'JSON_PARSER_ERROR',
      },
    ]);
  return body;
}

/**
 * The `{id}` path segment. A value that is no record id answers 404 NOT_FOUND "Provided external ID field
 * does not exist or is not accessible" (Salesforce reads it as an external-id field name).
 */
function rowId(raw: unknown): string {
  const id = String(raw);
  if (!isWellFormedId(id))
    throw notFound(`Provided external ID field does not exist or is not accessible: ${id}`);
  return id;
}

export const registerSObjectRoutes: RouteModule = (define, ctx) => {
  // Before /:type/:id, which would take "describe" for a record id.
  define('get', '/sobjects/:type/describe', 'sobjects.describe', (req) =>
    describeSObject(ctx.store, typeOf(req.params.type)),
  );

  define('get', '/sobjects/:type/:id', 'sobjects.retrieve', (req) => {
    const type = typeOf(req.params.type);
    const record = ctx.store.find(type, rowId(req.params.id));
    const raw = typeof req.query.fields === 'string' ? req.query.fields : undefined;
    const fields = raw
      ? raw
          .split(',')
          .map((f) => f.trim())
          .filter(Boolean)
          .map((f) => ctx.store.fieldName(type, f))
      : ctx.store.fields(type);
    return presentRecord(apiVersion(req), record, fields);
  });

  define('get', '/sobjects/:type/:id/:field', 'sobjects.blob', (req, res) => {
    const type = typeOf(req.params.type);
    const bytes = ctx.store.blob(type, rowId(req.params.id), String(req.params.field));
    res.status(200).setHeader('Content-Type', 'application/octetstream');
    res.send(bytes ?? Buffer.alloc(0));
  });

  define('post', '/sobjects/:type', 'sobjects.create', (req, res) => {
    const type = typeOf(req.params.type);
    const { attributes: _a, ...values } = objectBody(req.body);
    const record = ctx.store.create(type, values);
    res.status(201);
    return { id: record.id, success: true, errors: [] };
  });

  define('patch', '/sobjects/:type/:id', 'sobjects.update', (req, res) => {
    const type = typeOf(req.params.type);
    const { attributes: _a, ...values } = objectBody(req.body);
    ctx.store.update(type, rowId(req.params.id), values);
    res.status(204).end();
  });

  define('delete', '/sobjects/:type/:id', 'sobjects.delete', (req, res) => {
    const type = typeOf(req.params.type);
    ctx.store.delete(type, rowId(req.params.id));
    res.status(204).end();
  });
};
