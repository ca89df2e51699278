// /admin/runs (the console's list of runs, a keyset page with the total) and
// /admin/api/runs/:id/progress (the JSON the run page polls): read from the store, with the provider's
// shared rate from Redis to tell a run held back by the provider's 429s from one that is just slow.
import type express from 'express';
import { z } from 'zod';
import { readStore } from '../api/history-routes.ts';
import { runIdSchema } from '../api/runs-routes.ts';
import { ActionProblem } from '../review/problem.ts';
import { isRunId } from '../store/runs.ts';
import { RUN_KINDS } from '../store/schema.ts';
import type { Store } from '../store/store.ts';
import { queryOf, valid } from './query.ts';
import { renderRunsList } from './runs-page.ts';
import { runProgress } from './runs-progress.ts';

/** The provider's pace now (readSharedRate); absent or failing: nobody is said to throttle. */
export type ProviderRate = () => Promise<{ ratePerSecond: number; throttled: boolean }>;

const listQuery = z.strictObject({
  kind: z.enum(RUN_KINDS).optional(),
  after: runIdSchema.optional(),
  from: z.coerce.number().int().min(0).max(1_000_000).default(0),
});

const PAGE = 50;

export function addAdminRunsRoutes(
  router: express.Router,
  options: { store: Pick<Store, 'open'>; rate?: ProviderRate | undefined },
): void {
  const { store } = options;
  const rate = () => options.rate?.().catch(() => null) ?? Promise.resolve(null);

  router.get('/runs', async (req, res, next) => {
    try {
      const query = valid(listQuery, queryOf(req.query), 'query');
      const [{ page, counts, total }, shared] = await Promise.all([
        readStore(
          store,
          async ({ runs }) => {
            const [page, total] = await Promise.all([
              runs.list({ kind: query.kind, after: query.after, limit: PAGE }),
              runs.count(query.kind),
            ]);
            return { page, total, counts: await runs.outcomeCountsOf(page.runs.map((r) => r.id)) };
          },
          'the runs',
        ),
        rate(),
      ]);
      const empty = { enriched: 0, needs_review: 0, no_match: 0, error: 0 };
      res.type('html').send(
        renderRunsList({
          rows: page.runs.map((r) => ({ ...r, progress: runProgress(r, counts.get(r.id) ?? empty, shared) })),
          offset: query.after ? query.from : 0,
          total,
          next: page.next,
        }),
      );
    } catch (err) {
      next(err);
    }
  });

  router.get('/api/runs/:id/progress', async (req, res, next) => {
    try {
      const id = String(req.params.id);
      const [found, shared] = await Promise.all([
        isRunId(id)
          ? readStore(
              store,
              async ({ runs }) => {
                const run = await runs.get(id);
                return run ? { run, outcomes: await runs.outcomeCounts(id) } : null;
              },
              'the run',
            )
          : null,
        rate(),
      ]);
      if (!found) throw new ActionProblem(404, 'not_found', `no run ${id.slice(0, 40)}`);
      res.set('cache-control', 'no-store').json(runProgress(found.run, found.outcomes, shared));
    } catch (err) {
      next(err);
    }
  });
}

/** The run page's live block reads the same as the progress JSON. */
export async function runPageProgress(
  store: Pick<Store, 'open'>,
  run: Parameters<typeof runProgress>[0],
  outcomes: Parameters<typeof runProgress>[1],
  rate?: ProviderRate,
) {
  const [shared, failures] = await Promise.all([
    rate?.().catch(() => null) ?? null,
    readStore(store, ({ runs }) => runs.failures(run.id), 'the run'),
  ]);
  return { progress: runProgress(run, outcomes, shared), failures };
}
