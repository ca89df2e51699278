// Size: the quick action's one component (an LWC bundle has one): the match, five actions followed to their job's end, two forms, the last changes and their undo.
import clearRejection from '@salesforce/apex/BuyerIntelRefreshController.clearRejection';
import confirmCandidate from '@salesforce/apex/BuyerIntelRefreshController.confirmCandidate';
import getHistory from '@salesforce/apex/BuyerIntelRefreshController.getHistory';
import getMatch from '@salesforce/apex/BuyerIntelRefreshController.getMatch';
import jobStatus from '@salesforce/apex/BuyerIntelRefreshController.jobStatus';
import refresh from '@salesforce/apex/BuyerIntelRefreshController.refresh';
import rejectAccount from '@salesforce/apex/BuyerIntelRefreshController.rejectAccount';
import researchAccount from '@salesforce/apex/BuyerIntelRefreshController.researchAccount';
import undoLastChange from '@salesforce/apex/BuyerIntelRefreshController.undoLastChange';
import undoStatus from '@salesforce/apex/BuyerIntelRefreshController.undoStatus';
import { CloseActionScreenEvent } from 'lightning/actions';
import { api, LightningElement } from 'lwc';
import {
  candidateRows,
  changeView,
  createdNotes,
  diffRows,
  formatConfidence,
  formatDateTime,
  hasMoreChanges,
  historyPageOf,
  historyReducer,
  initialHistoryState,
  isRejected,
  isTerminal,
  jobTitles,
  MAX_NAME,
  MAX_REASON,
  MAX_STATE,
  pageWanted,
  reduceError,
  rejectInput,
  researchDefaults,
  researchInput,
  statusBadgeClass,
  statusLabel,
  UNREADABLE_HISTORY,
  visibleChanges,
} from './buyerIntelFormat';
import { isUndoFinished, UNDO_TITLES, undoOutcome, undoPlanView } from './buyerIntelUndo';

const POLL_INTERVAL_MS = 1500;
const MAX_POLLS = 40;

export default class BuyerIntelRefresh extends LightningElement {
  _recordId;
  match;
  job;
  error;
  loading = true;
  busy = false;
  busyLabel = '';
  pollTimer;
  /** The action whose job is shown (refresh, confirm, reject, clear, research). */
  action = 'refresh';
  /** The open form: 'reject', 'research', 'undo' (the plan, to confirm) or none. */
  form;
  reason = '';
  searchName = '';
  searchState = '';
  maxReason = MAX_REASON;
  maxName = MAX_NAME;
  maxState = MAX_STATE;
  /** The account's last changes (the service's write history), read after the account. */
  history = initialHistoryState();
  /** The undo's plan as shown before the rep confirms it, and what the finished undo did. */
  undoPlan;
  undone;

  // Screen quick actions set recordId after construction, so load when it arrives.
  @api
  get recordId() {
    return this._recordId;
  }
  set recordId(value) {
    const changed = value && value !== this._recordId;
    this._recordId = value;
    if (changed) this.load();
  }

  disconnectedCallback() {
    clearTimeout(this.pollTimer);
  }

  async load() {
    this.loading = true;
    let loaded = false;
    try {
      this.match = await getMatch({ accountId: this._recordId });
      this.error = undefined;
      loaded = true;
    } catch (e) {
      this.error = reduceError(e);
    } finally {
      this.loading = false;
    }
    // The account shows first; its last changes follow, and again after each job (which reloads it).
    if (loaded) this.loadHistory();
  }

  loadHistory() {
    this.history = historyReducer(this.history, { type: 'reload' });
    this.readHistory(null);
  }

  /** Reads the newest page (`after` null) or the one after a cursor, then any page still wanted. */
  async readHistory(after) {
    const request = this.history.request;
    if (after !== null) this.history = historyReducer(this.history, { type: 'fetching', after });
    try {
      const page = historyPageOf(await getHistory({ accountId: this._recordId, after }));
      this.history = historyReducer(
        this.history,
        page
          ? { type: 'page', request, after, page }
          : { type: 'failed', request, after, message: UNREADABLE_HISTORY },
      );
    } catch (e) {
      this.history = historyReducer(this.history, {
        type: 'failed',
        request,
        after,
        message: reduceError(e),
      });
    }
    this.continueHistory();
  }

  continueHistory() {
    const wanted = pageWanted(this.history);
    if (wanted !== null) this.readHistory(wanted);
  }

  get hasMatch() {
    return !this.loading && Boolean(this.match);
  }
  get buyerName() {
    return this.match?.buyerName ?? 'No buyer matched';
  }
  get confidence() {
    return formatConfidence(this.match?.confidence);
  }
  get statusText() {
    return statusLabel(this.match?.status);
  }
  get statusClass() {
    return statusBadgeClass(this.match?.status);
  }
  get lastEnriched() {
    return formatDateTime(this.match?.lastEnrichedAt);
  }
  get needsReview() {
    return this.match?.status === 'needs_review';
  }
  get candidates() {
    return candidateRows(this.match);
  }
  get hasCandidates() {
    return this.candidates.length > 0;
  }
  get jobFailed() {
    return this.job?.state === 'failed';
  }
  get jobCompleted() {
    return this.job?.state === 'completed';
  }
  get failedReason() {
    return this.job?.failedReason ?? 'The job failed.';
  }
  get doneTitle() {
    return jobTitles(this.action).done;
  }
  get failedTitle() {
    return jobTitles(this.action).failed;
  }
  get rejected() {
    return isRejected(this.match);
  }
  get showDecisions() {
    return this.hasMatch && !this.form;
  }
  get undoing() {
    return this.form === 'undo';
  }
  get undoDisabled() {
    return this.busy || !this.undoPlan?.hasWork;
  }
  get undoDoneTitle() {
    return UNDO_TITLES.done;
  }
  /** Offered once the account has a change to take back, and no form is open. */
  get canUndo() {
    return this.hasMatch && !this.form && this.historyViews.length > 0;
  }
  get rejecting() {
    return this.form === 'reject';
  }
  get researching() {
    return this.form === 'research';
  }
  get changes() {
    return diffRows(this.job);
  }
  get hasChanges() {
    return this.changes.length > 0;
  }
  get notes() {
    return createdNotes(this.job);
  }
  get hasNotes() {
    return this.notes.length > 0;
  }
  get refreshDisabled() {
    return this.busy || this.loading;
  }
  get showHistory() {
    return Boolean(this.match);
  }
  get historyViews() {
    return visibleChanges(this.history).map(changeView);
  }
  get historyLoadingFirst() {
    return this.history.loading === 'first';
  }
  get historyLoadingMore() {
    return this.history.loading === 'more';
  }
  get historyError() {
    return this.history.error;
  }
  get historyEmpty() {
    return this.history.loaded && this.history.next === null && this.historyViews.length === 0;
  }
  get historyHasMore() {
    return hasMoreChanges(this.history);
  }

  handleShowMore() {
    this.history = historyReducer(this.history, { type: 'show_more' });
    this.continueHistory();
  }

  handleHistoryRetry() {
    this.history = historyReducer(this.history, { type: 'retry' });
    if (this.history.loading === 'first') this.readHistory(null);
    else this.continueHistory();
  }

  handleRefresh() {
    this.runJob('refresh', () => refresh({ accountId: this._recordId }));
  }

  handleConfirm(event) {
    const buyerId = event.currentTarget.dataset.buyerId;
    this.runJob('confirm', () => confirmCandidate({ accountId: this._recordId, buyerId }));
  }

  handleShowReject() {
    this.reason = '';
    this.error = undefined;
    this.form = 'reject';
  }

  handleShowResearch() {
    const start = researchDefaults(this.match);
    this.searchName = start.name;
    this.searchState = start.state;
    this.error = undefined;
    this.form = 'research';
  }

  handleCancel() {
    this.form = undefined;
    this.error = undefined;
  }

  handleReasonChange(event) {
    this.reason = event.detail.value;
  }
  handleNameChange(event) {
    this.searchName = event.detail.value;
  }
  handleStateChange(event) {
    this.searchState = event.detail.value;
  }

  handleReject() {
    const input = rejectInput(this.reason);
    if (input.error) {
      this.error = input.error;
      return;
    }
    this.runJob('reject', () => rejectAccount({ accountId: this._recordId, reason: input.reason }));
  }

  handleClear() {
    this.runJob('clear', () => clearRejection({ accountId: this._recordId }));
  }

  handleResearch() {
    const input = researchInput(this.searchName, this.searchState);
    if (input.error) {
      this.error = input.error;
      return;
    }
    this.runJob('research', () =>
      researchAccount({ accountId: this._recordId, name: input.name, state: input.state }),
    );
  }

  /** First the dry run: the rep sees what would go back before anything is written. */
  async handleShowUndo() {
    if (this.busy) return;
    this.startBusy(UNDO_TITLES.preview);
    try {
      this.undoPlan = undoPlanView(await undoLastChange({ accountId: this._recordId, dryRun: true }));
      this.form = 'undo';
    } catch (e) {
      this.error = reduceError(e);
    } finally {
      this.busy = false;
    }
  }

  /** The confirmed undo: queued as an undo run, followed to its end, then the account read again. */
  async handleUndo() {
    if (this.busy) return;
    this.startBusy(UNDO_TITLES.busy);
    try {
      const { runId } = await undoLastChange({ accountId: this._recordId, dryRun: false });
      this.form = undefined;
      const run = await this.follow(() => undoStatus({ runId }), isUndoFinished);
      this.undone = undoOutcome(run);
      await this.load();
    } catch (e) {
      this.error = reduceError(e);
    } finally {
      this.busy = false;
    }
  }

  handleClose() {
    this.dispatchEvent(new CloseActionScreenEvent());
  }

  /** Busy with one thing: its label, and the outcome of the one before cleared. */
  startBusy(label) {
    this.busy = true;
    this.busyLabel = label;
    this.job = undefined;
    this.undone = undefined;
    this.error = undefined;
  }

  async runJob(action, start) {
    if (this.busy) return; // a double click must not queue a second job
    this.action = action;
    this.startBusy(jobTitles(action).busy);
    try {
      const { jobId } = await start();
      // The decision is recorded: its form is done. A refused one (4xx) keeps the form open to fix it.
      this.form = undefined;
      this.job = await this.follow(
        () => jobStatus({ jobId }),
        (job) => isTerminal(job.state),
      );
      await this.load();
    } catch (e) {
      this.error = reduceError(e);
    } finally {
      this.busy = false;
    }
  }

  /** Reads until `done` says so, POLL_INTERVAL_MS apart, at most MAX_POLLS times (one read at a time). */
  async follow(read, done, reads = 1) {
    const answer = await read();
    if (done(answer)) return answer;
    if (reads >= MAX_POLLS) throw new Error('The job is still running; check back in a minute.');
    await new Promise((resolve) => {
      // eslint-disable-next-line @lwc/lwc/no-async-operation
      this.pollTimer = setTimeout(resolve, POLL_INTERVAL_MS);
    });
    return this.follow(read, done, reads + 1);
  }
}
