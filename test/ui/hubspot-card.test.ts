import { Button, LoadingSpinner, Tag, Text } from '@hubspot/ui-extensions';
import { createRenderer } from '@hubspot/ui-extensions/testing';
import { createElement } from 'react';
import { describe, expect, it } from 'vitest';
import { BuyerIntelCard } from '../../connectors/hubspot/app/src/app/cards/BuyerIntelCard.tsx';
import {
  type AccountMatch,
  cardReducer,
  createApiClient,
  type FetchLike,
  formatConfidence,
  initialCardState,
  type Job,
  pollJob,
  toOutcome,
} from '../../connectors/hubspot/app/src/app/cards/buyer-intel-logic.ts';

const BASE = 'https://buyer-intel.test';

function account(overrides: Partial<AccountMatch> = {}): AccountMatch {
  return {
    crm: 'hubspot',
    tenant: '4242',
    accountId: '901',
    status: 'enriched',
    buyerId: 'b-1',
    buyerName: 'City of Springfield',
    confidence: 0.87,
    explanation: 'Domain and city match',
    lastEnrichedAt: '2026-11-20T10:00:00Z',
    candidates: [],
    ...overrides,
  };
}

const completedJob: Job = {
  id: 'job-1',
  state: 'completed',
  progress: 100,
  result: {
    status: 'enriched',
    match: { buyerId: 'b-1' },
    fields: [
      { property: 'buyer_type', attribute: 'type', from: null, to: 'city', action: 'set' },
      { property: 'buyer_population', attribute: 'population', from: 160000, to: 167000, action: 'update' },
      { property: 'buyer_state', attribute: 'stateCode', from: 'IL', to: 'IL', action: 'unchanged' },
    ],
    notes: { created: [{ key: 'rfp-123', title: 'RFP: Road resurfacing 2027' }] },
  },
};

interface Call {
  url: string;
  method: string;
  body: Record<string, unknown> | undefined;
}

/** A fake `hubspot.fetch`: routes on method + path, records every call. */
function fakeFetch(routes: {
  account: () => AccountMatch;
  jobs?: Job[];
  refresh?: { status: number; body: unknown };
}) {
  const calls: Call[] = [];
  const jobs = [...(routes.jobs ?? [])];
  const fetch: FetchLike = async (url, options) => {
    const method = options?.method ?? 'GET';
    calls.push({ url, method, body: options?.body });
    const path = new URL(url).pathname;
    const reply = (status: number, body: unknown) => ({
      ok: status >= 200 && status < 300,
      status,
      json: async () => body,
    });
    if (method === 'GET' && path.startsWith('/api/accounts/')) return reply(200, routes.account());
    if (method === 'POST' && path === '/api/refresh') {
      return routes.refresh
        ? reply(routes.refresh.status, routes.refresh.body)
        : reply(202, { jobId: 'job-1', state: 'waiting' });
    }
    if (method === 'POST' && path.endsWith('/confirm')) return reply(202, { jobId: 'job-1' });
    if (method === 'GET' && path.startsWith('/api/jobs/')) {
      const next = jobs.length > 1 ? jobs.shift() : jobs[0];
      return next ? reply(200, next) : reply(404, { error: 'not_found', message: 'no such job' });
    }
    return reply(404, { error: 'not_found', message: `${method} ${path}` });
  };
  return { fetch, calls };
}

const context = { portal: { id: 4242 }, crm: { objectId: 901 } };
const poll = { intervalMs: 0, sleep: async () => {} };

function renderCard(fetch: FetchLike) {
  const renderer = createRenderer('crm.record.tab');
  renderer.render(createElement(BuyerIntelCard, { context, fetch, baseUrl: BASE, poll }));
  return renderer;
}

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
