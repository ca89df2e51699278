// The quick action rendered by the LWC engine (sfdx-lwc-jest) and driven as a rep drives it: loading, the
// match, a refresh followed to its job's diff, a candidate confirmed, the account rejected with a reason or
// searched again with an edited name and state, and every refusal a rep can meet — no access to the
// controller, the service's 403, a 4xx with its message (the typed input kept), the service down, the
// callout failing. The Apex methods are mocked the way sfdx-lwc-jest documents.
import clearRejection from '@salesforce/apex/BuyerIntelRefreshController.clearRejection';
import confirmCandidate from '@salesforce/apex/BuyerIntelRefreshController.confirmCandidate';
import getHistory from '@salesforce/apex/BuyerIntelRefreshController.getHistory';
import getMatch from '@salesforce/apex/BuyerIntelRefreshController.getMatch';
import jobStatus from '@salesforce/apex/BuyerIntelRefreshController.jobStatus';
import refresh from '@salesforce/apex/BuyerIntelRefreshController.refresh';
import rejectAccount from '@salesforce/apex/BuyerIntelRefreshController.rejectAccount';
import researchAccount from '@salesforce/apex/BuyerIntelRefreshController.researchAccount';
import { CloseActionScreenEventName } from 'lightning/actions';
import {
  ACCOUNT_ID,
  alerts,
  apexError,
  button,
  click,
  field,
  HISTORY,
  labels,
  MATCH,
  mount,
  NEEDS_REVIEW,
  settle,
  spinners,
  text,
  type,
  unmountAll,
} from './harness';

/** A finished refresh job: one field written, one unchanged (not listed), one note created. */
const DONE_JOB = {
  id: 'job-1',
  state: 'completed',
  result: {
    status: 'enriched',
    fields: [
      { property: 'BuyerIntel_Population__c', from: null, to: '961855', action: 'set' },
      { property: 'BuyerIntel_State__c', from: 'TX', to: 'TX', action: 'unchanged' },
    ],
    notes: { created: [{ key: 'rfp-1', title: 'RFP: Street resurfacing' }] },
  },
};

beforeEach(() => {
  getMatch.mockResolvedValue(MATCH);
  getHistory.mockResolvedValue(HISTORY);
  jobStatus.mockResolvedValue(DONE_JOB);
  for (const start of [refresh, confirmCandidate, rejectAccount, clearRejection, researchAccount])
    start.mockResolvedValue({ jobId: 'job-1' });
});

afterEach(() => {
  unmountAll();
  jest.clearAllMocks();
});

describe('c-buyer-intel-refresh: the match and a refresh', () => {
  it('shows a spinner until the match arrives, then the buyer, its status and confidence', async () => {
    let answer;
    getMatch.mockReturnValue(
      new Promise((resolve) => {
        answer = resolve;
      }),
    );
    const element = mount();
    await settle();
    expect(spinners(element)).toEqual(['Loading buyer intel']);
    expect(button(element, 'Refresh from buyer intel').disabled).toBe(true);

    answer(MATCH);
    await settle();
    expect(spinners(element)).not.toContain('Loading buyer intel');
    expect(getMatch).toHaveBeenCalledWith({ accountId: ACCOUNT_ID });
    expect(element.shadowRoot.querySelector('.slds-badge').textContent).toBe('Enriched');
    expect(text(element)).toContain('City of Austin');
    expect(text(element)).toContain('93%');
    expect(button(element, 'Refresh from buyer intel').disabled).toBe(false);
  });

  it('refreshes, follows the job and shows what changed (old → new) and the notes added', async () => {
    const element = mount();
    await settle();
    await click(element, 'Refresh from buyer intel');

    expect(refresh).toHaveBeenCalledWith({ accountId: ACCOUNT_ID });
    expect(jobStatus).toHaveBeenCalledWith({ jobId: 'job-1' });
    expect(text(element)).toContain('Refresh complete');
    const rows = [...element.shadowRoot.querySelectorAll('tbody tr')].map((tr) =>
      [...tr.querySelectorAll('td')].map((td) => td.textContent),
    );
    expect(rows).toEqual([['BuyerIntel_Population__c', '— → 961855']]);
    expect([...element.shadowRoot.querySelectorAll('li')].map((li) => li.textContent)).toContain(
      'RFP: Street resurfacing',
    );
    // The account and its last changes are read again after the job.
    expect(getMatch).toHaveBeenCalledTimes(2);
    expect(getHistory).toHaveBeenCalledTimes(2);
  });

  it('queues one job for a double click', async () => {
    refresh.mockReturnValue(new Promise(() => {}));
    const element = mount();
    await settle();
    button(element, 'Refresh from buyer intel').click();
    button(element, 'Refresh from buyer intel').click();
    await settle();
    expect(refresh).toHaveBeenCalledTimes(1);
    expect(button(element, 'Refresh from buyer intel').disabled).toBe(true);
    expect(spinners(element)).toEqual(['Refreshing…']);
  });

  it('shows a failed job with its reason', async () => {
    jobStatus.mockResolvedValue({
      id: 'job-1',
      state: 'failed',
      failedReason: 'Salesforce refused the write',
    });
    const element = mount();
    await settle();
    await click(element, 'Refresh from buyer intel');
    expect(alerts(element)).toEqual(['Refresh failed: Salesforce refused the write']);
  });

  it('closes the panel', async () => {
    const element = mount();
    await settle();
    const closed = jest.fn();
    element.addEventListener(CloseActionScreenEventName, closed);
    await click(element, 'Close');
    expect(closed).toHaveBeenCalledTimes(1);
  });
});

describe('c-buyer-intel-refresh: review decisions', () => {
  it('lists the candidates of a match to review and confirms the one clicked', async () => {
    getMatch.mockResolvedValue(NEEDS_REVIEW);
    const element = mount();
    await settle();
    expect(text(element)).toContain('Possible buyers: confirm the right one');
    expect(text(element)).toContain('Springfield County (county, IL) · 61%');
    const confirms = [...element.shadowRoot.querySelectorAll('lightning-button')].filter(
      (b) => b.label === 'Confirm',
    );
    expect(confirms).toHaveLength(2);

    confirms[1].click();
    await settle();
    expect(confirmCandidate).toHaveBeenCalledWith({ accountId: ACCOUNT_ID, buyerId: 'b-8' });
    expect(text(element)).toContain('Buyer confirmed');
  });

  it('rejects the account with the reason typed, and asks for one before calling anyone', async () => {
    const element = mount();
    await settle();
    await click(element, 'Not a public buyer');
    await click(element, 'Reject');
    expect(alerts(element)).toEqual(['Give the reason this account is not a public buyer.']);
    expect(rejectAccount).not.toHaveBeenCalled();

    await type(element, 'Why is this not a public buyer?', '  a paving contractor ');
    await click(element, 'Reject');
    expect(rejectAccount).toHaveBeenCalledWith({ accountId: ACCOUNT_ID, reason: 'a paving contractor' });
    expect(text(element)).toContain('Rejected: not a public buyer');
    expect(field(element, 'Why is this not a public buyer?')).toBeUndefined(); // the form is done
  });

  it('offers to clear a rejection instead of rejecting again', async () => {
    getMatch.mockResolvedValue({ ...MATCH, status: 'no_match', buyerName: null, pinned: true });
    const element = mount();
    await settle();
    expect(labels(element)).not.toContain('Not a public buyer');
    await click(element, 'Clear rejection');
    expect(clearRejection).toHaveBeenCalledWith({ accountId: ACCOUNT_ID });
    expect(text(element)).toContain('Rejection cleared');
  });

  it("searches again from the Account's name and billing state, as edited", async () => {
    getMatch.mockResolvedValue(NEEDS_REVIEW);
    const element = mount();
    await settle();
    await click(element, 'Search again');
    expect(field(element, 'Name').value).toBe('Springfield Water District');
    expect(field(element, 'State').value).toBe('IL');

    await type(element, 'Name', 'City of Springfield');
    await type(element, 'State', '');
    await click(element, 'Search');
    expect(researchAccount).toHaveBeenCalledWith({
      accountId: ACCOUNT_ID,
      name: 'City of Springfield',
      state: null,
    });
    expect(text(element)).toContain('Search complete');
  });
});

describe('c-buyer-intel-refresh: what a rep reads when something is refused', () => {
  it('without the permission set: which one to ask the admin for', async () => {
    getMatch.mockRejectedValue(
      apexError("You do not have access to the Apex class named 'BuyerIntelRefreshController'."),
    );
    const element = mount();
    await settle();
    expect(alerts(element)).toEqual([
      'You do not have access to Buyer intel. Ask your Salesforce admin to assign you the "Buyer Intel User" permission set.',
    ]);
    expect(getHistory).not.toHaveBeenCalled();
  });

  it("the service's 403, with its message and who can help", async () => {
    const message =
      'Buyer intel service returned HTTP 403: this caller may not act on salesforce 00D000000000001. ' +
      'Ask your Salesforce admin to check the Buyer intel setup.';
    getMatch.mockRejectedValue(apexError(message));
    const element = mount();
    await settle();
    expect(alerts(element)).toEqual([message]);
  });

  it.each([
    ['the service down (5xx)', 'Buyer intel service returned HTTP 503. Try again in a minute.'],
    ['a callout that failed', 'Buyer intel service is unreachable: Read timed out'],
  ])('%s: the message, and the refresh can be tried again', async (_case, message) => {
    refresh.mockRejectedValueOnce(apexError(message));
    const element = mount();
    await settle();
    await click(element, 'Refresh from buyer intel');
    expect(alerts(element)).toEqual([message]);
    expect(button(element, 'Refresh from buyer intel').disabled).toBe(false);
    expect(text(element)).toContain('City of Austin'); // the match stays shown
  });

  it("a 4xx shows the service's message and keeps what the rep typed, to fix it", async () => {
    getMatch.mockResolvedValue(NEEDS_REVIEW);
    researchAccount.mockRejectedValue(
      apexError('Buyer intel service returned HTTP 400: body state: must be a US state or territory'),
    );
    const element = mount();
    await settle();
    await click(element, 'Search again');
    await type(element, 'Name', 'Springfield Utilities');
    await type(element, 'State', 'Illinoiss');
    await click(element, 'Search');

    expect(alerts(element)).toEqual([
      'Buyer intel service returned HTTP 400: body state: must be a US state or territory',
    ]);
    expect(field(element, 'Name').value).toBe('Springfield Utilities');
    expect(field(element, 'State').value).toBe('Illinoiss');
    expect(button(element, 'Search').disabled).toBe(false);
    expect(jobStatus).not.toHaveBeenCalled();
  });
});
