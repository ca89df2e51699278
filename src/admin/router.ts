// /admin (behind basic auth, see http-app.ts): the page of recent enrichments, its data as JSON, and
// the two actions a person takes there; the review queue (review-routes.ts) and the write history per
// account and per run (history-routes.ts). POSTs must be JSON, which a cross-site form cannot send.

import express, { type NextFunction, type Request, type Response } from 'express';
import { z } from 'zod';
import type { PermissionRefusal } from '../../connectors/permission-refusals.ts';
import { isCrmKind } from '../../connectors/registry.ts';
import { ActionProblem, type RefreshActions } from '../api/actions.ts';
import { refuseDeclaredOver } from '../api/declared-length.ts';
import { answerUnavailable, sendUnavailable } from '../api/unavailable.ts';
import type { Mapping } from '../map/mapping-schema.ts';
import type { MappingConsole } from '../mapping-versions/service.ts';
import type { MatchThresholds } from '../resolve/thresholds.ts';
import type { ReviewService } from '../review/service.ts';
import { formatPath } from '../shared/format-path.ts';
import { jsonDepthProblem, refuseBadText } from '../shared/text.ts';
import type { OutcomeHistory } from '../store/history.ts';
import type { Store } from '../store/store.ts';
import type { ConnectionsView } from '../tenants/connections.ts';
import { addAdminAccountsRoutes } from './accounts-routes.ts';
import { renderConnectionsPage } from './connections-page.ts';
import type { BudgetSources } from './dashboard-data.ts';
import { addAdminDashboardRoutes } from './dashboard-routes.ts';
import { addAdminExportRoutes } from './export-routes.ts';
import { addAdminHistoryRoutes } from './history-routes.ts';
import type { CrmFieldNames } from './mapping-page.ts';
import { addAdminMappingRoutes } from './mapping-routes.ts';
import { renderAdminPage, sortRows } from './page.ts';
import type { RecordUrl } from './record-link.ts';
import { addAdminReviewRoutes } from './review-routes.ts';
import { addAdminRunsRoutes, type ProviderRate } from './runs-list-routes.ts';
import { type AdminUndoOptions, addAdminUndoRoutes } from './undo-routes.ts';

const accountBody = z.strictObject({
  crm: z.string().refine(isCrmKind, 'is not a CRM this service speaks'),
  tenant: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/),
  accountId: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/),
});
const confirmBody = accountBody.extend({ buyerId: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/) });

export function adminRouter(options: {
  history: OutcomeHistory;
  actions: RefreshActions;
  review: ReviewService;
  /** The write history's pages read it. */
  store: Pick<Store, 'open'>;
  /** Who decisions taken here are recorded as (the admin user). */
  user: string;
  /** The permissions tenants' calls were refused for lately (connectors/permission-refusals.ts). */
  refusals?: () => Promise<PermissionRefusal[]>;
  limit?: number;
  /** The mapping in force and its versions, where the file came from, each connected CRM's field names. */
  mapping?: {
    console: MappingConsole;
    source: string;
    configured: MatchThresholds;
    file?: Mapping | undefined;
    crms: () => CrmFieldNames[];
  };
  /** The provider's shared pace now, for the run pages' "throttled" state (runs-list-routes.ts). */
  rate?: ProviderRate | undefined;
  /** Where each account opens in its CRM (record-link.ts), for the review and accounts rows. */
  recordUrl?: RecordUrl | undefined;
  /** Each tenant's connection: token state, permissions lacking, last refusal (src/tenants/connections.ts). */
  connections?: () => Promise<ConnectionsView>;
  /** The dashboard's budget use: the CRM tenants' limits, the usage per hour, the configured rate. */
  budgets?: BudgetSources;
  /** The run page's undo (undo-routes.ts); without it the page offers none. */
  undo?: AdminUndoOptions;
}): express.Router {
  const router = express.Router();
  const limit = options.limit ?? 200;

  router.get('/', (_req, res) => res.redirect(302, '/admin/dashboard'));
  // The page of recent enrichments, which /admin used to be.
  router.get('/recent', async (_req, res, next) => {
    try {
      const [rows, refusals] = await Promise.all([
        options.history.recent(limit),
        // What Redis cannot say is left out: the page of enrichments still renders.
        options.refusals?.().catch(() => []) ?? [],
      ]);
      res.type('html').send(renderAdminPage(rows, refusals));
    } catch (err) {
      next(err);
    }
  });
  const { connections } = options;
  if (connections)
    router.get('/connections', async (_req, res, next) => {
      try {
        res
          .set('cache-control', 'no-store')
          .type('html')
          .send(renderConnectionsPage(await connections()));
      } catch (err) {
        next(err);
      }
    });
  router.get('/api/recent', async (_req, res, next) => {
    try {
      res.json(sortRows(await options.history.recent(limit)));
    } catch (err) {
      next(err);
    }
  });

  const parseJson = express.json({
    limit: '16kb',
    reviver: refuseBadText,
    // Before the parser spends stack on it (jsonDepthProblem); answered as malformed JSON (400).
    verify: (_req, _res, buf) => {
      const deep = jsonDepthProblem(buf.toString('utf8'));
      if (deep) throw Object.assign(new SyntaxError(deep), { status: 400, type: 'entity.parse.failed' });
    },
  });
  const declared = refuseDeclaredOver(16 * 1024, 'the body is too large');
  const json: express.RequestHandler = (req, res, next) =>
    declared(req, res, (err?: unknown) => (err ? next(err) : parseJson(req, res, next)));
  const body = <T>(schema: z.ZodType<T>, req: Request): T => {
    if (!req.is('application/json')) throw new ActionProblem(415, 'unsupported_media_type', 'send JSON');
    const parsed = schema.safeParse(req.body);
    if (parsed.success) return parsed.data;
    const issue = parsed.error.issues[0];
    throw new ActionProblem(
      400,
      'invalid_request',
      `body ${formatPath(issue?.path ?? [])}: ${issue?.message ?? 'invalid'}`,
    );
  };
  if (options.mapping)
    addAdminMappingRoutes(router, {
      ...options.mapping,
      store: options.store,
      actor: options.user,
      json,
      body,
    });
  addAdminAccountsRoutes(router, { store: options.store, recordUrl: options.recordUrl });
  addAdminExportRoutes(router, { store: options.store, recordUrl: options.recordUrl });
  addAdminHistoryRoutes(router, { store: options.store, rate: options.rate, undoable: !!options.undo });
  if (options.undo)
    addAdminUndoRoutes(router, { ...options.undo, store: options.store, user: options.user, json, body });
  addAdminRunsRoutes(router, { store: options.store, rate: options.rate });
  addAdminDashboardRoutes(router, { store: options.store, rate: options.rate, budgets: options.budgets });
  addAdminReviewRoutes(router, {
    review: options.review,
    store: options.store,
    recordUrl: options.recordUrl,
    actor: { kind: 'admin', name: options.user },
    json,
    body,
  });
  router.post('/api/retry', json, async (req, res, next) => {
    try {
      const a = body(accountBody, req);
      res.status(202).json(
        await options.actions.refresh(a.crm, a.tenant, a.accountId, 'retry from the admin page', {
          kind: 'admin',
          name: options.user,
        }),
      );
    } catch (err) {
      next(err);
    }
  });
  router.post('/api/confirm', json, async (req, res, next) => {
    try {
      const a = body(confirmBody, req);
      res
        .status(202)
        .json(
          await options.actions.confirm(
            a.crm,
            a.tenant,
            a.accountId,
            a.buyerId,
            'confirmed on the admin page',
            { kind: 'admin', name: options.user },
          ),
        );
    } catch (err) {
      next(err);
    }
  });
  router.use((err: unknown, _req: Request, res: Response, next: NextFunction) => {
    if (err instanceof ActionProblem && err.status === 503)
      return sendUnavailable(res, err.code, err.message);
    if (err instanceof ActionProblem)
      return void res.status(err.status).json({ error: err.code, message: err.message });
    if (answerUnavailable(res, err)) return;
    next(err);
  });
  return router;
}
