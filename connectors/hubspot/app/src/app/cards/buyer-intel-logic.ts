// The card's state machine without JSX or `@hubspot/ui-extensions`, so it is unit-tested directly: a
// pure reducer over what a person asks and what the service answers. Its words and the flow that runs
// a queued job are in card-actions.ts; the undo panel's in undo-logic.ts.
import type { AccountMatch, Job } from './buyer-intel-api.ts';
import { formatValue } from './buyer-intel-format.ts';
import { planOf, type UndoEvent, type UndoPanel } from './undo-logic.ts';

/**
 * What a person can ask of the account; each one queues a job the card follows to its end (an undo: a
 * run, after its dry run).
 */
export type CardAction = 'refresh' | 'confirm' | 'reject' | 'clear' | 'research' | 'undo';

export type CardPhase =
  | 'loading'
  | 'ready'
  | 'refreshing'
  | 'confirming'
  | 'rejecting'
  | 'clearing'
  | 'researching'
  | 'undoing'
  | 'error';

const PHASE_OF: Record<CardAction, CardPhase> = {
  refresh: 'refreshing',
  confirm: 'confirming',
  reject: 'rejecting',
  clear: 'clearing',
  research: 'researching',
  undo: 'undoing',
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
  /** "Undo last change": its plan, progress or result; null when closed. */
  undo: UndoPanel | null;
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
  | { type: 'job_finished'; job: Job; account: AccountMatch | null }
  | UndoEvent;

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
  undo: null,
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
    // No reason of the job's: the view says which action failed.
    failedReason: job.state === 'failed' ? (job.failedReason ?? null) : null,
  };
}

export function isBusy(state: CardState): boolean {
  return state.action !== null;
}

/**
 * Starts an action unless one is in flight (a double click is one request). Any other action closes
 * the undo panel: what it planned may no longer hold once the action has run.
 */
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
    undo: null,
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
      return { ...state, form, undo: null };
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
    case 'undo_opened':
      // One panel at a time: the undo closes a form, and a form or another job waits for it.
      if (isBusy(state) || !state.account) return state;
      return { ...started(state, 'undo'), form: null, undo: { stage: 'checking' } };
    case 'undo_planned':
      if (state.undo?.stage !== 'checking') return state;
      return { ...state, phase: 'ready', action: null, undo: { stage: 'plan', plan: event.plan } };
    case 'undo_confirmed': {
      const plan = planOf(state.undo);
      if (isBusy(state) || !plan) return state;
      return { ...started(state, 'undo'), undo: { stage: 'undoing', plan, runId: null } };
    }
    case 'undo_queued':
      if (state.undo?.stage !== 'undoing') return state;
      return { ...state, undo: { ...state.undo, runId: event.runId } };
    case 'undo_finished':
      return {
        ...state,
        phase: 'ready',
        action: null,
        account: event.account ?? state.account,
        undo: { stage: 'done', run: event.run },
        jobsFinished: state.jobsFinished + 1,
      };
    case 'undo_refused':
      return {
        ...state,
        phase: 'ready',
        action: null,
        undo: { stage: 'refused', problem: event.message, plan: planOf(state.undo) },
      };
    case 'undo_closed':
      return isBusy(state) ? state : { ...state, undo: null };
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
