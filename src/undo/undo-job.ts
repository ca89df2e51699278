// An undo the API queued (its run already opened), as a maintenance job: it runs, or resumes after a
// lost worker; accounts the CRM refused for now fail the job so that its retry resumes the run.
import type { Job } from 'bullmq';
import type { MaintenanceData } from '../../queues/maintenance.ts';
import type { LogPort } from '../shared/log.ts';
import { resolvedSchema } from './target.ts';
import { runUndo, type UndoDeps } from './undo.ts';

export function undoJob(deps: UndoDeps, log: LogPort) {
  return async (job: Job<MaintenanceData>) => {
    const resolved = resolvedSchema.parse(job.data.resolved);
    const actor = typeof job.data.actor === 'string' ? job.data.actor : undefined;
    const outcome = await runUndo(deps, resolved, { actor });
    log.info('undo finished', {
      jobId: job.id,
      runId: outcome.runId,
      pending: outcome.pending,
      ...outcome.counts,
    });
    if (outcome.pending)
      throw new Error(`${outcome.pending} accounts refused by the CRM for now (undo run ${outcome.runId})`);
    return { runId: outcome.runId, ...outcome.counts };
  };
}
