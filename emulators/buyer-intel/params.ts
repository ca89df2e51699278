// Query parameter parsing with the provider's tolerance: arrays arrive repeated (`a=x&a=y`) or
// comma-separated (`a=x,y`, the reference's form style), and both are accepted.
import type { Request } from 'express';
import { badRequest } from './http-error.ts';

type Query = Request['query'];

export function arrayParam(query: Query, name: string): string[] | undefined {
  const raw = query[name];
  if (raw === undefined) return undefined;
  const parts = (Array.isArray(raw) ? raw : [raw]).flatMap((v) => String(v).split(','));
  const values = parts.map((v) => v.trim()).filter(Boolean);
  return values.length ? values : undefined;
}

export function stringParam(query: Query, name: string): string | undefined {
  const raw = query[name];
  if (raw === undefined) return undefined;
  const value = Array.isArray(raw) ? raw[0] : raw;
  return typeof value === 'string' ? value : undefined;
}

export function intParam(
  query: Query,
  name: string,
  bounds: { default: number; min: number; max?: number },
): number {
  const raw = stringParam(query, name);
  if (raw === undefined || raw === '') return bounds.default;
  if (!/^-?\d+$/.test(raw.trim()))
    throw badRequest('request.parameter.invalid', `${name} must be an integer`);
  const n = Number(raw);
  if (n < bounds.min || (bounds.max !== undefined && n > bounds.max)) {
    const range =
      bounds.max === undefined ? `at least ${bounds.min}` : `between ${bounds.min} and ${bounds.max}`;
    throw badRequest('request.parameter.out_of_range', `${name} must be ${range}, got ${n}`);
  }
  return n;
}

export function enumParam<T extends string>(
  query: Query,
  name: string,
  allowed: readonly T[],
): T | undefined {
  const raw = stringParam(query, name);
  if (raw === undefined || raw === '') return undefined;
  if (!(allowed as readonly string[]).includes(raw)) {
    throw badRequest(
      'request.parameter.invalid',
      `${name} must be one of ${allowed.join(', ')}; got "${raw}"`,
    );
  }
  return raw as T;
}

export function enumArrayParam<T extends string>(
  query: Query,
  name: string,
  allowed: readonly T[],
): T[] | undefined {
  const values = arrayParam(query, name);
  if (!values) return undefined;
  const bad = values.filter((v) => !(allowed as readonly string[]).includes(v));
  if (bad.length) {
    throw badRequest(
      'request.parameter.invalid',
      `${name} has unknown value(s) ${bad.join(', ')}; allowed: ${allowed.join(', ')}`,
    );
  }
  return values as T[];
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
export const isUuid = (value: string) => UUID.test(value);

export function uuidParam(value: string | undefined, name: string): string {
  if (!value) throw badRequest('request.parameter.missing', `${name} is required`);
  if (!isUuid(value)) throw badRequest('request.parameter.invalid', `${name} must be a UUID, got "${value}"`);
  return value.toLowerCase();
}
