// What a job that failed for good leaves behind: the error on the account's outcome in the store, and
// a mark on the account in its CRM so that a person sees why it was not enriched.
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
    await deps.store
      .open()
      .then(({ outcomes }) => outcomes.recordError(data, reason, meta))
      .catch((err: unknown) =>
        deps.log.warn('could not record the failure in the store', { jobId, reason: String(err) }),
      );
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
