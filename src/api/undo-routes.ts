// POST /api/undo: take back what a run, a job or an account's last change wrote (src/undo/). A dry run
// answers 200 with the plan — per account and field now → after the undo, what is kept because a person
// changed it, the notes to remove — read from the history and the CRM. A real undo is an undo run,
// queued on the maintenance queue (a worker runs it, batched, resumable): 202 with the run's id, to
// follow at GET /api/runs/:id. An API key may undo anything; a CRM-signed caller (a card, a quick
// action) only an account of its own CRM and tenant, never a run or a job, which span accounts.
import type { Queue } from 'bullmq';
import type express from 'express';
import { z } from 'zod';
import type { CrmConnector, CrmKind } from '../../connectors/types.ts';
import { enqueueUndo, type MaintenanceData } from '../../queues/maintenance.ts';
import { ActionProblem } from '../review/problem.ts';
import { isIntegrationError } from '../shared/errors.ts';
import { isRunId } from '../store/runs.ts';
import type { Repositories, Store } from '../store/store.ts';
import { scopeTarget } from '../store/undo.ts';
import type { AccountPlan } from '../undo/plan.ts';
import { type Resolved, resolveUndo, type UndoTarget } from '../undo/target.ts';
import { previewUndo } from '../undo/undo.ts';
import type { ReviewRouteContext } from './review-routes.ts';

export interface UndoRouteOptions {
  store: Pick<Store, 'open'>;
  connectorFor: (crm: CrmKind, tenant: string) => CrmConnector;
  /** Where a real undo is queued; without it (an API without workers) only dry runs are answered. */
  maintenanceQueue?: Queue<MaintenanceData> | undefined;
}

const DEFAULT_PLAN_LIMIT = 100;

export function undoBodySchema(crmSchema: z.ZodType<CrmKind, unknown>) {
  return z
    .strictObject({
      run: z.string().refine(isRunId, 'must be a run id (digits)').optional(),
      job: z.string().min(1).max(200).optional(),
      account: z
        .strictObject({
          crm: crmSchema,
          accountId: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, 'must be a CRM record id'),
          tenant: z
            .string()
            .regex(/^[A-Za-z0-9_-]{1,64}$/, 'must be a portal id or org id')
            .optional(),
        })
        .optional(),
      dryRun: z.boolean().default(false),
      /** A dry run plans this many accounts in detail (a run's first ones); its counts cover those. */
      limit: z.number().int().min(1).max(1000).default(DEFAULT_PLAN_LIMIT),
    })
    .refine(
      (b) => [b.run, b.job, b.account].filter((t) => t !== undefined).length === 1,
      'give one of run, job or account',
    );
}

const accountJson = (a: AccountPlan) => ({
  crm: a.crm,
  tenant: a.tenant,
  accountId: a.accountId,
  buyerId: a.buyerId,
  gone: a.gone,
  fields: a.fields.map((f) => ({
    field: f.field,
    kind: f.kind,
    now: f.current,
    wrote: f.wrote,
    before: f.before,
    action: f.action,
  })),
  notes: a.notes.map((n) => ({ noteId: n.noteId, dedupeKey: n.dedupeKey, title: n.title })),
  notesRemovedBefore: a.notesRemovedBefore,
});

/** A dry run's answer: the plan of the first `limit` accounts and the counts it covers. */
export async function undoPreviewJson(
  ctx: Pick<UndoRouteOptions, 'store' | 'connectorFor'>,
  resolved: Resolved,
  limit: number,
) {
  const preview = await previewUndo({ store: ctx.store, connectorFor: ctx.connectorFor }, resolved, {
    limit,
  }).catch((err: unknown) => {
    if (!isIntegrationError(err)) throw err;
    throw new ActionProblem(502, 'crm_unavailable', 'could not read the accounts from the CRM; try again');
  });
  return {
    dryRun: true,
    what: preview.what,
    remarks: preview.remarks,
    total: preview.total,
    planned: preview.accounts.length,
    complete: preview.accounts.length === preview.total,
    totals: preview.totals,
    fields: preview.fields,
    accounts: preview.accounts.map(accountJson),
  };
}

/**
 * A real undo: opens the undo run (or finds the one already open for the same target) and queues it
 * on the maintenance queue, where a worker runs it. The API's POST /api/undo and the console's
 * POST /admin/api/runs/:id/undo both come here, so an undo is one implementation.
 */
export async function queueUndoRun(
  repos: Repositories,
  queue: Queue<MaintenanceData> | undefined,
  resolved: Resolved,
  actor: string,
) {
  if (!queue) throw new ActionProblem(503, 'queue_unavailable', 'undo needs the work queue; try again');
  const { run, resumed } = await repos.undo.openRun(scopeTarget(resolved.scope), {
    label: `undo of ${resolved.what}`,
    actor,
  });
  const jobId = await enqueueUndo(queue, run.id, { resolved, actor }).catch(() => {
    throw new ActionProblem(503, 'queue_unavailable', 'could not queue the undo; try again');
  });
  return { runId: run.id, jobId, resumed, what: resolved.what, remarks: resolved.remarks };
}

export function addUndoRoutes(
  router: express.Router,
  ctx: Pick<ReviewRouteContext, 'parse' | 'handle' | 'jsonBody' | 'tenantFor' | 'actorOf'> &
    UndoRouteOptions & { crmSchema: z.ZodType<CrmKind, unknown> },
): void {
  const schema = undoBodySchema(ctx.crmSchema);
  router.post(
    '/undo',
    ctx.handle(async (_req, res, caller, raw) => {
      const body = ctx.parse(schema, ctx.jsonBody(raw), 'body');
      let target: UndoTarget;
      if (body.account) {
        const tenant = ctx.tenantFor(body.account.crm, body.account.tenant, caller);
        target = { kind: 'account', crm: body.account.crm, tenant, accountId: body.account.accountId };
      } else {
        if (caller.via !== 'api-key')
          throw new ActionProblem(
            403,
            'forbidden',
            'a run or a job spans accounts: undo it with an API key (a CRM caller may undo its own account)',
          );
        target =
          body.run !== undefined ? { kind: 'run', runId: body.run } : { kind: 'job', jobId: body.job ?? '' };
      }
      const repos = await ctx.store.open().catch(() => {
        throw new ActionProblem(503, 'store_unavailable', 'could not read the history; try again');
      });
      const resolved: Resolved = await resolveUndo(repos, target);
      if (body.dryRun) {
        res.json(await undoPreviewJson(ctx, resolved, body.limit));
        return;
      }
      // Named as every other run names who started it (`hubspot 4242 jane@example.com`, `key:1a2b3c4d`),
      // which is what the cards' history strips to the person.
      res
        .status(202)
        .json(await queueUndoRun(repos, ctx.maintenanceQueue, resolved, ctx.actorOf(caller).name));
    }),
  );
}
