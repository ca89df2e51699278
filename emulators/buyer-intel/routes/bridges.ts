import {
  BRIDGE_FILTER_TYPES,
  BRIDGE_SORT_FIELDS,
  ROW_STATUSES,
  SORT_DIRECTIONS,
} from '../../../src/buyer-intel/enums.ts';
import { bridgeFor, canSee } from '../access.ts';
import type { SandboxBridge } from '../data/dataset.ts';
import { badRequest, notFound } from '../http-error.ts';
import type { RouteModule } from '../operation.ts';
import { pageParams, paginate } from '../paging.ts';
import { arrayParam, enumArrayParam, enumParam, stringParam, uuidParam } from '../params.ts';
import { bridgeColumn, bridgeResponse, bridgeRow } from '../present.ts';
import { applyRowQuery, type RowQuery } from '../row-query.ts';

const sortValue: Record<
  (typeof BRIDGE_SORT_FIELDS)[number],
  (b: SandboxBridge, rows: number) => string | number
> = {
  Name: (b) => b.name.toLowerCase(),
  RowsCount: (_b, rows) => rows,
  Type: (b) => b.filterType,
  CreatedBy: (b) => b.createdBy,
  CreditUsage: (b) => b.creditUsage,
  SharedWith: (b) => (b.sharedWithAll ? 1 : 0),
  LastUpdatedByUser: (b) => b.updatedAt,
  CreatedAt: (b) => b.createdAt,
};

export const registerBridgeRoutes: RouteModule = (define, ctx) => {
  const rowCount = (b: SandboxBridge) => ctx.dataset.rowsByBridge.get(b.bridgeId)?.length ?? 0;

  define('get', '/api/external/bridge', 'listBridges', (req, _res, caller) => {
    const q = req.query;
    const sortField = enumParam(q, 'sortField', BRIDGE_SORT_FIELDS) ?? 'Name';
    const direction = enumParam(q, 'sortDirection', SORT_DIRECTIONS) ?? 'ASC';
    const text = stringParam(q, 'query')?.toLowerCase();
    const types = enumArrayParam(q, 'filterType', BRIDGE_FILTER_TYPES);
    const creators = arrayParam(q, 'createdByUserId');
    // Buyer lists are not modelled: every sandbox bridge covers all buyers, so a list filter selects none.
    const buyerLists = arrayParam(q, 'buyerListId');
    const page = pageParams(req);
    const key = sortValue[sortField];
    const bridges = ctx.dataset.bridges
      .filter(
        (b) =>
          canSee(caller, b) &&
          (!text || b.name.toLowerCase().includes(text)) &&
          (!types || types.includes(b.filterType)) &&
          (!creators || creators.includes(b.userId)) &&
          !buyerLists,
      )
      .sort((a, b) => {
        const va = key(a, rowCount(a));
        const vb = key(b, rowCount(b));
        const c =
          typeof va === 'number' && typeof vb === 'number' ? va - vb : String(va).localeCompare(String(vb));
        return (direction === 'DESC' ? -c : c) || a.bridgeId.localeCompare(b.bridgeId);
      });
    return paginate(bridges, page, (b) => bridgeResponse(b, rowCount(b)));
  });

  define('get', '/api/external/bridge/:bridgeId', 'getBridge', (req, _res, caller) => {
    const bridge = bridgeFor(ctx, caller, req.params.bridgeId as string);
    return bridgeResponse(bridge, rowCount(bridge));
  });

  define(
    'get',
    '/api/external/bridge/:bridgeId/column/metadata',
    'getBridgeColumnMetadata',
    (req, _res, caller) => {
      const bridge = bridgeFor(ctx, caller, req.params.bridgeId as string);
      return bridge.columns.map((c) => ({
        columnId: c.columnId,
        bridgeId: c.bridgeId,
        column: bridgeColumn(c),
        additionalFields: [],
        vendorPresenceSettings: null,
        emailGenerationSettings: null,
        webhookUrl: null,
        linkToCellSettings: null,
        multiLinkSettings: null,
        webContactSettings: null,
        accountScoringMetadata: null,
      }));
    },
  );

  define('put', '/api/external/bridge/:bridgeId/row', 'listBridgeRows', (req, _res, caller) => {
    const bridge = bridgeFor(ctx, caller, req.params.bridgeId as string);
    const page = pageParams(req);
    const body = (req.body ?? {}) as RowQuery;
    if (typeof body !== 'object' || Array.isArray(body)) {
      throw badRequest(
        'request.body.invalid',
        'the body must be an object with optional filters, sorts and query',
      );
    }
    const rows = applyRowQuery(bridge, ctx.dataset.rowsByBridge.get(bridge.bridgeId) ?? [], body);
    return paginate(rows, page, bridgeRow);
  });

  define(
    'patch',
    '/api/external/bridge/:bridgeId/row/:rowId/status',
    'setBridgeRowStatus',
    (req, _res, caller) => {
      const bridge = bridgeFor(ctx, caller, req.params.bridgeId as string);
      const rowId = uuidParam(req.params.rowId as string, 'rowId');
      const row = ctx.dataset.rowsById.get(rowId);
      if (!row || row.bridgeId !== bridge.bridgeId) {
        throw notFound('resource.row.not_found', `no row ${rowId} in bridge ${bridge.bridgeId}`);
      }
      const raw = (req.body as { newStatus?: unknown } | undefined)?.newStatus;
      // The reference's prose spells one value "Not Interested"; its enum says NotInterested. Take both.
      const newStatus = typeof raw === 'string' ? raw.replace(/\s+/g, '') : undefined;
      const status = ROW_STATUSES.find((s) => s === newStatus);
      if (!status)
        throw badRequest('request.body.invalid', `newStatus must be one of ${ROW_STATUSES.join(', ')}`);
      ctx.statusChanges?.push({
        bridgeId: bridge.bridgeId,
        rowId,
        from: row.userStatus,
        to: status,
        at: new Date().toISOString(),
      });
      row.userStatus = status;
      row.updatedAt = new Date().toISOString();
      ctx.webhooks?.emitRowEvent(row, 'bridge.row.updated');
      return bridgeRow(row);
    },
  );
};
