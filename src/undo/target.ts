// What an undo takes back, as a person names it — a run, a job, or an account (its last change) — turned
// into the writes it selects in the history, and said in words for the undo run's label and reports.
import { z } from 'zod';
import type { CrmKind } from '../../connectors/types.ts';
import { ActionProblem } from '../review/problem.ts';
import { canonicalAccount } from '../review/schemas.ts';
import type { Repositories } from '../store/store.ts';
import type { UndoScope } from '../store/undo.ts';

export type UndoTarget =
  | { kind: 'run'; runId: string }
  | { kind: 'job'; jobId: string }
  | { kind: 'account'; crm: CrmKind; tenant?: string | undefined; accountId: string };

export interface Resolved {
  scope: UndoScope;
  /** E.g. `run 12 (backfill: backfill of 500 hubspot accounts)`. */
  what: string;
  /** What a person should know before (and after) undoing it. */
  remarks: string[];
  /**
   * Fields left as they are: the ones an account's current match holds when a move takes back what
   * we wrote for the buyer it left (src/undo/take-back.ts).
   */
  keepFields?: string[] | undefined;
}

const id = z.string().min(1).max(200);
const nullableId = id.nullable();

/** A resolved undo as a queued job carries it (the worker checks it again). */
export const resolvedSchema: z.ZodType<Resolved> = z.strictObject({
  scope: z.discriminatedUnion('kind', [
    z.strictObject({ kind: z.literal('run'), runId: z.string().regex(/^\d{1,18}$/) }),
    z.strictObject({ kind: z.literal('job'), jobId: id }),
    z.strictObject({
      kind: z.literal('change'),
      crm: id,
      tenant: id,
      accountId: id,
      runId: nullableId,
      jobId: nullableId,
      trigger: nullableId,
      afterId: nullableId,
      upToId: id,
    }),
    z.strictObject({ kind: z.literal('all'), crm: id, tenant: id, accountId: id, upToId: id }),
  ]),
  what: z.string().max(500),
  remarks: z.array(z.string().max(1000)).max(10),
  keepFields: z.array(id).max(1000).optional(),
});

const NOT_RECREATED =
  'notes the undone undo removed are not created again: the next enrichment of their accounts creates them';

export async function resolveUndo(repos: Repositories, target: UndoTarget): Promise<Resolved> {
  switch (target.kind) {
    case 'run': {
      const run = await repos.runs.get(target.runId);
      if (!run) throw new ActionProblem(404, 'not_found', `no run ${target.runId.slice(0, 40)}`);
      const remarks: string[] = [];
      if (run.kind === 'undo') remarks.push(NOT_RECREATED);
      else if (!run.finishedAt && (run.kind === 'backfill' || run.kind === 'reenrich'))
        remarks.push(`run ${run.id} is not finished: what it writes after this undo is not undone`);
      return {
        scope: { kind: 'run', runId: run.id },
        what: `run ${run.id} (${run.kind}: ${run.label})`,
        remarks,
      };
    }
    case 'job': {
      const scope: UndoScope = { kind: 'job', jobId: target.jobId };
      if (!(await repos.undo.accountsOf(scope)).length)
        throw new ActionProblem(404, 'not_found', `nothing recorded for job ${target.jobId.slice(0, 200)}`);
      return { scope, what: `job ${target.jobId}`, remarks: [] };
    }
    case 'account': {
      const scope = await repos.undo.lastChange(canonicalAccount(target));
      if (!scope)
        throw new ActionProblem(
          404,
          'not_found',
          `nothing recorded for ${target.crm} account ${target.accountId}${target.tenant ? ` in ${target.tenant}` : ''}`,
        );
      const run = scope.runId ? await repos.runs.get(scope.runId) : null;
      const source = run ? `${run.kind} run ${run.id}` : scope.jobId ? `job ${scope.jobId}` : scope.trigger;
      return {
        scope,
        what: `${scope.crm} account ${scope.accountId}'s last change (${source ?? 'unknown'})`,
        remarks: [],
      };
    }
  }
}
