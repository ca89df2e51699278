// The card's behaviour without JSX or `@hubspot/ui-extensions`, so it is unit-tested directly: the
// state machine (a pure reducer), the labels, and the flow that runs a queued job to its end.
import {
  type AccountMatch,
  type BuyerIntelApi,
  type Job,
  type PollOptions,
  pollJob,
  type Queued,
} from './buyer-intel-api.ts';
import { errorMessage, formatValue } from './buyer-intel-format.ts';

// ---- Card state machine ---------------------------------------------------------------------

/** What a person can ask of the account; each one queues a job the card follows to its end. */
export type CardAction = 'refresh' | 'confirm' | 'reject' | 'clear' | 'research';

export type CardPhase =
  | 'loading'
  | 'ready'
  | 'refreshing'
  | 'confirming'
  | 'rejecting'
  | 'clearing'
  | 'researching'
  | 'error';

const PHASE_OF: Record<CardAction, CardPhase> = {
  refresh: 'refreshing',
  confirm: 'confirming',
  reject: 'rejecting',
  clear: 'clearing',
  research: 'researching',
};

/** The form a person has open, with what they typed and why it cannot be sent (ours or the server's). */
export type ReviewForm =
  | { kind: 'reject'; reason: string; problem: string | null }
  | { kind: 'research'; name: string; state: string; problem: string | null };

export interface DiffRow {
  property: string;
  attribute: string;
  from: string;
  to: string;
  action: string;
}

export interface JobOutcome {
  jobId: string;
  /** Which action the job applied (its heading: "Rejected", "Search complete"...). */
  action: CardAction;
  state: 'completed' | 'failed';
  status: string | null;
  rows: DiffRow[];
  notes: { key: string; title: string }[];
  failedReason: string | null;
}

export interface CardState {
  phase: CardPhase;
  account: AccountMatch | null;
  /** The action in flight, if any. */
  action: CardAction | null;
  jobId: string | null;
  confirmingBuyerId: string | null;
  outcome: JobOutcome | null;
  error: string | null;
  form: ReviewForm | null;
  /** Jobs followed to their end: each one may have changed the company ("Last changes" reads again). */
  jobsFinished: number;
}

export type CardEvent =
  | { type: 'load' }
  | { type: 'loaded'; account: AccountMatch }
  | { type: 'failed'; message: string }
  | { type: 'refresh_requested' }
  | { type: 'confirm_requested'; buyerId: string }
  /** What is sent is what the form holds (frozen until the service answers). */
  | { type: 'reject_requested' }
  | { type: 'clear_requested' }
  | { type: 'research_requested' }
  | { type: 'form_opened'; kind: ReviewForm['kind'] }
  | { type: 'form_edited'; field: 'reason' | 'name' | 'state'; value: string }
  | { type: 'form_invalid'; problem: string }
  | { type: 'form_closed' }
  | { type: 'job_queued'; jobId: string }
  | { type: 'job_finished'; job: Job; account: AccountMatch | null };

export const initialCardState: CardState = {
  phase: 'loading',
  account: null,
  action: null,
  jobId: null,
  confirmingBuyerId: null,
  outcome: null,
  error: null,
  form: null,
  jobsFinished: 0,
};

export function toOutcome(job: Job, action: CardAction = 'refresh'): JobOutcome {
  const result = job.result;
  return {
    jobId: job.id,
    action,
    state: job.state === 'failed' ? 'failed' : 'completed',
    status: result?.status ?? null,
    rows: (result?.fields ?? [])
      .filter((f) => f.action !== 'skip' && f.action !== 'unchanged')
      .map((f) => ({
        property: f.property,
        attribute: f.attribute,
        from: formatValue(f.from),
        to: formatValue(f.to),
        action: f.action,
      })),
    notes: result?.notes?.created ?? [],
    failedReason: job.state === 'failed' ? (job.failedReason ?? `${failedTitle(action)}.`) : null,
  };
}

export function isBusy(state: CardState): boolean {
  return state.action !== null;
}

/** Starts an action unless one is in flight (a double click is one request). */
function started(state: CardState, action: CardAction, extra: Partial<CardState> = {}): CardState {
  if (isBusy(state)) return state;
  const form = state.form ? { ...state.form, problem: null } : null;
  return {
    ...state,
    phase: PHASE_OF[action],
    action,
    jobId: null,
    outcome: null,
    error: null,
    form,
    ...extra,
  };
}

export function cardReducer(state: CardState, event: CardEvent): CardState {
  switch (event.type) {
    case 'load':
      return { ...state, phase: 'loading', error: null };
    case 'loaded':
      return { ...state, phase: 'ready', account: event.account, error: null };
    case 'failed': {
      // A refused reject or re-search is shown in its form, next to what the person can fix.
      const inForm = state.form !== null && state.form.kind === state.action;
      return {
        ...state,
        phase: state.account ? 'ready' : 'error',
        action: null,
        confirmingBuyerId: null,
        error: inForm ? null : event.message,
        form: inForm && state.form ? { ...state.form, problem: event.message } : state.form,
      };
    }
    case 'refresh_requested':
      return started(state, 'refresh');
    case 'confirm_requested':
      return started(state, 'confirm', { confirmingBuyerId: event.buyerId });
    case 'reject_requested':
      return started(state, 'reject');
    case 'clear_requested':
      return started(state, 'clear');
    case 'research_requested':
      return started(state, 'research');
    case 'form_opened': {
      if (isBusy(state) || !state.account) return state;
      const form: ReviewForm =
        event.kind === 'reject'
          ? { kind: 'reject', reason: '', problem: null }
          : {
              kind: 'research',
              name: state.account.name ?? '',
              state: state.account.state ?? '',
              problem: null,
            };
      return { ...state, form };
    }
    case 'form_edited': {
      // What was sent stays what the form shows until the server answers.
      const form = state.form;
      if (!form || isBusy(state)) return state;
      if (form.kind === 'reject' && event.field === 'reason')
        return { ...state, form: { ...form, reason: event.value, problem: null } };
      if (form.kind === 'research' && (event.field === 'name' || event.field === 'state'))
        return { ...state, form: { ...form, [event.field]: event.value, problem: null } };
      return state;
    }
    case 'form_invalid':
      return state.form ? { ...state, form: { ...state.form, problem: event.problem } } : state;
    case 'form_closed':
      return isBusy(state) ? state : { ...state, form: null };
    case 'job_queued':
      return { ...state, jobId: event.jobId };
    case 'job_finished':
      return {
        ...state,
        phase: 'ready',
        action: null,
        account: event.account ?? state.account,
        confirmingBuyerId: null,
        outcome: toOutcome(event.job, state.action ?? 'refresh'),
        error: null,
        form: null,
        jobsFinished: state.jobsFinished + 1,
      };
  }
}

// ---- Labels ------------------------------------------------------------------

const PROGRESS: Record<CardAction, string> = {
  refresh: 'Refreshing…',
  confirm: 'Confirming buyer…',
  reject: 'Rejecting…',
  clear: 'Clearing the rejection…',
  research: 'Searching again…',
};

export function progressLabel(state: CardState): string {
  return state.action ? PROGRESS[state.action] : '';
}

const DONE: Record<CardAction, string> = {
  refresh: 'Refresh complete',
  confirm: 'Buyer confirmed',
  reject: 'Rejected',
  clear: 'Rejection cleared',
  research: 'Search complete',
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
