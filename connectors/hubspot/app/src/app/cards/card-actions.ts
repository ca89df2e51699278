// What each action is called while it runs, once done and when it failed, and the flow that runs an
// action's queued job to its end (no JSX, unit-tested directly).
import { type BuyerIntelApi, type PollOptions, pollJob, type Queued } from './buyer-intel-api.ts';
import { errorMessage } from './buyer-intel-format.ts';
import type { CardAction, CardEvent, CardState, JobOutcome } from './buyer-intel-logic.ts';

const PROGRESS: Record<CardAction, string> = {
  refresh: 'Refreshing…',
  confirm: 'Confirming buyer…',
  reject: 'Rejecting…',
  clear: 'Clearing the rejection…',
  research: 'Searching again…',
  undo: 'Undoing…',
};

export function progressLabel(state: CardState): string {
  if (state.undo?.stage === 'checking') return 'Checking what an undo would change…';
  return state.action ? PROGRESS[state.action] : '';
}

const DONE: Record<CardAction, string> = {
  refresh: 'Refresh complete',
  confirm: 'Buyer confirmed',
  reject: 'Rejected',
  clear: 'Rejection cleared',
  research: 'Search complete',
  undo: 'Undone',
};

export function outcomeTitle(outcome: JobOutcome): string {
  return outcome.rows.length === 0
    ? `${DONE[outcome.action]}: no field changed.`
    : `${DONE[outcome.action]}: fields updated`;
}

const FAILED: Record<CardAction, string> = {
  refresh: 'Refresh failed',
  confirm: 'Confirm failed',
  reject: 'Reject failed',
  clear: 'Clear failed',
  research: 'Search failed',
  undo: 'Undo failed',
};

export function failedTitle(action: CardAction): string {
  return FAILED[action];
}

/** Runs a queued job (any action) to completion and reloads the account. */
export async function runJobFlow(
  api: BuyerIntelApi,
  accountId: string,
  start: () => Promise<Queued>,
  dispatch: (event: CardEvent) => void,
  poll: PollOptions = {},
): Promise<void> {
  try {
    const { jobId } = await start();
    dispatch({ type: 'job_queued', jobId });
    const job = await pollJob(api, jobId, poll);
    const account = await api.getAccount(accountId).catch(() => null);
    dispatch({ type: 'job_finished', job, account });
  } catch (err) {
    dispatch({ type: 'failed', message: errorMessage(err) });
  }
}
