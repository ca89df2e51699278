// The HubSpot card when things go wrong, in HubSpot's test renderer: the company cannot be read (no
// access, the service down, no answer at all) and "Try again" reads it again; an action refused or
// failed says why and leaves the card working; a refused form keeps what was typed; a job that failed
// or never ends says so. Also the progress of a confirm, which the happy path does not look at.
import { Alert, Button, LoadingSpinner, Tag, Text, TextArea } from '@hubspot/ui-extensions';
import { describe, expect, it } from 'vitest';
import type { Job } from '../../connectors/hubspot/app/src/app/cards/buyer-intel-api.ts';
import { account, completedJob, fakeFetch, gate, renderCard, typeInto } from '../helpers/hubspot-card.ts';

const needsReview = account({
  status: 'needs_review',
  buyerId: null,
  buyerName: null,
  confidence: null,
  candidates: [{ buyerId: 'b-7', name: 'Springfield County', stateCode: 'IL', type: 'county', score: 0.61 }],
});

describe('HubSpot card: the company cannot be read', () => {
  it.each([
    [
      'no access: the service’s 403 message',
      { status: 403, body: { error: 'forbidden', message: 'this caller may not act on hubspot 4242' } },
      'this caller may not act on hubspot 4242',
    ],
    [
      'a 401 with no message (the signature was refused by a proxy)',
      { status: 401, text: '<html>Unauthorized</html>' },
      "Buyer intel refused this request (HTTP 401): ask an admin to check the app's access.",
    ],
    [
      'the service down: a 502 page',
      { status: 502, text: '<html>Bad gateway</html>' },
      'The buyer intel service is unavailable (HTTP 502); try again in a minute.',
    ],
    [
      'the service’s own 503 message',
      {
        status: 503,
        body: { error: 'crm_unavailable', message: 'could not read the account from hubspot; try again' },
      },
      'could not read the account from hubspot; try again',
    ],
    [
      'no answer at all (hubspot.fetch rejects)',
      { failed: true } as const,
      'The buyer intel service did not answer; try again in a minute.',
    ],
  ])('%s: says so, offers no action, and "Try again" reads it again', async (_, refusal, message) => {
    let answer: ReturnType<Parameters<typeof fakeFetch>[0]['account']> = refusal;
    const { fetch, calls } = fakeFetch({ account: () => answer });
    const { find, findByTestId, maybeFindByTestId, waitFor } = renderCard(fetch);

    await waitFor(() => expect(find(Alert, { title: 'Buyer intel is unavailable' }).text).toBe(message));
    expect(maybeFindByTestId(Button, 'refresh')).toBeNull();
    expect(maybeFindByTestId(Button, 'undo')).toBeNull();

    answer = account();
    findByTestId(Button, 'reload').trigger('onClick');
    await waitFor(() => expect(findByTestId(Text, 'buyer').text).toBe('City of Springfield'));
    const reads = calls.filter((c) => c.url.endsWith('/api/accounts/hubspot/901?tenant=4242'));
    expect(reads).toHaveLength(2);
  });
});

describe('HubSpot card: an action refused or failed', () => {
  it.each([
    [
      'no answer',
      { failed: true } as const,
      'The buyer intel service did not answer; try again in a minute.',
    ],
    [
      'a 500 with no message',
      { status: 500, text: '' },
      'The buyer intel service is unavailable (HTTP 500); try again in a minute.',
    ],
    [
      'a 404 naming the problem',
      { status: 404, body: { error: 'account_not_found', message: 'no hubspot account 901' } },
      'no hubspot account 901',
    ],
  ])('a refresh with %s says why above the card, which still works', async (_, refusal, message) => {
    const { fetch } = fakeFetch({ account: () => account(), refresh: refusal });
    const { find, findByTestId, waitFor } = renderCard(fetch);
    await waitFor(() => expect(findByTestId(Text, 'buyer').text).toBe('City of Springfield'));

    findByTestId(Button, 'refresh').trigger('onClick');
    await waitFor(() => expect(find(Alert, { title: 'Something went wrong' }).text).toBe(message));
    expect(findByTestId(Text, 'buyer').text).toBe('City of Springfield');
    expect(findByTestId(Button, 'refresh').props.disabled).toBe(false);
    expect(findByTestId(Button, 'reject').props.disabled).toBe(false);
  });

  it('a confirm shows its progress, disables the candidates, and a 403 from the service is shown', async () => {
    const job = gate();
    const { fetch, posted } = fakeFetch({
      account: () => needsReview,
      jobs: [completedJob],
      gate: job.closed,
    });
    const first = renderCard(fetch);
    await first.waitFor(() => expect(first.findByTestId(Tag, 'status').text).toBe('Needs review'));
    first.findByTestId(Button, 'confirm-b-7').trigger('onClick');
    await first.waitFor(() =>
      expect(first.find(LoadingSpinner, { label: 'Confirming buyer…' })).toBeTruthy(),
    );
    expect(first.findByTestId(Button, 'confirm-b-7').props.disabled).toBe(true);
    expect(first.findByTestId(Button, 'refresh').props.disabled).toBe(true);
    expect(posted('confirm')).toHaveLength(1);
    job.open();

    const refused = fakeFetch({
      account: () => needsReview,
      refused: {
        confirm: {
          status: 403,
          body: { error: 'forbidden', message: 'this caller may not act on hubspot 4242' },
        },
      },
    });
    const second = renderCard(refused.fetch);
    await second.waitFor(() => expect(second.findByTestId(Tag, 'status').text).toBe('Needs review'));
    second.findByTestId(Button, 'confirm-b-7').trigger('onClick');
    await second.waitFor(() =>
      expect(second.find(Alert, { title: 'Something went wrong' }).text).toBe(
        'this caller may not act on hubspot 4242',
      ),
    );
    expect(second.findByTestId(Button, 'confirm-b-7').props.disabled).toBe(false);
  });

  it("a refused reject keeps the reason typed and shows the service's message in the form", async () => {
    const { fetch, posted } = fakeFetch({
      account: () => account(),
      refused: {
        reject: { status: 400, body: { error: 'invalid_request', message: 'body reason: too long' } },
      },
    });
    const { find, findByTestId, waitFor } = renderCard(fetch);
    await waitFor(() => expect(findByTestId(Tag, 'status').text).toBe('Enriched'));
    findByTestId(Button, 'reject').trigger('onClick');
    typeInto(findByTestId(TextArea, 'reject-reason'), 'A paving contractor');
    findByTestId(Button, 'reject-submit').trigger('onClick');

    await waitFor(() => expect(find(Alert, { title: 'Not rejected' }).text).toBe('body reason: too long'));
    expect(posted('reject')).toHaveLength(1);
    expect(findByTestId(TextArea, 'reject-reason').props.value).toBe('A paving contractor');
    expect(findByTestId(TextArea, 'reject-reason').props.readOnly).toBe(false);
    expect(findByTestId(Button, 'reject-submit').props.disabled).toBe(false);
  });

  it('a failed job says which action failed and why; without a reason, which action', async () => {
    const failed: Job = {
      id: 'job-1',
      state: 'failed',
      failedReason: 'HubSpot 403: missing scope crm.objects.companies.write',
    };
    const { fetch } = fakeFetch({ account: () => account(), jobs: [failed] });
    const { find, findByTestId, waitFor } = renderCard(fetch);
    await waitFor(() => expect(findByTestId(Text, 'buyer').text).toBe('City of Springfield'));
    findByTestId(Button, 'refresh').trigger('onClick');
    await waitFor(() =>
      expect(find(Alert, { title: 'Refresh failed' }).text).toBe(
        'HubSpot 403: missing scope crm.objects.companies.write',
      ),
    );

    const silent = fakeFetch({ account: () => account(), jobs: [{ id: 'job-1', state: 'failed' }] });
    const other = renderCard(silent.fetch);
    await other.waitFor(() => expect(other.findByTestId(Text, 'buyer').text).toBe('City of Springfield'));
    other.findByTestId(Button, 'reject').trigger('onClick');
    typeInto(other.findByTestId(TextArea, 'reject-reason'), 'private');
    other.findByTestId(Button, 'reject-submit').trigger('onClick');
    await other.waitFor(() =>
      expect(other.find(Alert, { title: 'Reject failed' }).text).toBe('Reject failed.'),
    );
  });

  it('a job that never ends stops being followed, says so, and frees the card', async () => {
    const waiting: Job = { id: 'job-1', state: 'waiting' };
    const { fetch, calls } = fakeFetch({ account: () => account(), jobs: [waiting] });
    const { find, findByTestId, waitFor } = renderCard(fetch);
    await waitFor(() => expect(findByTestId(Text, 'buyer').text).toBe('City of Springfield'));
    findByTestId(Button, 'refresh').trigger('onClick');
    await waitFor(() =>
      expect(find(Alert, { title: 'Something went wrong' }).text).toBe(
        'The job is still running; check back in a minute.',
      ),
    );
    expect(calls.filter((c) => c.url.includes('/api/jobs/'))).toHaveLength(40);
    expect(findByTestId(Button, 'refresh').props.disabled).toBe(false);
  });
});
