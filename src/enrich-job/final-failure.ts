// What a job that failed for good leaves behind: the error on the account's outcome in the store, and
// a mark on the account in its CRM so that a person sees why it was not enriched. An account the same
// run already finished is left as it is: a backfill chunk that fails for good (stalled too often) names
// every account it held, and marking those it had written would set 'error' in the CRM over a good
// outcome the store keeps (74 of 274 marks did, in a run with a cluster node killed).
import type { EnrichJobData } from '../../queues/enrich-queue.ts';
import { PROVENANCE_FIELDS } from '../map/field-definitions.ts';
import type { LogPort } from '../shared/log.ts';
import type { Store } from '../store/store.ts';
import type { BatchedWrites } from '../write/batched-writes.ts';

export interface FinalFailureDeps {
  store: Pick<Store, 'open'>;
  writeAccount: BatchedWrites['writeAccount'];
  log: LogPort;
}

export function markFinalFailure(deps: FinalFailureDeps) {
  return async (data: EnrichJobData, reason: string, jobId: string | undefined): Promise<void> => {
    const meta = { jobId, trigger: data.trigger, runId: data.runId };
    // A store that cannot take the error does not keep the mark off the account.
    const finished = await deps.store
      .open()
      .then(async ({ outcomes }) => {
        const current = data.runId === undefined ? null : await outcomes.get(data);
        if (current && current.runId === data.runId && current.status !== 'error') return true;
        await outcomes.recordError(data, reason, meta);
        return false;
      })
      .catch((err: unknown) => {
        deps.log.warn('could not record the failure in the store', { jobId, reason: String(err) });
        return false;
      });
    if (finished) return;
    // What the fields held is not known: the mark's history rows say so.
    const mark = { old: null, decision: 'failure-mark', kind: 'provenance' } as const;
    await deps.writeAccount(
      data.crm,
      data.tenant,
      {
        accountId: data.accountId,
        fields: {
          [PROVENANCE_FIELDS.status]: 'error',
          [PROVENANCE_FIELDS.matchReason]: reason.slice(0, 2000),
        },
      },
      {
        ...meta,
        fields: { [PROVENANCE_FIELDS.status]: mark, [PROVENANCE_FIELDS.matchReason]: mark },
      },
    );
  };
}
