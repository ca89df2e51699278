// The "Last changes" section's state without JSX (unit-tested directly): the pages of the company's
// write history it has read, how many changes it shows, and which page it still needs. The service
// pages by events, not by change, so a job's change may continue on the next page: the last change of
// a page that has a `next` is held back until that page is read.
import type { HistoryChange, HistoryPage } from './buyer-intel-api.ts';

/** Changes shown at first, and added by each "Show more". */
export const HISTORY_STEP = 5;

export interface HistoryState {
  /** Every change read so far, newest first. */
  changes: HistoryChange[];
  next: string | null;
  /** How many changes a person asked to see. */
  shown: number;
  /** What is being read: the newest page, or the one after `next`. */
  loading: 'first' | 'more' | null;
  error: string | null;
  /** The newest page has been read since the last reload (a failed read of it clears this). */
  loaded: boolean;
  /** Numbers each read of the newest page: an answer to an older read is dropped. */
  request: number;
}

export type HistoryEvent =
  /** Read the newest page again (the card opened, a job finished, a retry of a first read). */
  | { type: 'reload' }
  | { type: 'show_more' }
  /** Try the failed read again. */
  | { type: 'retry' }
  | { type: 'fetching'; after: string }
  | { type: 'page'; request: number; after: string | null; page: HistoryPage }
  | { type: 'failed'; request: number; after: string | null; message: string };

export const initialHistoryState: HistoryState = {
  changes: [],
  next: null,
  shown: HISTORY_STEP,
  loading: 'first',
  error: null,
  loaded: false,
  request: 0,
};

const sameChange = (a: HistoryChange, b: HistoryChange) =>
  a.accountId === b.accountId && a.runId === b.runId && a.jobId === b.jobId && a.trigger === b.trigger;

/** The older page's changes after the ones read, its first joined to the last when it continues it. */
export function appendPage(
  changes: readonly HistoryChange[],
  older: readonly HistoryChange[],
): HistoryChange[] {
  const last = changes.at(-1);
  const [first, ...rest] = older;
  if (!last || !first || !sameChange(last, first)) return [...changes, ...older];
  const joined = {
    ...last,
    fields: [...last.fields, ...first.fields],
    notes: [...last.notes, ...first.notes],
  };
  return [...changes.slice(0, -1), joined, ...rest];
}

/** The changes known whole: all but the last while an older page may continue it. */
export function completeChanges(state: Pick<HistoryState, 'changes' | 'next'>): HistoryChange[] {
  return state.next === null ? state.changes : state.changes.slice(0, -1);
}

export function visibleChanges(state: HistoryState): HistoryChange[] {
  return completeChanges(state).slice(0, state.shown);
}

/** Whether "Show more" has anything to show (read already, or on an older page). */
export function hasMoreChanges(state: HistoryState): boolean {
  return completeChanges(state).length > state.shown || state.next !== null;
}

/** The cursor of the page to read now: when fewer whole changes are read than are to be shown. */
export function pageWanted(state: HistoryState): string | null {
  if (!state.loaded || state.loading !== null || state.error !== null || state.next === null) return null;
  return completeChanges(state).length < state.shown ? state.next : null;
}

/** An answer for the read in flight (a reload since, or a page read twice, is not). */
function answers(state: HistoryState, e: { request: number; after: string | null }): boolean {
  if (e.request !== state.request) return false;
  return e.after === null ? state.loading === 'first' : state.loading === 'more' && state.next === e.after;
}

const reload = (state: HistoryState): HistoryState => ({
  ...state,
  shown: HISTORY_STEP,
  loading: 'first',
  error: null,
  request: state.request + 1,
});

export function historyReducer(state: HistoryState, event: HistoryEvent): HistoryState {
  switch (event.type) {
    case 'reload':
      return reload(state);
    case 'show_more':
      return hasMoreChanges(state) ? { ...state, shown: state.shown + HISTORY_STEP, error: null } : state;
    case 'retry':
      return state.loaded ? { ...state, error: null } : reload(state);
    case 'fetching':
      return state.loading === null && state.next === event.after ? { ...state, loading: 'more' } : state;
    case 'page': {
      if (!answers(state, event)) return state;
      const changes =
        event.after === null ? event.page.changes : appendPage(state.changes, event.page.changes);
      return { ...state, changes, next: event.page.next, loading: null, error: null, loaded: true };
    }
    case 'failed':
      // A failed read of the newest page leaves what was shown, but not as the newest: a retry reads it.
      return answers(state, event)
        ? {
            ...state,
            loading: null,
            error: event.message,
            loaded: event.after === null ? false : state.loaded,
          }
        : state;
  }
}
