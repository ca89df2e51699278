// The HubSpot app card in HubSpot's own test renderer with a fake `hubspot.fetch`: what a person sees
// and what the card sends for refresh, confirm, reject, clear and re-search; then its logic directly.
import { Alert, Button, Input, LoadingSpinner, Tag, Text, TextArea } from '@hubspot/ui-extensions';
import { describe, expect, it } from 'vitest';
import {
  createApiClient,
  type Job,
  pollJob,
} from '../../connectors/hubspot/app/src/app/cards/buyer-intel-api.ts';
import { formatConfidence } from '../../connectors/hubspot/app/src/app/cards/buyer-intel-format.ts';
import {
  cardReducer,
  initialCardState,
  toOutcome,
} from '../../connectors/hubspot/app/src/app/cards/buyer-intel-logic.ts';
import { outcomeTitle } from '../../connectors/hubspot/app/src/app/cards/card-actions.ts';
import {
  checkReason,
  checkResearch,
  offeredActions,
} from '../../connectors/hubspot/app/src/app/cards/review-checks.ts';
import {
  account,
  BASE,
  completedJob,
  fakeFetch,
  gate,
  poll,
  renderCard,
  typeInto,
} from '../helpers/hubspot-card.ts';

describe('HubSpot buyer intel card', () => {
  it('shows the matched buyer, confidence and status', async () => {
    const { fetch, calls } = fakeFetch({ account: () => account() });
    const { find, findByTestId, waitFor } = renderCard(fetch);
    expect(find(LoadingSpinner).props.label).toBe('Loading buyer intel');

    await waitFor(() => expect(findByTestId(Text, 'buyer').text).toBe('City of Springfield'));
    expect(findByTestId(Text, 'confidence').text).toBe('87%');
    expect(findByTestId(Tag, 'status').text).toBe('Enriched');
    expect(calls[0]?.url).toBe(`${BASE}/api/accounts/hubspot/901?tenant=4242`);
    expect(calls[0]?.method).toBe('GET');
  });

  it('lists candidates with a Confirm button when the match needs review, and confirms one', async () => {
    const review = account({
      status: 'needs_review',
      buyerId: null,
      buyerName: null,
      confidence: null,
      candidates: [
        { buyerId: 'b-7', name: 'Springfield County', stateCode: 'IL', type: 'county', score: 0.61 },
        { buyerId: 'b-8', name: 'Springfield Public Schools', stateCode: 'IL', type: 'school', score: 0.58 },
      ],
    });
    let current = review;
    const { fetch, calls } = fakeFetch({ account: () => current, jobs: [completedJob] });
    const { findByTestId, findAll, waitFor } = renderCard(fetch);

    await waitFor(() => expect(findByTestId(Tag, 'status').text).toBe('Needs review'));
    expect(findByTestId(Text, 'candidate-b-7').text).toBe('Springfield County (county, IL) · 61%');
    expect(findByTestId(Text, 'candidate-b-8').text).toContain('Springfield Public Schools');
    expect(findAll(Button, (n) => n.text === 'Confirm')).toHaveLength(2);

    current = account({ buyerId: 'b-7', buyerName: 'Springfield County', confidence: 1 });
    findByTestId(Button, 'confirm-b-7').trigger('onClick');

    await waitFor(() => expect(findByTestId(Text, 'buyer').text).toBe('Springfield County'));
    const confirm = calls.find((c) => c.url.endsWith('/confirm'));
    expect(confirm?.url).toBe(`${BASE}/api/accounts/hubspot/901/confirm`);
    expect(confirm?.body).toEqual({ tenant: '4242', buyerId: 'b-7' });
  });

  it('refresh posts /api/refresh, polls the job and shows the field diff and notes', async () => {
    const active: Job = { id: 'job-1', state: 'active', progress: 50 };
    const { fetch, calls } = fakeFetch({ account: () => account(), jobs: [active, active, completedJob] });
    const { findByTestId, find, waitFor } = renderCard(fetch);
    await waitFor(() => expect(findByTestId(Text, 'buyer').text).toBe('City of Springfield'));

    findByTestId(Button, 'refresh').trigger('onClick');
    await waitFor(() => expect(findByTestId(Text, 'note-rfp-123').text).toBe('RFP: Road resurfacing 2027'));

    const refresh = calls.find((c) => c.url === `${BASE}/api/refresh`);
    expect(refresh?.method).toBe('POST');
    expect(refresh?.body).toEqual({ crm: 'hubspot', tenant: '4242', accountId: '901' });
    expect(calls.filter((c) => c.url === `${BASE}/api/jobs/job-1`)).toHaveLength(3);

    const text = find(Text, (n) => (n.text ?? '').startsWith('Refresh complete')).text;
    expect(text).toBe('Refresh complete: fields updated');
    expect(findByTestId(Button, 'refresh').props.disabled).toBe(false);
  });

  it('shows the backend error message when refresh is refused', async () => {
    const { fetch } = fakeFetch({
      account: () => account(),
      refresh: { status: 429, body: { error: 'rate_limited', message: 'Slow down: one refresh per minute' } },
    });
    const { findByTestId, waitFor, getRootNode } = renderCard(fetch);
    await waitFor(() => expect(findByTestId(Text, 'buyer').text).toBe('City of Springfield'));
    findByTestId(Button, 'refresh').trigger('onClick');
    await waitFor(() => expect(getRootNode().toString()).toContain('Slow down: one refresh per minute'));
  });
});

describe('HubSpot buyer intel card: reject, clear and re-search', () => {
  it('rejects with a reason: shows the progress, sends once, then the company is a rejected no match with Clear', async () => {
    let current = account();
    const job = gate();
    const { fetch, posted } = fakeFetch({ account: () => current, jobs: [completedJob], gate: job.closed });
    const { findByTestId, maybeFindByTestId, find, waitFor } = renderCard(fetch);
    await waitFor(() => expect(findByTestId(Tag, 'status').text).toBe('Enriched'));
    // A wrong automatic match can be rejected too.
    expect(findByTestId(Button, 'reject').text).toBe('Not a public buyer…');
    expect(maybeFindByTestId(Button, 'clear')).toBeNull();

    findByTestId(Button, 'reject').trigger('onClick');
    findByTestId(Button, 'reject-submit').trigger('onClick');
    await waitFor(() =>
      expect(find(Alert, { title: 'Not rejected' }).text).toBe('Say why this company is not a public buyer.'),
    );
    expect(posted('reject')).toHaveLength(0);

    typeInto(findByTestId(TextArea, 'reject-reason'), '  A private company with a similar name ');
    findByTestId(Button, 'reject-submit').trigger('onClick');
    findByTestId(Button, 'reject-submit').trigger('onClick');
    await waitFor(() => expect(find(LoadingSpinner, { label: 'Rejecting…' })).toBeTruthy());
    expect(findByTestId(Button, 'reject-submit').props.disabled).toBe(true);
    expect(findByTestId(TextArea, 'reject-reason').props.readOnly).toBe(true);
    expect(posted('reject')).toHaveLength(1);
    expect(posted('reject')[0]?.url).toBe(`${BASE}/api/accounts/hubspot/901/reject`);
    expect(posted('reject')[0]?.body).toEqual({
      tenant: '4242',
      reason: 'A private company with a similar name',
    });

    current = account({
      status: 'no_match',
      pinned: true,
      buyerId: null,
      buyerName: null,
      confidence: null,
      explanation: 'Rejected by hubspot 4242 jane@example.com: A private company with a similar name',
    });
    job.open();
    await waitFor(() => expect(findByTestId(Tag, 'status').text).toBe('No match'));
    expect(findByTestId(Text, 'rejected-reason').text).toBe(
      'Rejected by hubspot 4242 jane@example.com: A private company with a similar name',
    );
    expect(maybeFindByTestId(Button, 'reject')).toBeNull();
    expect(maybeFindByTestId(TextArea, 'reject-reason')).toBeNull();
    expect(find(Text, (n) => (n.text ?? '').startsWith('Rejected:')).text).toBe('Rejected: fields updated');

    current = account();
    findByTestId(Button, 'clear').trigger('onClick');
    await waitFor(() => expect(findByTestId(Tag, 'status').text).toBe('Enriched'));
    expect(posted('clear')[0]?.body).toEqual({ tenant: '4242' });
    expect(maybeFindByTestId(Button, 'clear')).toBeNull();
    expect(findByTestId(Button, 'reject').props.disabled).toBe(false);
  });

  it('re-searches with an edited name (state prefilled) and then shows the new match', async () => {
    let current = account({
      status: 'needs_review',
      buyerId: null,
      buyerName: null,
      confidence: null,
      candidates: [
        { buyerId: 'b-8', name: 'Springfield Public Schools', stateCode: 'IL', type: 'school', score: 0.58 },
      ],
    });
    const job = gate();
    const { fetch, posted } = fakeFetch({ account: () => current, jobs: [completedJob], gate: job.closed });
    const { findByTestId, find, waitFor } = renderCard(fetch);
    await waitFor(() => expect(findByTestId(Tag, 'status').text).toBe('Needs review'));
    // A match that needs review can be rejected as well as confirmed.
    expect(findByTestId(Button, 'reject').props.disabled).toBe(false);

    findByTestId(Button, 'research').trigger('onClick');
    expect(findByTestId(Input, 'research-name').props.value).toBe('Springfield');
    expect(findByTestId(Input, 'research-state').props.value).toBe('IL');

    typeInto(findByTestId(Input, 'research-name'), '   ');
    findByTestId(Button, 'research-submit').trigger('onClick');
    await waitFor(() =>
      expect(find(Alert, { title: 'Not searched' }).text).toBe('Give the name to search for.'),
    );
    expect(posted('research')).toHaveLength(0);

    typeInto(findByTestId(Input, 'research-name'), 'Springfield County');
    findByTestId(Button, 'research-submit').trigger('onClick');
    await waitFor(() => expect(find(LoadingSpinner, { label: 'Searching again…' })).toBeTruthy());
    expect(findByTestId(Button, 'refresh').props.disabled).toBe(true);
    expect(posted('research')[0]?.body).toEqual({ tenant: '4242', name: 'Springfield County', state: 'IL' });

    current = account({
      buyerId: 'b-7',
      buyerName: 'Springfield County',
      confidence: 0.93,
      explanation: 'Re-searched by hubspot 4242 jane@example.com as "Springfield County" in IL: name match',
    });
    job.open();
    await waitFor(() => expect(findByTestId(Text, 'buyer').text).toBe('Springfield County'));
    expect(findByTestId(Tag, 'status').text).toBe('Enriched');
    expect(findByTestId(Text, 'confidence').text).toBe('93%');
    expect(find(Text, (n) => (n.text ?? '').startsWith('Search complete')).text).toBe(
      'Search complete: fields updated',
    );
  });

  it("keeps the form open with the service's message when it refuses", async () => {
    const { fetch } = fakeFetch({
      account: () => account(),
      refused: {
        research: {
          status: 400,
          body: { error: 'unknown_tenant', message: 'no hubspot connection for tenant 4242' },
        },
      },
    });
    const { findByTestId, waitFor, find } = renderCard(fetch);
    await waitFor(() => expect(findByTestId(Tag, 'status').text).toBe('Enriched'));
    findByTestId(Button, 'research').trigger('onClick');
    typeInto(findByTestId(Input, 'research-state'), 'Illinois');
    findByTestId(Button, 'research-submit').trigger('onClick');
    await waitFor(() =>
      expect(find(Alert, { title: 'Not searched' }).text).toBe('no hubspot connection for tenant 4242'),
    );
    expect(findByTestId(Input, 'research-state').props.value).toBe('Illinois');
    expect(findByTestId(Input, 'research-state').props.readOnly).toBe(false);
    expect(findByTestId(Button, 'research-submit').props.disabled).toBe(false);
  });
});

describe('card logic module', () => {
  it('turns a completed job into diff rows (old → new) and skips unchanged fields', () => {
    const outcome = toOutcome(completedJob);
    expect(outcome.rows).toEqual([
      { property: 'buyer_type', attribute: 'type', from: '—', to: 'city', action: 'set' },
      {
        property: 'buyer_population',
        attribute: 'population',
        from: '160000',
        to: '167000',
        action: 'update',
      },
    ]);
    expect(outcome.notes).toEqual([{ key: 'rfp-123', title: 'RFP: Road resurfacing 2027' }]);
  });

  it('reducer ignores a second refresh while one is running (double click)', () => {
    const ready = cardReducer(initialCardState, { type: 'loaded', account: account() });
    const refreshing = cardReducer(ready, { type: 'refresh_requested' });
    expect(refreshing.phase).toBe('refreshing');
    expect(cardReducer(refreshing, { type: 'refresh_requested' })).toBe(refreshing);
    expect(cardReducer(refreshing, { type: 'confirm_requested', buyerId: 'x' })).toBe(refreshing);
    const done = cardReducer(refreshing, { type: 'job_finished', job: completedJob, account: null });
    expect(done.phase).toBe('ready');
    expect(done.outcome?.rows).toHaveLength(2);
  });

  it('reducer: a reject or re-search asked again while one runs is ignored, and its form is frozen', () => {
    const ready = cardReducer(initialCardState, { type: 'loaded', account: account() });
    const opened = cardReducer(ready, { type: 'form_opened', kind: 'research' });
    expect(opened.form).toEqual({ kind: 'research', name: 'Springfield', state: 'IL', problem: null });
    const edited = cardReducer(opened, { type: 'form_edited', field: 'name', value: 'Springfield County' });
    const running = cardReducer(edited, { type: 'research_requested' });
    expect(running.phase).toBe('researching');
    expect(cardReducer(running, { type: 'research_requested' })).toBe(running);
    expect(cardReducer(running, { type: 'reject_requested' })).toBe(running);
    expect(cardReducer(running, { type: 'clear_requested' })).toBe(running);
    expect(cardReducer(running, { type: 'form_edited', field: 'name', value: 'x' })).toBe(running);
    expect(cardReducer(running, { type: 'form_closed' })).toBe(running);

    const refused = cardReducer(running, { type: 'failed', message: 'body name: too long' });
    expect(refused).toMatchObject({ phase: 'ready', action: null, error: null });
    expect(refused.form).toMatchObject({
      kind: 'research',
      name: 'Springfield County',
      problem: 'body name: too long',
    });

    const again = cardReducer(refused, { type: 'research_requested' });
    const done = cardReducer(again, { type: 'job_finished', job: completedJob, account: null });
    expect(done.form).toBeNull();
    expect(done.outcome && outcomeTitle(done.outcome)).toBe('Search complete: fields updated');
  });

  it('reducer: a refused refresh is shown above the card, not in an open form', () => {
    const ready = cardReducer(initialCardState, { type: 'loaded', account: account() });
    const opened = cardReducer(ready, { type: 'form_opened', kind: 'reject' });
    const refreshing = cardReducer(opened, { type: 'refresh_requested' });
    const failed = cardReducer(refreshing, { type: 'failed', message: 'Slow down' });
    expect(failed.error).toBe('Slow down');
    expect(failed.form).toEqual({ kind: 'reject', reason: '', problem: null });
  });

  it('offers Reject on every account not yet rejected, and Clear on a rejected one', () => {
    for (const status of ['enriched', 'needs_review', 'no_match', 'error', 'never'] as const)
      expect(offeredActions(account({ status }))).toEqual({ reject: true, clear: false, research: true });
    expect(offeredActions(account({ status: 'no_match', pinned: true }))).toEqual({
      reject: false,
      clear: true,
      research: true,
    });
  });

  it('checks a reason and a re-search before sending them', () => {
    expect(checkReason('  ')).toMatchObject({ ok: false });
    expect(checkReason('x'.repeat(501))).toMatchObject({
      ok: false,
      problem: expect.stringContaining('501'),
    });
    expect(checkReason('  private  ')).toEqual({ ok: true, value: 'private' });
    expect(checkResearch(' ', 'TX')).toEqual({ ok: false, problem: 'Give the name to search for.' });
    expect(checkResearch('Austin', 'x'.repeat(65))).toMatchObject({ ok: false });
    expect(checkResearch(' City of Austin ', ' ')).toEqual({ ok: true, value: { name: 'City of Austin' } });
    expect(checkResearch('City of Austin', ' TX ')).toEqual({
      ok: true,
      value: { name: 'City of Austin', state: 'TX' },
    });
  });

  it('reports a failed job with its reason', async () => {
    const failed: Job = { id: 'job-9', state: 'failed', failedReason: 'HubSpot 403: missing scope' };
    const { fetch } = fakeFetch({ account: () => account(), jobs: [failed] });
    const api = createApiClient({ baseUrl: BASE, fetch, tenant: '4242' });
    const job = await pollJob(api, 'job-9', poll);
    expect(toOutcome(job)).toMatchObject({ state: 'failed', failedReason: 'HubSpot 403: missing scope' });
  });

  it('gives up polling after maxPolls', async () => {
    const { fetch } = fakeFetch({ account: () => account(), jobs: [{ id: 'j', state: 'waiting' }] });
    const api = createApiClient({ baseUrl: BASE, fetch, tenant: '4242' });
    await expect(pollJob(api, 'j', { ...poll, maxPolls: 3 })).rejects.toMatchObject({ code: 'poll_timeout' });
  });

  it('formats confidence as a percentage', () => {
    expect(formatConfidence(0.874)).toBe('87%');
    expect(formatConfidence(92)).toBe('92%');
    expect(formatConfidence(null)).toBe('—');
  });
});
