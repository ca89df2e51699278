// Request parsing with HubSpot's tolerance: array query parameters arrive repeated (`properties=a&properties=b`,
// as @hubspot/api-client sends them) or comma-separated (`properties=a,b`, as the docs show), and both work.
import type { Request } from 'express';
import { unknownObjectType, validationError } from './errors.ts';
import { type ObjectType, resolveObjectType } from './object-types.ts';

type Query = Request['query'];

export function listParam(query: Query, name: string): string[] | undefined {
  const raw = query[name];
  if (raw === undefined) return undefined;
  const values = (Array.isArray(raw) ? raw : [raw])
    .flatMap((v) => String(v).split(','))
    .map((v) => v.trim())
    .filter(Boolean);
  return values.length ? values : undefined;
}

export function stringParam(query: Query, name: string): string | undefined {
  const raw = query[name];
  const value = Array.isArray(raw) ? raw[0] : raw;
  return typeof value === 'string' ? value : undefined;
}

export function boolParam(query: Query, name: string): boolean {
  return stringParam(query, name)?.toLowerCase() === 'true';
}

export function intParam(query: Query, name: string, bounds: { default: number; max: number }): number {
  const raw = stringParam(query, name);
  if (raw === undefined || raw === '') return bounds.default;
  if (!/^\d+$/.test(raw)) throw validationError(`${name} must be a positive integer, got ${raw}`);
  const n = Number(raw);
  if (n < 1 || n > bounds.max) throw validationError(`${name} must be between 1 and ${bounds.max}, got ${n}`);
  return n;
}

export const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** The JSON object body of a POST/PATCH, or HubSpot's 400. */
export function objectBody(req: Request): Record<string, unknown> {
  if (!isRecord(req.body))
    throw validationError('Invalid input JSON: the request body must be a JSON object');
  return req.body;
}

/** A properties map from a request body (absent = none). */
/**
 * The required `properties` of a write input (SimplePublicObjectInput and its batch forms): HubSpot's
 * deserializer refuses an input without them, as it does any other required member, with 400
 * VALIDATION_ERROR. (`associations`, required by the create schemas, is not: HubSpot's own guides create
 * records without it.)
 */
export function requireMembers(input: Record<string, unknown>, schema: string, members: string[]): void {
  const missing = members.filter((m) => input[m] === undefined || input[m] === null);
  if (missing.length)
    throw validationError(
      `Invalid input JSON on line 1, column 2: Cannot build ${schema}, some of required attributes are not set [${missing.join(', ')}]`,
    );
}

export function propertiesOf(body: Record<string, unknown>, field = 'properties'): Record<string, unknown> {
  const value = body[field];
  if (value === undefined || value === null) return {};
  if (!isRecord(value)) throw validationError(`Invalid input JSON: ${field} must be an object`);
  return value;
}

export function stringList(value: unknown, field: string): string[] | undefined {
  if (value === undefined || value === null) return undefined;
  if (!Array.isArray(value) || value.some((v) => typeof v !== 'string')) {
    throw validationError(`Invalid input JSON: ${field} must be an array of strings`);
  }
  return value as string[];
}

export function objectTypeParam(raw: string | undefined): ObjectType {
  const type = resolveObjectType(raw);
  if (!type) throw unknownObjectType(raw ?? '');
  return type;
}

/** `scheme://host` of the request, for `paging.next.link`. */
export function origin(req: Request): string {
  return `${req.protocol}://${req.get('host') ?? 'localhost'}`;
}
