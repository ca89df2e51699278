// The quick action's last changes and their undo, rendered by the LWC engine (sfdx-lwc-jest): the history
// under the match (a failed read retried on its own), then "Undo last change" — the plan first (a dry run),
// confirmed or cancelled, the undo run followed to its end and what it did, the account read again — and
// an undo the service refuses.
import getHistory from '@salesforce/apex/BuyerIntelRefreshController.getHistory';
import getMatch from '@salesforce/apex/BuyerIntelRefreshController.getMatch';
import undoLastChange from '@salesforce/apex/BuyerIntelRefreshController.undoLastChange';
import undoStatus from '@salesforce/apex/BuyerIntelRefreshController.undoStatus';
import {
  ACCOUNT_ID,
  alerts,
  apexError,
  button,
  click,
  EMPTY_HISTORY,
  HISTORY,
  labels,
  MATCH,
  mount,
  settle,
  spinners,
  text,
  unmountAll,
} from './harness';

/** The service's dry run of undoing the refresh in HISTORY (POST /api/undo, src/api/undo-routes.ts). */
const PLAN = {
  dryRun: true,
  what: `salesforce account ${ACCOUNT_ID}'s last change (refresh run 7)`,
  remarks: [],
  total: 1,
  planned: 1,
  complete: true,
  totals: { restore: 3, skip: 1, unchanged: 0, accounts: 1, notes: 1, notesRemovedBefore: 0, gone: 0 },
  fields: {},
  accounts: [
    {
      crm: 'salesforce',
      tenant: '00D000000000001EAA',
      accountId: ACCOUNT_ID,
      buyerId: 'b-1',
      gone: false,
      fields: [
        {
          field: 'buyer_intel_population',
          kind: 'mapped',
          now: '961855',
          wrote: '961855',
          before: null,
          action: 'restore',
        },
        {
          field: 'buyer_intel_employee_fte',
          kind: 'mapped',
          now: '1300',
          wrote: '1200',
          before: null,
          action: 'skip',
        },
        {
          field: 'buyer_intel_status',
          kind: 'provenance',
          now: 'enriched',
          wrote: 'enriched',
          before: null,
          action: 'restore',
        },
        {
          field: 'buyer_intel_last_enriched_at',
          kind: 'provenance',
          now: 'x',
          wrote: 'x',
          before: null,
          action: 'restore',
        },
      ],
      notes: [{ noteId: '00T1', dedupeKey: 'rfp-1', title: 'RFP: Street resurfacing' }],
      notesRemovedBefore: 0,
    },
  ],
};

const QUEUED = { runId: '42', jobId: 'undo-42', resumed: false, what: PLAN.what, remarks: [] };
const RUNNING = { id: '42', kind: 'undo', finishedAt: null, counts: {} };
const FINISHED = {
  ...RUNNING,
  finishedAt: '2026-11-20T10:05:00.000Z',
  counts: {
    accounts: 1,
    restored: 3,
    unchanged: 0,
    skipped: 1,
    notesRemoved: 1,
    notesGone: 0,
    failed: 0,
    gone: 0,
  },
};

beforeEach(() => {
  getMatch.mockResolvedValue(MATCH);
  getHistory.mockResolvedValue(HISTORY);
  undoLastChange.mockImplementation(({ dryRun }) => Promise.resolve(dryRun ? PLAN : QUEUED));
  undoStatus.mockResolvedValue(FINISHED);
});

afterEach(() => {
  unmountAll();
  jest.clearAllMocks();
});

describe('c-buyer-intel-refresh: last changes', () => {
  it("lists the account's last changes under the match, the match first", async () => {
    const element = mount();
    await settle();
    expect(getHistory).toHaveBeenCalledWith({ accountId: ACCOUNT_ID, after: null });
    expect(text(element)).toContain('refresh by jane.doe@acme.example');
    const lines = [...element.shadowRoot.querySelectorAll('li.slds-item > p')].map((p) => p.textContent);
    expect(lines.slice(1)).toEqual([
      'Status: — → Enriched',
      'Buyer: — → City of Austin',
      'Population: — → 961855',
    ]);
  });

  it('says so when buyer intel never changed the account, and offers no undo', async () => {
    getHistory.mockResolvedValue(EMPTY_HISTORY);
    const element = mount();
    await settle();
    expect(text(element)).toContain('Buyer intel has not changed this account yet.');
    expect(labels(element)).not.toContain('Undo last change');
  });

  it('shows a failed read in its section, with Try again; the rest of the panel keeps working', async () => {
    getHistory.mockRejectedValueOnce(
      apexError('Buyer intel service returned HTTP 503. Try again in a minute.'),
    );
    const element = mount();
    await settle();
    expect(alerts(element)).toEqual([
      'Last changes are unavailable: Buyer intel service returned HTTP 503. Try again in a minute.',
    ]);
    expect(button(element, 'Refresh from buyer intel').disabled).toBe(false);
    await click(element, 'Try again');
    expect(alerts(element)).toEqual([]);
    expect(text(element)).toContain('Population: — → 961855');
  });
});

describe('c-buyer-intel-refresh: undo the last change', () => {
  it('shows the plan first: what goes back, what a person changed is kept, the note removed', async () => {
    const element = mount();
    await settle();
    await click(element, 'Undo last change');

    expect(undoLastChange).toHaveBeenCalledWith({ accountId: ACCOUNT_ID, dryRun: true });
    expect(text(element)).toContain('Undo the last change (refresh run 7)?');
    expect(text(element)).toContain(
      'The undo puts back 3 values, removes 1 note, keeps 1 value a person changed since.',
    );
    const plan = [...element.shadowRoot.querySelectorAll('.slds-box li')].map((li) => li.textContent);
    expect(plan).toEqual([
      'Employee FTE: kept, a person changed it since (1300)',
      'Status: Enriched → —',
      'Note removed: RFP: Street resurfacing',
      'Population: 961855 → —',
    ]);
    // Nothing is undone until the rep confirms; the other decisions wait while the plan is open.
    expect(undoLastChange).toHaveBeenCalledTimes(1);
    expect(labels(element)).not.toContain('Not a public buyer');
  });

  it('undoes once confirmed, follows the undo run to its end and reads the account again', async () => {
    undoStatus.mockResolvedValueOnce(FINISHED);
    const element = mount();
    await settle();
    await click(element, 'Undo last change');
    await click(element, 'Undo');

    expect(undoLastChange).toHaveBeenLastCalledWith({ accountId: ACCOUNT_ID, dryRun: false });
    expect(undoStatus).toHaveBeenCalledWith({ runId: '42' });
    expect(text(element)).toContain('Last change undone');
    expect(text(element)).toContain(
      '3 values put back, 1 value kept (changed by a person since), 1 note removed.',
    );
    expect(getMatch).toHaveBeenCalledTimes(2);
    expect(getHistory).toHaveBeenCalledTimes(2);
    expect(element.shadowRoot.querySelector('.slds-box')).toBeNull(); // the plan is closed
  });

  it('while the undo run goes on, says so and asks again every 1.5 s until it has finished', async () => {
    jest.useFakeTimers();
    try {
      undoStatus
        .mockResolvedValueOnce(RUNNING)
        .mockResolvedValueOnce(RUNNING)
        .mockResolvedValueOnce(FINISHED);
      const element = mount();
      await jest.advanceTimersByTimeAsync(0);
      button(element, 'Undo last change').click();
      await jest.advanceTimersByTimeAsync(0);
      button(element, 'Undo').click();
      await jest.advanceTimersByTimeAsync(0);
      expect(undoStatus).toHaveBeenCalledTimes(1);
      expect(spinners(element)).toEqual(['Undoing the last change…']);
      expect(button(element, 'Refresh from buyer intel').disabled).toBe(true);

      await jest.advanceTimersByTimeAsync(1500);
      expect(undoStatus).toHaveBeenCalledTimes(2);
      await jest.advanceTimersByTimeAsync(1500);
      expect(undoStatus).toHaveBeenCalledTimes(3);
      expect(text(element)).toContain('Last change undone');
      expect(spinners(element)).toEqual([]);
    } finally {
      jest.useRealTimers();
    }
  });

  it('cancelled: nothing is undone', async () => {
    const element = mount();
    await settle();
    await click(element, 'Undo last change');
    await click(element, 'Cancel');
    expect(undoLastChange).toHaveBeenCalledTimes(1);
    expect(text(element)).not.toContain('Undo the last change');
    expect(labels(element)).toContain('Undo last change');
  });

  it('a change already undone: the plan says there is nothing to undo and the Undo button is off', async () => {
    undoLastChange.mockResolvedValue({
      ...PLAN,
      totals: { ...PLAN.totals, restore: 0, skip: 0, notes: 0, unchanged: 3 },
      accounts: [{ ...PLAN.accounts[0], fields: [], notes: [] }],
    });
    const element = mount();
    await settle();
    await click(element, 'Undo last change');
    expect(text(element)).toContain('Nothing to undo: the values are already as they were before it.');
    expect(button(element, 'Undo').disabled).toBe(true);
  });

  it('an undo the service refuses shows its message, and the plan stays open to try again', async () => {
    const message = 'Buyer intel service returned HTTP 503: could not queue the undo; try again';
    undoLastChange.mockResolvedValueOnce(PLAN).mockRejectedValueOnce(apexError(message));
    const element = mount();
    await settle();
    await click(element, 'Undo last change');
    await click(element, 'Undo');
    expect(alerts(element)).toEqual([message]);
    expect(undoStatus).not.toHaveBeenCalled();
    expect(button(element, 'Undo').disabled).toBe(false);
  });

  it('nothing recorded to undo: the service says so before any plan is shown', async () => {
    const message = `Buyer intel service returned HTTP 404: nothing recorded for salesforce account ${ACCOUNT_ID}`;
    undoLastChange.mockRejectedValue(apexError(message));
    const element = mount();
    await settle();
    await click(element, 'Undo last change');
    expect(alerts(element)).toEqual([message]);
    expect(labels(element)).not.toContain('Undo');
  });
});
