// POST /admin/api/runs/:id/undo: the run page's undo. `{"dryRun": true}` answers the plan (what the
// in-page confirmation names: accounts, fields going back, values a person changed since and kept,
// notes removed); `{}` starts the undo run, which the runs list then shows. Both go through the API's
// undo (src/api/undo-routes.ts: resolveUndo, previewUndo, queueUndoRun), so the console has no undo of
// its own; the run is recorded as started by the admin user. Basic auth, same-origin and JSON as every
// admin POST (protect.ts, router.ts).
import type { Queue } from 'bullmq';
import type express from 'express';
import type { Request } from 'express';
import { z } from 'zod';
import type { CrmConnector, CrmKind } from '../../connectors/types.ts';
import type { MaintenanceData } from '../../queues/maintenance.ts';
import { queueUndoRun, undoPreviewJson } from '../api/undo-routes.ts';
import { ActionProblem } from '../review/problem.ts';
import { isRunId } from '../store/runs.ts';
import type { Store } from '../store/store.ts';
import { resolveUndo } from '../undo/target.ts';

const undoBody = z.strictObject({ dryRun: z.boolean().default(false) });

/** A dry run plans this many of the run's accounts in detail; the dialog says when there are more. */
const PLAN_LIMIT = 200;

export interface AdminUndoOptions {
  maintenanceQueue: Queue<MaintenanceData> | undefined;
  connectorFor: (crm: CrmKind, tenant: string) => CrmConnector;
}

export function addAdminUndoRoutes(
  router: express.Router,
  options: AdminUndoOptions & {
    store: Pick<Store, 'open'>;
    user: string;
    json: express.RequestHandler;
    body: <T>(schema: z.ZodType<T>, req: Request) => T;
  },
): void {
  router.post('/api/runs/:id/undo', options.json, async (req, res, next) => {
    try {
      const id = String(req.params.id);
      if (!isRunId(id)) throw new ActionProblem(404, 'not_found', `no run ${id.slice(0, 40)}`);
      const { dryRun } = options.body(undoBody, req);
      const repos = await options.store.open().catch(() => {
        throw new ActionProblem(503, 'store_unavailable', 'could not read the history; try again');
      });
      const resolved = await resolveUndo(repos, { kind: 'run', runId: id });
      if (dryRun) return void res.json(await undoPreviewJson(options, resolved, PLAN_LIMIT));
      res.status(202).json(await queueUndoRun(repos, options.maintenanceQueue, resolved, options.user));
    } catch (err) {
      next(err);
    }
  });
}
