// What the quick action's Jest tests share: the account, the service's answers as Apex hands them over, and
// how a rep drives the panel (find a button by its label, click it, type into a field, wait for the
// promises the click started). The Apex methods themselves are mocked for every test file by jest-mocks/apex-controller.js.

import BuyerIntelRefresh from 'c/buyerIntelRefresh';
import { createElement } from 'lwc';

export const ACCOUNT_ID = '001000000000001AAA';

export const MATCH = {
  crm: 'salesforce',
  status: 'enriched',
  buyerId: 'b-1',
  buyerName: 'City of Austin',
  confidence: 0.93,
  lastEnrichedAt: '2026-11-20T10:00:00.000Z',
  candidates: [],
  accountName: 'City of Austin',
  billingState: 'TX',
};

export const NEEDS_REVIEW = {
  ...MATCH,
  status: 'needs_review',
  buyerId: null,
  buyerName: null,
  confidence: null,
  accountName: 'Springfield Water District',
  billingState: 'IL',
  candidates: [
    { buyerId: 'b-7', name: 'Springfield County', stateCode: 'IL', type: 'county', score: 0.61 },
    { buyerId: 'b-8', name: 'City of Springfield', stateCode: 'IL', type: 'city', score: 0.58 },
  ],
};

const AT = '2026-11-20T10:00:00.000Z';
const fieldWrite = (field, old, value) => ({
  field,
  old,
  new: value,
  decision: 'write',
  result: 'ok',
  at: AT,
});

/** One page of the account's write history: a refresh that enriched it. */
export const HISTORY = {
  crm: 'salesforce',
  changes: [
    {
      crm: 'salesforce',
      tenant: '00D000000000001',
      accountId: ACCOUNT_ID,
      at: AT,
      runId: '7',
      run: {
        kind: 'refresh',
        label: 'refresh salesforce',
        actor: 'salesforce 00D000000000001 jane.doe@acme.example',
      },
      jobId: 'job-7',
      trigger: 'refresh',
      buyerId: 'b-1',
      fields: [
        fieldWrite('buyer_intel_status', null, 'enriched'),
        fieldWrite('buyer_intel_buyer_name', null, 'City of Austin'),
        fieldWrite('buyer_intel_population', null, '961855'),
      ],
      notes: [],
    },
  ],
  next: null,
};

export const EMPTY_HISTORY = { crm: 'salesforce', changes: [], next: null };

/** The error an @AuraEnabled method's AuraHandledException reaches the component as. */
export const apexError = (message) => ({ status: 500, body: { message } });

export function mount() {
  const element = createElement('c-buyer-intel-refresh', { is: BuyerIntelRefresh });
  element.recordId = ACCOUNT_ID;
  document.body.appendChild(element);
  return element;
}

export function unmountAll() {
  while (document.body.firstChild) document.body.removeChild(document.body.firstChild);
}

/**
 * Lets every promise the last action started settle: the mocked Apex answers, the component's awaits and
 * its re-render are all microtasks, which run before the next macrotask.
 */
export function settle() {
  return new Promise((resolve) => {
    // eslint-disable-next-line @lwc/lwc/no-async-operation
    setTimeout(resolve, 0);
  });
}

export const buttons = (element) => [...element.shadowRoot.querySelectorAll('lightning-button')];
export const button = (element, label) => buttons(element).find((b) => b.label === label);
export const labels = (element) => buttons(element).map((b) => b.label);

export async function click(element, label) {
  const target = button(element, label);
  if (!target) throw new Error(`no "${label}" button; there are: ${labels(element).join(', ')}`);
  target.click();
  await settle();
}

/** Types into a lightning-input or -textarea by its label, as its change event reports it. */
export async function type(element, label, value) {
  const field = [...element.shadowRoot.querySelectorAll('lightning-input, lightning-textarea')].find(
    (f) => f.label === label,
  );
  if (!field) throw new Error(`no "${label}" field`);
  field.dispatchEvent(new CustomEvent('change', { detail: { value } }));
  await settle();
}

export const field = (element, label) =>
  [...element.shadowRoot.querySelectorAll('lightning-input, lightning-textarea')].find(
    (f) => f.label === label,
  );

/** The alerts the panel shows (errors, a failed job, the history's), as their text. */
export const alerts = (element) =>
  [...element.shadowRoot.querySelectorAll('[role="alert"]')].map((a) =>
    a.textContent.replace(/\s+/g, ' ').trim(),
  );

/** The spinners shown, by what they say they wait for. */
export const spinners = (element) =>
  [...element.shadowRoot.querySelectorAll('lightning-spinner')].map((s) => s.alternativeText);

/** Everything the panel says, in one line of text. */
export const text = (element) => element.shadowRoot.textContent.replace(/\s+/g, ' ');
