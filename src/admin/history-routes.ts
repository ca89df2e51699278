// /admin/history/:crm/:accountId and /admin/runs/:id: the write history as pages (history-page.ts),
// read from the store; the query goes through the API's schemas.
import type express from 'express';
import { z } from 'zod';
import { isCrmKind } from '../../connectors/registry.ts';
import {
  accountHistoryQuerySchema,
  changesOf,
  historyPageSchema,
  readHistory,
} from '../api/history-routes.ts';
import { runWithChanges } from '../api/runs-routes.ts';
import { ActionProblem } from '../review/problem.ts';
import { isRunId } from '../store/runs.ts';
import type { Store } from '../store/store.ts';
import { renderAccountHistoryPage, renderRunPage } from './history-page.ts';

/** Events a page shows: a screenful of changes (an enrichment is ~30 fields and notes). */
const PAGE = 200;

const crmSchema = z.string().refine(isCrmKind, 'is not a CRM this service speaks');
const accountIdSchema = z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, 'must be a CRM record id');

function valid<T>(schema: z.ZodType<T, unknown>, value: unknown, what: string): T {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const where = issue?.path.length ? ` ${issue.path.join('.')}` : '';
  throw new ActionProblem(400, 'invalid_request', `${what}${where}: ${issue?.message ?? 'invalid'}`);
}

/** An empty field of a form means "not given"; a name given twice is refused. */
const queryOf = (q: express.Request['query']): Record<string, unknown> => {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(q)) {
    if (Array.isArray(v)) throw new ActionProblem(400, 'invalid_request', `query ${k}: give it once`);
    if (v !== '') out[k] = v;
  }
  return out;
};

export function addAdminHistoryRoutes(router: express.Router, options: { store: Pick<Store, 'open'> }): void {
  const { store } = options;

  router.get('/history/:crm/:accountId', async (req, res, next) => {
    try {
      const crm = valid(crmSchema, req.params.crm, 'crm');
      const accountId = valid(accountIdSchema, req.params.accountId, 'accountId');
      const query = valid(accountHistoryQuerySchema, { limit: PAGE, ...queryOf(req.query) }, 'query');
      const { page, name } = await readHistory(store, async ({ writes, outcomes }) => {
        const found = await writes.forAccount(
          { crm, tenant: query.tenant, accountId },
          { limit: query.limit, after: query.after },
        );
        const tenant = query.tenant ?? found.events[0]?.tenant;
        const outcome = tenant === undefined ? null : await outcomes.get({ crm, tenant, accountId });
        return { page: found, name: outcome?.accountName ?? null };
      });
      res.type('html').send(
        renderAccountHistoryPage({
          crm,
          tenant: query.tenant,
          accountId,
          accountName: name,
          changes: changesOf(page.events),
          next: page.next,
        }),
      );
    } catch (err) {
      next(err);
    }
  });

  router.get('/runs/:id', async (req, res, next) => {
    try {
      const id = String(req.params.id);
      const query = valid(historyPageSchema, { limit: PAGE, ...queryOf(req.query) }, 'query');
      const found = isRunId(id)
        ? await readHistory(store, (repos) => runWithChanges(repos, id, query))
        : null;
      if (!found) throw new ActionProblem(404, 'not_found', `no run ${id.slice(0, 40)}`);
      const { run } = found;
      res.type('html').send(
        renderRunPage({
          id: run.id,
          kind: run.kind,
          label: run.label,
          actor: run.actor,
          startedAt: run.startedAt.toISOString(),
          finishedAt: run.finishedAt?.toISOString() ?? null,
          outcomes: found.outcomes,
          writes: found.changed,
          changes: changesOf(found.page.events),
          next: found.page.next,
        }),
      );
    } catch (err) {
      next(err);
    }
  });
}
