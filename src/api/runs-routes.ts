// Runs under /api (same authentication as the rest): GET /api/runs (newest first, by kind, keyset
// pages) and GET /api/runs/:id (the run, how its accounts stand — their latest outcomes that name it,
// by status —, what it changed, counted, and a page of its write history). Runs span CRMs and tenants,
// so only an API key reads them; a CRM-signed caller (the HubSpot card) reads one run alone: the undo
// of its own account's change, which it started and follows to its end.
import type express from 'express';
import { z } from 'zod';
import type { CrmKind } from '../../connectors/types.ts';
import { ActionProblem } from '../review/problem.ts';
import { isRunId, type Run } from '../store/runs.ts';
import { RUN_KINDS } from '../store/schema.ts';
import type { Repositories, Store } from '../store/store.ts';
import { changeAccountOf } from '../store/undo.ts';
import { type Caller, mayAct } from './authenticate.ts';
import { historyJson, historyPageSchema, readStore } from './history-routes.ts';
import { plainQuery, type ReviewRouteContext } from './review-routes.ts';

export const runIdSchema = z.string().refine(isRunId, 'must be a run id (digits)');

export const runsQuerySchema = z.strictObject({
  kind: z.enum(RUN_KINDS).optional(),
  limit: z.coerce.number().int().min(1).max(500).default(50),
  after: runIdSchema.optional(),
});

/** A run as the API and the CLI show it (its idempotency key stays inside). */
export function runJson(run: Run) {
  return {
    id: run.id,
    kind: run.kind,
    label: run.label,
    actor: run.actor,
    startedAt: run.startedAt.toISOString(),
    finishedAt: run.finishedAt?.toISOString() ?? null,
    counts: run.counts,
  };
}

const RUNS_NEED_A_KEY = 'runs span every CRM and tenant: read them with an API key';

function apiKeyOnly(caller: Caller): void {
  if (caller.via !== 'api-key') throw new ActionProblem(403, 'forbidden', RUNS_NEED_A_KEY);
}

/** A CRM-signed caller's URL also carries what its CRM appends (HubSpot: portalId, userId, …). */
const signedPageSchema = z.object(historyPageSchema.shape);

/** A run with its accounts' outcomes, what it changed and a page of its changes; null when unknown. */
export async function runWithChanges(
  { runs, writes }: Pick<Repositories, 'runs' | 'writes'>,
  id: string,
  page: z.infer<typeof historyPageSchema>,
) {
  const run = await runs.get(id);
  if (!run) return null;
  const [outcomes, changed, events] = await Promise.all([
    runs.outcomeCounts(run.id),
    writes.runChanges(run.id),
    writes.ofRun(run.id, page),
  ]);
  return { run, outcomes, changed, page: events };
}

export function addRunRoutes(
  router: express.Router,
  ctx: Pick<ReviewRouteContext, 'parse' | 'handle'> & { store: Pick<Store, 'open'> },
): void {
  const { parse, handle, store } = ctx;
  const read = <T>(fn: (repos: Repositories) => Promise<T>): Promise<T> => readStore(store, fn, 'the runs');

  router.get(
    '/runs',
    handle(async (req, res, caller) => {
      apiKeyOnly(caller);
      const query = parse(runsQuerySchema, plainQuery(req.query), 'query');
      const page = await read(({ runs }) => runs.list(query));
      res.json({ runs: page.runs.map(runJson), next: page.next });
    }),
  );

  router.get(
    '/runs/:id',
    handle(async (req, res, caller) => {
      const id = String(req.params.id);
      if (caller.via !== 'api-key') {
        // Whether the run exists or not, anything but the undo of its own account is the same 403.
        const target = isRunId(id) ? await read(({ undo }) => undo.targetOf(id)) : null;
        const account = target === null ? null : changeAccountOf(target);
        if (!account || !mayAct(caller, account.crm as CrmKind, account.tenant))
          throw new ActionProblem(
            403,
            'forbidden',
            `${RUNS_NEED_A_KEY} (a CRM caller reads the undo of its own account only)`,
          );
      }
      const query = plainQuery(req.query);
      const page = parse(caller.via === 'api-key' ? historyPageSchema : signedPageSchema, query, 'query');
      const found = isRunId(id) ? await read((repos) => runWithChanges(repos, id, page)) : null;
      if (!found) throw new ActionProblem(404, 'not_found', `no run ${id.slice(0, 40)}`);
      const accounts = Object.values(found.outcomes).reduce((a, b) => a + b, 0);
      res.json({
        ...runJson(found.run),
        accounts,
        outcomes: found.outcomes,
        writes: found.changed,
        history: historyJson(found.page),
      });
    }),
  );
}
