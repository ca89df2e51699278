import type { Request } from 'express';
import {
  RELATIVE_DATE_PERIODS,
  type RelativeDatePeriod,
  ROW_STATUSES,
  SIGNAL_FILTER_TYPES,
  SIGNAL_SORTS,
  type SignalSort,
} from '../../../src/buyer-intel/enums.ts';
import { canSee } from '../access.ts';
import type { SandboxRow } from '../data/dataset.ts';
import { notFound } from '../http-error.ts';
import type { Caller, OperationContext, RouteModule } from '../operation.ts';
import { pageParams, paginate } from '../paging.ts';
import { arrayParam, enumArrayParam, enumParam, stringParam, uuidParam } from '../params.ts';
import { bridgeBrief, bridgeRow } from '../present.ts';

const DAY = 86_400_000;

/** Lower bound of a relative period, counted back from `now` (calendar months and years where named so). */
export function periodStart(period: RelativeDatePeriod, now: Date): Date {
  const months = (n: number) => {
    const d = new Date(now);
    d.setUTCMonth(d.getUTCMonth() - n);
    return d;
  };
  switch (period) {
    case 'LastOneDay':
      return new Date(now.getTime() - DAY);
    case 'LastSevenDays':
      return new Date(now.getTime() - 7 * DAY);
    case 'LastThirtyDays':
      return new Date(now.getTime() - 30 * DAY);
    case 'LastSixtyDays':
      return new Date(now.getTime() - 60 * DAY);
    case 'LastOneMonths':
      return months(1);
    case 'LastTwoMonths':
      return months(2);
    case 'LastThreeMonths':
      return months(3);
    case 'LastSixMonths':
      return months(6);
    case 'LastNineMonths':
      return months(9);
    case 'LastYear':
      return months(12);
    case 'LastTwoYears':
      return months(24);
  }
}

/**
 * The rows in each sort's order, sorted once per list and kept: sorting the org-wide feed's ~20,000
 * rows on every page (string compares) held the emulator's event loop ~20 ms a page, and the requests
 * of that moment then met the token bucket together (bench, issue #42). The filter keeps the order.
 */
const sorted = new WeakMap<readonly SandboxRow[], Map<SignalSort, readonly SandboxRow[]>>();
function sortedRows(rows: readonly SandboxRow[], sort: SignalSort): readonly SandboxRow[] {
  const bySort = sorted.get(rows) ?? new Map<SignalSort, readonly SandboxRow[]>();
  sorted.set(rows, bySort);
  let list = bySort.get(sort);
  if (!list) {
    list = [...rows].sort((a, b) =>
      sort === 'Hotness'
        ? b.hotness - a.hotness || compareDesc(a.signalDate, b.signalDate)
        : compareDesc(a.signalDate, b.signalDate) || b.hotness - a.hotness,
    );
    bySort.set(sort, list);
  }
  return list;
}

/** ISO dates compare as strings; descending. */
const compareDesc = (a: string, b: string) => (a < b ? 1 : a > b ? -1 : 0);

// "Filtering on Actioned will include Sponsoring and Attending" (reference, BridgeRowStatus).
const expandStatus = (s: string) => (s === 'Actioned' ? ['Actioned', 'Sponsoring', 'Attending'] : [s]);

function feed(
  ctx: OperationContext,
  req: Request,
  caller: Caller,
  rows: readonly SandboxRow[],
  defaults: { sort: SignalSort; period: RelativeDatePeriod },
) {
  const q = req.query;
  const triggerIds = arrayParam(q, 'triggerIds')?.map((id) => uuidParam(id, 'triggerIds'));
  const types = enumArrayParam(q, 'filterType', SIGNAL_FILTER_TYPES);
  const statuses = (enumArrayParam(q, 'status', ROW_STATUSES) ?? ['New']).flatMap(expandStatus);
  const period = enumParam(q, 'relativeDatePeriodFrom', RELATIVE_DATE_PERIODS) ?? defaults.period;
  const sort = enumParam(q, 'sort', SIGNAL_SORTS) ?? defaults.sort;
  const text = stringParam(q, 'query')?.trim().toLowerCase();
  const page = pageParams(req);
  const from = periodStart(period, new Date()).toISOString();

  const selected = sortedRows(rows, sort).filter((r) => {
    const bridge = ctx.dataset.bridgesById.get(r.bridgeId);
    if (!bridge || !canSee(caller, bridge)) return false;
    if (triggerIds && !triggerIds.includes(r.bridgeId)) return false;
    if (types && !types.includes(bridge.filterType as (typeof types)[number])) return false;
    if (!statuses.includes(r.userStatus)) return false;
    if (r.signalDate < from) return false;
    if (
      text &&
      !r.name.toLowerCase().includes(text) &&
      !JSON.stringify(r.columns).toLowerCase().includes(text)
    )
      return false;
    return true;
  });
  return paginate(selected, page, (r) => {
    const bridge = ctx.dataset.bridgesById.get(r.bridgeId);
    return { bridge: bridge ? bridgeBrief(bridge) : null, row: bridgeRow(r) };
  });
}

export const registerFeedRoutes: RouteModule = (define, ctx) => {
  define('get', '/api/external/feed/all/buyer-signals', 'listRecentBuyerSignals', (req, _res, caller) => {
    const buyerId = uuidParam(stringParam(req.query, 'buyerId'), 'buyerId');
    if (!ctx.dataset.buyersById.has(buyerId))
      throw notFound('resource.buyer.not_found', `no buyer with id ${buyerId}`);
    return feed(ctx, req, caller, ctx.dataset.rowsByBuyer.get(buyerId) ?? [], {
      sort: 'Date',
      period: 'LastOneMonths',
    });
  });

  define('get', '/api/external/feed/all/top-signals', 'listTopRecentSignals', (req, _res, caller) =>
    feed(ctx, req, caller, ctx.dataset.rows, { sort: 'Hotness', period: 'LastSevenDays' }),
  );
};
