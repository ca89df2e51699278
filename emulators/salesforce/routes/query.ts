// GET /query?q=SOQL → {totalSize, done, [nextRecordsUrl], records}; batches of 2000 by default (the
// `Sforce-Query-Options: batchSize=N` header asks for 200..2000), the rest behind
// nextRecordsUrl = /services/data/vXX.X/query/01g…-2000 → GET /query/{locator}. The result set is fixed
// when the query runs (a server-side cursor).

import { invalidQueryLocator, malformedQuery } from '../errors.ts';
import { KEY_PREFIXES } from '../ids.ts';
import { apiVersion, type OperationContext, type RouteModule } from '../operation.ts';
import { type PresentedRecord, presentRecord } from '../present.ts';
import { parseSoql, runSoql } from '../soql.ts';

interface Cursor {
  records: PresentedRecord[];
  batchSize: number;
}

function page(version: string, locator: string, cursor: Cursor, offset: number) {
  const end = offset + cursor.batchSize;
  const done = end >= cursor.records.length;
  return {
    totalSize: cursor.records.length,
    done,
    ...(done ? {} : { nextRecordsUrl: `/services/data/v${version}/query/${locator}-${end}` }),
    records: cursor.records.slice(offset, end),
  };
}

function batchSize(ctx: OperationContext, header: string | undefined): number {
  const asked = /batchSize=(\d+)/i.exec(header ?? '')?.[1];
  if (asked === undefined) return ctx.query.batchSize;
  return Math.min(2000, Math.max(200, Number(asked)));
}

export const registerQueryRoutes: RouteModule = (define, ctx) => {
  const cursors = new Map<string, Cursor>();

  define('get', '/query', 'query', (req) => {
    const q = typeof req.query.q === 'string' ? req.query.q : undefined;
    if (!q) throw malformedQuery('A query string must be specified (q parameter)');
    const query = parseSoql(q, ctx.store);
    const version = apiVersion(req);
    const cursor: Cursor = {
      records: runSoql(query, ctx.store).map((r) => presentRecord(version, r, query.fields)),
      batchSize: batchSize(ctx, req.get('Sforce-Query-Options')),
    };
    const locator = ctx.store.ids.next(KEY_PREFIXES.QueryLocator);
    if (cursor.records.length > cursor.batchSize) cursors.set(locator, cursor);
    return page(version, locator, cursor, 0);
  });

  define('get', '/query/:locator', 'queryMore', (req) => {
    const m = /^([A-Za-z0-9]{15,18})-(\d+)$/.exec(String(req.params.locator));
    const cursor = m?.[1] ? cursors.get(m[1]) : undefined;
    if (!m?.[1] || !cursor) throw invalidQueryLocator();
    const offset = Number(m[2]);
    if (offset >= cursor.records.length) throw invalidQueryLocator();
    const result = page(apiVersion(req), m[1], cursor, offset);
    if (result.done) cursors.delete(m[1]);
    return result;
  });
};
