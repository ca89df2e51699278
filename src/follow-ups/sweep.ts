// Closing the loop: a periodic sweep of the follow-up tasks we created and still watch. One batch read
// per page of a tenant's tasks (the connector's `taskStates`); a task a person completed sets its
// provider row `Actioned`, one they dismissed (deleted, or a status configured as dismissal) sets it
// `NotInterested`. The status is claimed in the store before the provider call, so a sweep that fails
// half-way sends the same status again and never another; a row is set once, and each closure goes on
// the write history.
import type { CrmConnector, CrmKind, TaskState } from '../../connectors/types.ts';
import type { BuyerIntelClient } from '../buyer-intel/client.ts';
import { failureFacts } from '../shared/errors.ts';
import type { FollowUpRecords, OpenFollowUp, RowOutcome } from './records.ts';

export interface SweepDeps {
  followUps: FollowUpRecords;
  connectorFor: (crm: CrmKind, tenant: string) => CrmConnector;
  buyerIntel: Pick<BuyerIntelClient, 'setBridgeRowStatus'>;
  /** `deleted` and/or task statuses as the CRM holds them (FOLLOW_UP_DISMISSED). */
  dismissed: readonly string[];
}

export interface SweepResult {
  checked: number;
  actioned: number;
  notInterested: number;
  /** Tasks deleted without that counting as a dismissal: no longer watched, their rows left alone. */
  forgotten: number;
  /** Provider calls or CRM reads that failed for now: the next sweep tries again. */
  failed: number;
}

/** What a task's state says of its row; null: nothing yet (still open). */
export function outcomeOf(state: TaskState, dismissed: readonly string[]): RowOutcome | null {
  if (state.state === 'completed') return 'Actioned';
  if (state.state === 'deleted') return dismissed.includes('deleted') ? 'NotInterested' : null;
  return state.status !== null && dismissed.includes(state.status) ? 'NotInterested' : null;
}

const describe = (state: TaskState) =>
  state.state === 'open' ? `status ${state.status ?? 'unknown'}` : state.state;

export async function sweepFollowUps(deps: SweepDeps): Promise<SweepResult> {
  const result: SweepResult = { checked: 0, actioned: 0, notInterested: 0, forgotten: 0, failed: 0 };
  for (const { crm, tenant } of await deps.followUps.tenants()) {
    const connector = deps.connectorFor(crm, tenant);
    let after: string | undefined;
    for (;;) {
      const page = await deps.followUps.open(crm, tenant, connector.maxTaskStateBatch, after);
      if (!page.length) break;
      after = page.at(-1)?.taskId;
      result.checked += page.length;
      // A status claimed before (its provider call failed) is sent again without asking the CRM.
      const unclaimed = page.filter((f) => f.closing === null);
      let states: TaskState[];
      try {
        states = unclaimed.length ? await connector.taskStates(unclaimed.map((f) => f.taskId)) : [];
      } catch {
        // This tenant's CRM is unreachable or refuses us for now: its tasks wait for the next sweep,
        // the other tenants go on.
        result.failed += unclaimed.length;
        states = [];
      }
      const decided: { f: OpenFollowUp; outcome: RowOutcome; crmState: string }[] = page.flatMap((f) =>
        f.closing ? [{ f, outcome: f.closing, crmState: f.crmState ?? '' }] : [],
      );
      for (const [i, state] of states.entries()) {
        const f = unclaimed[i];
        if (!f) continue;
        const outcome = outcomeOf(state, deps.dismissed);
        if (outcome && (await deps.followUps.claim(f, outcome, describe(state))))
          decided.push({ f, outcome, crmState: describe(state) });
        else if (!outcome && state.state === 'deleted') {
          await deps.followUps.forget(f);
          result.forgotten++;
        }
      }
      for (const d of decided) {
        const sent = await send(deps, d.f, d.outcome, d.crmState);
        if (!sent) result.failed++;
        else if (d.outcome === 'Actioned') result.actioned++;
        else result.notInterested++;
      }
      if (page.length < connector.maxTaskStateBatch) break;
    }
  }
  return result;
}

/** Sets the row's status (unless another task of the row did) and closes the task; false: retry later. */
async function send(
  deps: SweepDeps,
  f: OpenFollowUp,
  outcome: RowOutcome,
  crmState: string,
): Promise<boolean> {
  if (await deps.followUps.rowAlreadySet(f.bridgeId, f.rowId, outcome)) {
    await deps.followUps.close(f, outcome, crmState, 'set already by another task of the same row');
    return true;
  }
  try {
    await deps.buyerIntel.setBridgeRowStatus(f.bridgeId, f.rowId, outcome);
  } catch (err) {
    // A row the provider no longer has (or refuses for good) can never take the status: closed, noted.
    if (failureFacts(err)?.permanent) {
      await deps.followUps.close(f, outcome, crmState, `not set: ${(err as Error).message}`.slice(0, 500));
      return true;
    }
    return false;
  }
  await deps.followUps.close(f, outcome, crmState, null);
  return true;
}
