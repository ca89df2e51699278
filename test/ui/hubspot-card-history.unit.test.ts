// The card's "Last changes" in HubSpot's test renderer with a fake `hubspot.fetch`: read after the
// company (which never waits for it), a few changes at a time with "Show more" paging by `after`, read
// again when a job ends, and a failed read shown in the section alone; then its words and paging logic.
import { Alert, Button, LoadingButton, LoadingSpinner, Text } from '@hubspot/ui-extensions';
import { createRenderer } from '@hubspot/ui-extensions/testing';
import { createElement } from 'react';
import { describe, expect, it } from 'vitest';
import { BuyerIntelCard } from '../../connectors/hubspot/app/src/app/cards/BuyerIntelCard.tsx';
import type {
  AccountMatch,
  FetchLike,
  HistoryChange,
  HistoryField,
  HistoryPage,
  Job,
} from '../../connectors/hubspot/app/src/app/cards/buyer-intel-api.ts';
import {
  actorName,
  changeLines,
  fieldLabel,
  formatDateTime,
  runDescription,
} from '../../connectors/hubspot/app/src/app/cards/buyer-intel-format.ts';
import {
  appendPage,
  HISTORY_STEP,
  type HistoryState,
  historyReducer,
  initialHistoryState,
  pageWanted,
  visibleChanges,
} from '../../connectors/hubspot/app/src/app/cards/history-logic.ts';
import { account, patient } from '../helpers/hubspot-card.ts';

const BASE = 'https://buyer-intel.test';
const AT = '2026-11-20T10:00:00.000Z';

const match: AccountMatch = account({ lastEnrichedAt: AT });

function field(name: string, old: string | null, value: string | null, extra: Partial<HistoryField> = {}) {
  return {
    field: name,
    attribute: null,
    kind: name.startsWith('buyer_intel_') ? 'provenance' : 'mapped',
    old,
    new: value,
    decision: 'write',
    result: 'ok',
    error: null,
    at: AT,
    ...extra,
  } satisfies HistoryField;
}

function change(overrides: Partial<HistoryChange> = {}): HistoryChange {
  return {
    crm: 'hubspot',
    tenant: '4242',
    accountId: '901',
    at: AT,
    runId: '7',
    run: { kind: 'refresh', label: 'refresh hubspot 4242 901', actor: 'key:1a2b3c4d' },
    jobId: 'job-7',
    trigger: 'refresh',
    buyerId: 'b-1',
    fields: [field('buyer_intel_population', '160000', '167000')],
    notes: [],
    ...overrides,
  };
}

const confirmed = change({
  at: '2026-11-21T09:30:00.000Z',
  runId: '9',
  run: { kind: 'confirm', label: 'confirm hubspot 4242 901', actor: 'hubspot 4242 jane@example.com' },
  jobId: 'job-9',
  fields: [
    field('buyer_intel_buyer_name', null, 'City of Springfield'),
    field('buyer_intel_status', 'needs_review', 'enriched'),
    field('buyer_intel_last_enriched_at', null, AT),
  ],
  notes: [
    { action: 'created', noteId: 'n-1', dedupeKey: 'rfp-1', title: 'RFP: Road resurfacing 2027', at: AT },
  ],
});
const backfilled = change({
  runId: '3',
  run: { kind: 'backfill', label: 'backfill of 2002 accounts (HubSpot 4242)', actor: 'cli (ops)' },
  jobId: 'job-3',
  trigger: 'backfill',
  fields: [
    field('buyer_intel_population', '160000', '167000'),
    field('buyer_intel_employee_fte', '1200', '1350', {
      decision: 'blocked-edited-by-person',
      result: 'not_sent',
    }),
  ],
});

interface Call {
  url: string;
  method: string;
}

/** A fake `hubspot.fetch`: the company, its history (per `after`), one refresh job; records each call. */
function fakeFetch(options: {
  history: (after: string | null) => { status: number; body: unknown };
  /** History reads wait for this (to look at the card before the section has its answer). */
  gate?: Promise<void>;
}) {
  const calls: Call[] = [];
  const fetch: FetchLike = async (url, init) => {
    const method = init?.method ?? 'GET';
    calls.push({ url, method });
    const parsed = new URL(url);
    const reply = (status: number, body: unknown) => ({
      ok: status >= 200 && status < 300,
      status,
      json: async () => body,
    });
    if (parsed.pathname.endsWith('/history')) {
      await options.gate;
      const answer = options.history(parsed.searchParams.get('after'));
      return reply(answer.status, answer.body);
    }
    if (parsed.pathname.startsWith('/api/accounts/')) return reply(200, match);
    if (parsed.pathname === '/api/refresh') return reply(202, { jobId: 'job-1' });
    if (parsed.pathname.startsWith('/api/jobs/'))
      return reply(200, {
        id: 'job-1',
        state: 'completed',
        result: { status: 'enriched', fields: [], notes: { created: [] } },
      } satisfies Job);
    return reply(404, { error: 'not_found', message: url });
  };
  const historyCalls = () => calls.filter((c) => new URL(c.url).pathname.endsWith('/history'));
  return { fetch, calls, historyCalls };
}

const ok = (page: HistoryPage) => ({ status: 200, body: page });

function renderCard(fetch: FetchLike) {
  const renderer = createRenderer('crm.record.tab');
  renderer.render(
    createElement(BuyerIntelCard, {
      context: { portal: { id: 4242 }, crm: { objectId: 901 } },
      fetch,
      baseUrl: BASE,
      poll: { intervalMs: 0, sleep: async () => {} },
    }),
  );
  return patient(renderer);
}

function gate() {
  let open = () => {};
  const closed = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { closed, open };
}

describe('HubSpot card: last changes', () => {
  it('reads the history after the company, and shows when, which run and what changed', async () => {
    const history = gate();
    const { fetch, calls } = fakeFetch({
      history: () => ok({ changes: [confirmed, backfilled], next: null }),
      gate: history.closed,
    });
    const { findByTestId, find, maybeFind, waitFor } = renderCard(fetch);

    // The company shows while its history is still on its way.
    await waitFor(() => expect(findByTestId(Text, 'buyer').text).toBe('City of Springfield'));
    expect(find(LoadingSpinner, { label: 'Loading last changes' })).toBeTruthy();
    await waitFor(() =>
      expect(calls.map((c) => c.url)).toEqual([
        `${BASE}/api/accounts/hubspot/901?tenant=4242`,
        `${BASE}/api/accounts/hubspot/901/history?tenant=4242&limit=100`,
      ]),
    );
    expect(find(LoadingSpinner, { label: 'Loading last changes' })).toBeTruthy();

    history.open();
    await waitFor(() => expect(findByTestId(Text, 'history-0-by')).toBeTruthy());
    expect(maybeFind(LoadingSpinner, { label: 'Loading last changes' })).toBeNull();
    expect(findByTestId(Text, 'history-0-by').text).toBe(
      `${formatDateTime('2026-11-21T09:30:00.000Z')} · confirmed by jane@example.com`,
    );
    // The match's own fields read as such; the timestamp that moves on every run is left out.
    expect(findByTestId(Text, 'history-0-line-0').text).toBe('Buyer: — → City of Springfield');
    expect(findByTestId(Text, 'history-0-line-1').text).toBe('Status: Needs review → Enriched');
    expect(findByTestId(Text, 'history-0-line-2').text).toBe('Note added: RFP: Road resurfacing 2027');
    expect(findByTestId(Text, 'history-1-by').text).toBe(
      `${formatDateTime(AT)} · backfill of 2,002 accounts`,
    );
    // A person's value comes first: that is what they look for.
    expect(findByTestId(Text, 'history-1-line-0').text).toBe('Employee FTE: kept your value (1200)');
    expect(findByTestId(Text, 'history-1-line-1').text).toBe('Population: 160000 → 167000');
  });

  it('shows five changes, and "Show more" pages with `after`, joining a change cut by the page', async () => {
    const older = (n: number) =>
      change({ runId: String(n), jobId: `job-${n}`, fields: [field('buyer_intel_county', null, `C${n}`)] });
    // The seventh change continues on the next page (same job): it is held back until that page is read.
    const cut = change({
      runId: '30',
      jobId: 'job-30',
      fields: [field('buyer_intel_county', null, 'Sangamon')],
    });
    const rest = { ...cut, notes: [{ noteId: 'n-30', dedupeKey: 'k', title: 'Signal', at: AT }], fields: [] };
    const { fetch, historyCalls } = fakeFetch({
      history: (after) =>
        after === null
          ? ok({ changes: [1, 2, 3, 4, 5, 6].map(older).concat(cut), next: '41' })
          : ok({ changes: [rest, older(31)], next: null }),
    });
    const { findByTestId, maybeFindByTestId, waitFor } = renderCard(fetch);
    await waitFor(() => expect(findByTestId(Text, 'history-4-by')).toBeTruthy());
    expect(maybeFindByTestId(Text, 'history-5-by')).toBeNull();
    expect(historyCalls()).toHaveLength(1);

    findByTestId(LoadingButton, 'history-more').trigger('onClick');
    await waitFor(() => expect(findByTestId(Text, 'history-7-by')).toBeTruthy());
    expect(historyCalls().map((c) => new URL(c.url).searchParams.get('after'))).toEqual([null, '41']);
    expect(findByTestId(Text, 'history-6-line-0').text).toBe('Note added: Signal');
    expect(findByTestId(Text, 'history-6-line-1').text).toBe('County: — → Sangamon');
    expect(findByTestId(Text, 'history-7-line-0').text).toBe('County: — → C31');
    // Everything is shown: no button promises more.
    expect(maybeFindByTestId(LoadingButton, 'history-more')).toBeNull();
  });

  it('reads the history again when a job ends', async () => {
    let pages: HistoryPage[] = [{ changes: [], next: null }];
    const { fetch, historyCalls } = fakeFetch({ history: () => ok(pages[0] as HistoryPage) });
    const { findByTestId, waitFor } = renderCard(fetch);
    await waitFor(() =>
      expect(findByTestId(Text, 'history-empty').text).toBe('Buyer intel has not changed this company yet.'),
    );

    pages = [{ changes: [change()], next: null }];
    findByTestId(Button, 'refresh').trigger('onClick');
    await waitFor(() =>
      expect(findByTestId(Text, 'history-0-line-0').text).toBe('Population: 160000 → 167000'),
    );
    expect(findByTestId(Text, 'history-0-by').text).toBe(`${formatDateTime(AT)} · refresh by an API key`);
    expect(historyCalls()).toHaveLength(2);
  });

  it('a failed read says so in the section, the rest of the card works, and "Try again" reads again', async () => {
    let down = true;
    const { fetch } = fakeFetch({
      history: () =>
        down
          ? {
              status: 503,
              body: { error: 'store_unavailable', message: 'could not read the history; try again' },
            }
          : ok({ changes: [change()], next: null }),
    });
    const { findByTestId, find, maybeFind, waitFor } = renderCard(fetch);
    await waitFor(() =>
      expect(find(Alert, { title: 'Last changes are unavailable' }).text).toBe(
        'could not read the history; try again',
      ),
    );
    expect(findByTestId(Text, 'buyer').text).toBe('City of Springfield');
    expect(findByTestId(Button, 'refresh').props.disabled).toBe(false);

    down = false;
    findByTestId(Button, 'history-retry').trigger('onClick');
    await waitFor(() =>
      expect(findByTestId(Text, 'history-0-line-0').text).toBe('Population: 160000 → 167000'),
    );
    expect(maybeFind(Alert, { title: 'Last changes are unavailable' })).toBeNull();
  });

  it('a history the card cannot read is an error in the section, not a broken card', async () => {
    const { fetch } = fakeFetch({ history: () => ok({ nothing: 'here' } as unknown as HistoryPage) });
    const { find, findByTestId, waitFor } = renderCard(fetch);
    await waitFor(() =>
      expect(find(Alert, { title: 'Last changes are unavailable' }).text).toContain('cannot read'),
    );
    expect(findByTestId(Text, 'buyer').text).toBe('City of Springfield');
  });
});

describe('last changes: words', () => {
  it('names fields in words, provenance by its role', () => {
    expect(fieldLabel('buyer_intel_parent_buyer_id')).toBe('Parent buyer ID');
    expect(fieldLabel('buyer_intel_url')).toBe('URL');
    expect(fieldLabel('buyer_intel_status')).toBe('Status');
    expect(fieldLabel('BuyerIntel_TotalEnrollment__c')).toBe('Total enrollment');
    expect(fieldLabel('annual_budget')).toBe('Annual budget');
  });

  it('says which run made a change, and who when a person did', () => {
    const where = { crm: 'hubspot', tenant: '4242', trigger: null };
    const run = (kind: string, label: string, actor: string | null = null) =>
      runDescription({ ...where, run: { kind, label, actor } });
    expect(run('backfill', 'backfill of 2002 accounts (HubSpot 4242, type=city)')).toBe(
      'backfill of 2,002 accounts',
    );
    expect(run('backfill', 'backfill of 1 account (HubSpot 4242)')).toBe('backfill of 1 account');
    expect(run('backfill', 'backfill of every account (HubSpot 4242)')).toBe('backfill of every account');
    expect(run('refresh', 'refresh hubspot 4242 901')).toBe('refresh');
    expect(run('confirm', 'confirm hubspot 4242 901', 'hubspot 4242 user 8')).toBe('confirmed by user 8');
    expect(run('confirm', 'confirm hubspot 4242 901')).toBe('confirmed by a person');
    expect(run('review', 'reject hubspot 4242 901', 'hubspot 4242 jane@example.com')).toBe(
      'rejected by jane@example.com',
    );
    expect(run('review', 'approve the top candidate of 12 accounts', 'cli (ops)')).toBe(
      'approved by ops (command line)',
    );
    expect(run('reenrich', 'scheduled re-enrichment 4')).toBe('scheduled re-enrichment');
    expect(run('webhook', 'HubSpot webhook: 1 event')).toBe('after a record change');
    expect(run('undo', 'undo run 3', 'admin')).toBe('undo by admin');
    expect(runDescription({ ...where, run: null, trigger: 'signal' })).toBe('real-time signal');
    // An API key is named as one, never by its fingerprint; a Salesforce user carries no tenant.
    expect(actorName('key:1a2b3c4d', where)).toBe('an API key');
    expect(actorName('salesforce jane@acme.example', { crm: 'salesforce', tenant: '00D1' })).toBe(
      'jane@acme.example',
    );
  });

  it("lists a refused write, a kept value, the match, a note, then the buyer's data, at most six lines", () => {
    expect(
      changeLines({
        fields: [
          field('buyer_intel_county', 'Travis', 'Travis'),
          field('buyer_intel_type', null, 'city'),
          field('buyer_intel_lms', 'Canvas', 'Moodle', { decision: 'blocked-not-empty', result: 'not_sent' }),
          field('buyer_intel_url', null, 'https://x.example', { result: 'error', error: '400: INVALID_URL' }),
          field('buyer_intel_match_confidence', '0.8', '0.9'),
        ],
        notes: [{ action: 'removed', noteId: 'n', dedupeKey: 'k', title: null, at: AT }],
      }),
    ).toEqual([
      'URL: not saved (400: INVALID_URL)',
      'LMS: kept the value already there (Canvas)',
      'Note removed: untitled',
      'Type: — → city',
    ]);
    const many = Array.from({ length: 9 }, (_, i) => field(`buyer_intel_f${i}`, null, `v${i}`));
    const lines = changeLines({ fields: many, notes: [] });
    expect(lines).toHaveLength(6);
    expect(lines.at(-1)).toBe('…and 4 more');
    // Only the match's bookkeeping moved: said in one line.
    expect(changeLines({ fields: [field('buyer_intel_last_enriched_at', null, AT)], notes: [] })).toEqual([
      'Match details updated',
    ]);
    expect(changeLines({ fields: [field('buyer_intel_type', null, 'x'.repeat(80))], notes: [] })[0]).toBe(
      `Type: — → ${'x'.repeat(59)}…`,
    );
  });
});

describe('last changes: paging', () => {
  const page = (changes: HistoryChange[], next: string | null) => ({ changes, next });
  const loaded = (changes: HistoryChange[], next: string | null): HistoryState => {
    const reloading = historyReducer(initialHistoryState, { type: 'reload' });
    return historyReducer(reloading, { type: 'page', request: 1, after: null, page: page(changes, next) });
  };

  it('holds back the last change while an older page may continue it, and asks for that page', () => {
    const changes = [1, 2, 3].map((n) => change({ jobId: `job-${n}` }));
    const state = loaded(changes, '17');
    expect(visibleChanges(state).map((c) => c.jobId)).toEqual(['job-1', 'job-2']);
    expect(pageWanted(state)).toBe('17');
    const fetching = historyReducer(state, { type: 'fetching', after: '17' });
    expect(pageWanted(fetching)).toBeNull();
    const done = historyReducer(fetching, {
      type: 'page',
      request: 1,
      after: '17',
      page: page([change({ jobId: 'job-3', fields: [field('buyer_intel_type', null, 'city')] })], null),
    });
    expect(done.changes.map((c) => [c.jobId, c.fields.length])).toEqual([
      ['job-1', 1],
      ['job-2', 1],
      ['job-3', 2],
    ]);
    expect(pageWanted(done)).toBeNull();
    expect(done.shown).toBe(HISTORY_STEP);
  });

  it('drops an answer to a read a reload replaced, or to a page already read', () => {
    const state = loaded([change()], '17');
    const again = historyReducer(state, { type: 'reload' });
    const stale = { type: 'page', request: 1, after: null, page: page([], null) } as const;
    expect(historyReducer(again, stale)).toBe(again);
    expect(historyReducer(again, { type: 'failed', request: 1, after: null, message: 'x' })).toBe(again);
    // A reload keeps what it shows until the new page is there, then starts again from five.
    expect(visibleChanges(again)).toHaveLength(0);
    expect(again.changes).toHaveLength(1);
    const repeated = { type: 'page', request: 1, after: '17', page: page([], null) } as const;
    expect(historyReducer(state, repeated)).toBe(state);
  });

  it('joins only a change of the same job', () => {
    const a = change({ jobId: 'job-1' });
    const b = change({ jobId: 'job-2' });
    expect(appendPage([a], [b])).toEqual([a, b]);
    expect(appendPage([a], [{ ...a, fields: [] }])).toEqual([a]);
    expect(appendPage([], [b])).toEqual([b]);
  });
});
