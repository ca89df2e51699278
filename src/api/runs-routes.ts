// Runs under /api (same authentication as the rest): GET /api/runs (newest first, by kind, keyset
// pages) and GET /api/runs/:id (the run, how its accounts stand — their latest outcomes that name it,
// by status —, what it changed, counted, and a page of its write history). Runs span CRMs and tenants,
// so only an API key reads them; a CRM-signed caller reads one run only: the undo of one of its own
// accounts' last change, which it asked for (POST /api/undo) and follows here to its end.
import type express from 'express';
import { z } from 'zod';
import { ActionProblem } from '../review/problem.ts';
import { isRunId, type Run } from '../store/runs.ts';
import { RUN_KINDS } from '../store/schema.ts';
import type { Repositories, Store } from '../store/store.ts';
import { targetAccount } from '../store/undo.ts';
import { type Caller, mayAct } from './authenticate.ts';
import { historyJson, historyPageSchema, readStore } from './history-routes.ts';
import { plainQuery, type ReviewRouteContext } from './review-routes.ts';

const signedCallerPageSchema = z.object(historyPageSchema.shape);

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

function apiKeyOnly(caller: Caller): void {
  if (caller.via !== 'api-key')
    throw new ActionProblem(403, 'forbidden', 'runs span every CRM and tenant: read them with an API key');
}

/** Whether the caller may read the run: an API key any, a CRM caller the undo of its own account's change. */
async function mayReadRun(repos: Pick<Repositories, 'undo'>, caller: Caller, id: string): Promise<boolean> {
  if (caller.via === 'api-key') return true;
  const target = await repos.undo.targetOf(id);
  const account = target === null ? null : targetAccount(target);
  return account !== null && mayAct(caller, account.crm, account.tenant);
}

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
      // A CRM-signed caller's URL also carries what its CRM appends (HubSpot: portalId, userId, …).
      const schema = caller.via === 'crm' ? signedCallerPageSchema : historyPageSchema;
      const page = parse(schema, plainQuery(req.query), 'query');
      const found = isRunId(id)
        ? await read(async (repos) =>
            (await mayReadRun(repos, caller, id)) ? runWithChanges(repos, id, page) : 'forbidden',
          )
        : caller.via === 'api-key'
          ? null
          : 'forbidden';
      // A CRM caller is told the same of a run that is not its own and of one that does not exist.
      if (found === 'forbidden')
        throw new ActionProblem(
          403,
          'forbidden',
          'runs span every CRM and tenant: read them with an API key (a CRM caller reads the undo of its own account only)',
        );
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
