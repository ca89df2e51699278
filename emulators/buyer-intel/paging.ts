import type { Request } from 'express';
import { intParam } from './params.ts';

/** Page bounds of the reference: pageNumber ≥ 1, 0 < pageSize ≤ 100, defaults 1 and 10; else 400. */
export function pageParams(req: Request): { pageNumber: number; pageSize: number } {
  return {
    pageNumber: intParam(req.query, 'pageNumber', { default: 1, min: 1 }),
    pageSize: intParam(req.query, 'pageSize', { default: 10, min: 1, max: 100 }),
  };
}

export function paginate<T, U>(
  items: readonly T[],
  page: { pageNumber: number; pageSize: number },
  map: (t: T) => U,
) {
  const start = (page.pageNumber - 1) * page.pageSize;
  return {
    pageNumber: page.pageNumber,
    pageSize: page.pageSize,
    totalItems: items.length,
    totalPages: Math.ceil(items.length / page.pageSize),
    result: items.slice(start, start + page.pageSize).map(map),
  };
}
