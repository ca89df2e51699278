// /admin/history/:crm/:accountId and /admin/runs/:id: the write history as pages (history-page.ts),
// read from the store; the query goes through the API's schemas.
import type express from 'express';
import {
  accountHistoryQuerySchema,
  changesOf,
  historyPageSchema,
  learnedJson,
  readStore,
} from '../api/history-routes.ts';
import { runWithChanges } from '../api/runs-routes.ts';
import { ActionProblem } from '../review/problem.ts';
import { canonicalAccount, crmSchema, recordIdSchema } from '../review/schemas.ts';
import { isRunId } from '../store/runs.ts';
import type { Store } from '../store/store.ts';
import { renderAccountHistoryPage, renderRunPage } from './history-page.ts';
import { queryOf, valid } from './query.ts';
import { type ProviderRate, runPageProgress } from './runs-list-routes.ts';

/** Events a page shows: a screenful of changes (an enrichment is ~30 fields and notes). */
const PAGE = 200;

export function addAdminHistoryRoutes(
  router: express.Router,
  options: {
    store: Pick<Store, 'open'>;
    rate?: ProviderRate | undefined;
    /** The console can undo a run (POST /admin/api/runs/:id/undo is served). */
    undoable?: boolean;
  },
): void {
  const { store } = options;

  router.get('/history/:crm/:accountId', async (req, res, next) => {
    try {
      const crm = valid(crmSchema, req.params.crm, 'crm');
      const { accountId } = canonicalAccount({
        crm,
        accountId: valid(recordIdSchema, req.params.accountId, 'accountId'),
      });
      const query = valid(accountHistoryQuerySchema, { limit: PAGE, ...queryOf(req.query) }, 'query');
      const { page, name, learned } = await readStore(store, async ({ writes, outcomes, learned }) => {
        const found = await writes.forAccount(
          { crm, tenant: query.tenant, accountId },
          { limit: query.limit, after: query.after },
        );
        const tenant = query.tenant ?? found.events[0]?.tenant;
        const outcome = tenant === undefined ? null : await outcomes.get({ crm, tenant, accountId });
        const rules = tenant === undefined ? [] : await learned.forAccount({ crm, tenant, accountId });
        return { page: found, name: outcome?.accountName ?? null, learned: rules.map(learnedJson) };
      });
      res.type('html').send(
        renderAccountHistoryPage({
          crm,
          tenant: query.tenant,
          accountId,
          accountName: name,
          changes: changesOf(page.events),
          next: page.next,
          learned,
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
      const found = isRunId(id) ? await readStore(store, (repos) => runWithChanges(repos, id, query)) : null;
      if (!found) throw new ActionProblem(404, 'not_found', `no run ${id.slice(0, 40)}`);
      const { run } = found;
      const live = await runPageProgress(store, run, found.outcomes, options.rate);
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
          counts: run.counts,
          live,
          // Only a run that wrote something has anything to take back.
          undoable:
            options.undoable === true && (found.changed.accounts > 0 || found.changed.notesCreated > 0),
        }),
      );
    } catch (err) {
      next(err);
    }
  });
}
