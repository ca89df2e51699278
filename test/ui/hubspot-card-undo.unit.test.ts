// "Undo last change" in HubSpot's test renderer with a fake `hubspot.fetch`: the dry run's plan in the
// words the history will use, Undo sent once with its progress, the run followed to its end, then the
// company and its history read again; nothing to undo; the service refusing the plan or the undo (the
// plan stays, Undo can be asked again); an undo that never ends. Then the panel's logic directly.
import { Alert, Button, LoadingSpinner, Tag, Text } from '@hubspot/ui-extensions';
import { describe, expect, it } from 'vitest';
import { createApiClient } from '../../connectors/hubspot/app/src/app/cards/buyer-intel-api.ts';
import {
  cardReducer,
  initialCardState,
} from '../../connectors/hubspot/app/src/app/cards/buyer-intel-logic.ts';
import type { UndoPlan, UndoRun } from '../../connectors/hubspot/app/src/app/cards/undo-api.ts';
import {
  planHasWork,
  planLines,
  planSummary,
  undoneSummary,
} from '../../connectors/hubspot/app/src/app/cards/undo-logic.ts';
import { account, BASE, fakeFetch, gate, renderCard } from '../helpers/hubspot-card.ts';

const WHAT = "hubspot account 901's last change (refresh run 12)";

function plan(
  overrides: Partial<UndoPlan['totals']> = {},
  fields?: UndoPlan['accounts'][0]['fields'],
): UndoPlan {
  const planned = fields ?? [
    {
      field: 'buyer_intel_status',
      kind: 'provenance',
      now: 'enriched',
      wrote: 'enriched',
      before: null,
      action: 'restore',
    },
    {
      field: 'buyer_intel_population',
      kind: 'mapped',
      now: '1000001',
      wrote: '167000',
      before: null,
      action: 'skip',
    },
    {
      field: 'buyer_intel_buyer_type',
      kind: 'mapped',
      now: 'City',
      wrote: 'City',
      before: 'County',
      action: 'restore',
    },
    {
      field: 'buyer_intel_state_code',
      kind: 'mapped',
      now: 'IL',
      wrote: 'IL',
      before: 'IL',
      action: 'unchanged',
    },
  ];
  return {
    dryRun: true,
    what: WHAT,
    remarks: [],
    totals: {
      restore: 2,
      skip: 1,
      unchanged: 1,
      accounts: 1,
      notes: 1,
      notesRemovedBefore: 0,
      gone: 0,
      ...overrides,
    },
    accounts: [
      {
        crm: 'hubspot',
        tenant: '4242',
        accountId: '901',
        buyerId: 'b-1',
        gone: false,
        fields: planned,
        notes: fields ? [] : [{ noteId: 'n-1', dedupeKey: 'rfp-1', title: 'RFP: Road resurfacing 2027' }],
        notesRemovedBefore: 0,
      },
    ],
  };
}

/** The rep opens "Undo last change…" on an enriched company and confirms the plan it shows. */
async function confirmUndo({ findByTestId, waitFor }: ReturnType<typeof renderCard>) {
  await waitFor(() => expect(findByTestId(Tag, 'status').text).toBe('Enriched'));
  findByTestId(Button, 'undo').trigger('onClick');
  await waitFor(() => expect(findByTestId(Button, 'undo-submit').props.disabled).toBe(false));
  findByTestId(Button, 'undo-submit').trigger('onClick');
}

const run = (finishedAt: string | null): UndoRun => ({
  id: '77',
  kind: 'undo',
  label: `undo of ${WHAT}`,
  finishedAt,
  counts: {
    accounts: 1,
    restored: 2,
    skipped: 1,
    unchanged: 1,
    notesRemoved: 1,
    notesGone: 0,
    failed: 0,
    gone: 0,
  },
});

const undone = account({
  status: 'never',
  buyerId: null,
  buyerName: null,
  confidence: null,
  explanation: null,
  lastEnrichedAt: null,
});

describe('HubSpot card: undo last change', () => {
  it('previews the plan, undoes on confirm with its progress, follows the run, then reads the company and its history again', async () => {
    let current = account();
    const held = gate();
    const { fetch, calls, undoCalls, historyReads } = fakeFetch({
      account: () => current,
      undoPlan: () => plan(),
      runs: [run(null), run(null), run('2026-11-21T10:00:00Z')],
      undoGate: held.closed,
    });
    const { find, findByTestId, maybeFindByTestId, waitFor } = renderCard(fetch);
    await waitFor(() => expect(findByTestId(Tag, 'status').text).toBe('Enriched'));
    await waitFor(() => expect(historyReads()).toBe(1));

    findByTestId(Button, 'undo').trigger('onClick');
    await waitFor(() =>
      expect(find(LoadingSpinner, { label: 'Checking what an undo would change…' })).toBeTruthy(),
    );
    expect(findByTestId(Button, 'refresh').props.disabled).toBe(true);
    expect(undoCalls()).toEqual([
      {
        url: `${BASE}/api/undo`,
        method: 'POST',
        body: { account: { crm: 'hubspot', accountId: '901', tenant: '4242' }, dryRun: true },
      },
    ]);
    held.open();

    await waitFor(() => expect(findByTestId(Text, 'undo-what').text).toBe(WHAT));
    expect(findByTestId(Text, 'undo-summary').text).toBe(
      'Puts back 2 values, keeps 1 value a person changed since, removes 1 note.',
    );
    expect([0, 1, 2, 3].map((i) => maybeFindByTestId(Text, `undo-line-${i}`)?.text ?? null)).toEqual([
      'Population: kept your value (1000001)',
      'Status: Enriched → —',
      'Note removed: RFP: Road resurfacing 2027',
      'Buyer type: City → County',
    ]);
    // Nothing is written until the person confirms; the rest of the card is free meanwhile.
    expect(undoCalls()).toHaveLength(1);
    expect(findByTestId(Button, 'refresh').props.disabled).toBe(false);

    current = undone;
    findByTestId(Button, 'undo-submit').trigger('onClick');
    findByTestId(Button, 'undo-submit').trigger('onClick');
    await waitFor(() =>
      expect(findByTestId(Text, 'undo-done').text).toBe(
        'Undone: 2 values put back, 1 value kept (a person changed it), 1 note removed.',
      ),
    );
    expect(undoCalls()).toHaveLength(2);
    expect(undoCalls()[1]?.body).toEqual({
      account: { crm: 'hubspot', accountId: '901', tenant: '4242' },
      dryRun: false,
    });
    expect(calls.filter((c) => c.url === `${BASE}/api/runs/77?limit=1`)).toHaveLength(3);
    expect(findByTestId(Tag, 'status').text).toBe('Not enriched yet');
    await waitFor(() => expect(historyReads()).toBe(2));

    findByTestId(Button, 'undo-close').trigger('onClick');
    await waitFor(() => expect(maybeFindByTestId(Text, 'undo-done')).toBeNull());
  });

  it('shows "Undoing…" while the run goes on, with every action of the card disabled', async () => {
    const held = gate();
    const { fetch } = fakeFetch({
      account: () => account(),
      undoPlan: () => plan(),
      runs: [run('2026-11-21T10:00:00Z')],
    });
    // The undo's own request waits: the card is looked at while it runs.
    const slow: typeof fetch = async (url, options) => {
      if (options?.body?.dryRun === false) await held.closed;
      return fetch(url, options);
    };
    const card = renderCard(slow);
    const { find, findByTestId, waitFor } = card;
    await confirmUndo(card);
    await waitFor(() => expect(find(LoadingSpinner, { label: 'Undoing…' })).toBeTruthy());
    for (const id of ['refresh', 'reject', 'research', 'undo'])
      expect([id, findByTestId(Button, id).props.disabled]).toEqual([id, true]);
    expect(findByTestId(Button, 'undo-submit').props.disabled).toBe(true);
    expect(findByTestId(Button, 'undo-close').props.disabled).toBe(true);
    held.open();
    await waitFor(() => expect(findByTestId(Text, 'undo-done')).toBeTruthy());
    expect(findByTestId(Button, 'refresh').props.disabled).toBe(false);
  });

  it('a plan with nothing to put back says so and offers no Undo', async () => {
    const nothing = plan({ restore: 0, skip: 1, notes: 0 }, [
      {
        field: 'buyer_intel_population',
        kind: 'mapped',
        now: '1000001',
        wrote: '167000',
        before: null,
        action: 'skip',
      },
    ]);
    const { fetch, undoCalls } = fakeFetch({ account: () => account(), undoPlan: () => nothing });
    const { findByTestId, maybeFindByTestId, waitFor } = renderCard(fetch);
    await waitFor(() => expect(findByTestId(Tag, 'status').text).toBe('Enriched'));
    findByTestId(Button, 'undo').trigger('onClick');

    await waitFor(() =>
      expect(findByTestId(Text, 'undo-summary').text).toBe(
        'Nothing to undo: a person changed 1 value since, and those are kept.',
      ),
    );
    expect(maybeFindByTestId(Button, 'undo-submit')).toBeNull();
    expect(findByTestId(Button, 'undo-close').text).toBe('Close');
    expect(undoCalls()).toHaveLength(1);
  });

  it("shows the service's refusal of the plan (nothing recorded) and closes", async () => {
    const { fetch } = fakeFetch({
      account: () => account({ status: 'never' }),
      undoPlan: () => ({
        status: 404,
        body: { error: 'not_found', message: 'nothing recorded for hubspot account 901 in 4242' },
      }),
    });
    const { find, findByTestId, maybeFind, maybeFindByTestId, waitFor } = renderCard(fetch);
    await waitFor(() => expect(findByTestId(Tag, 'status').text).toBe('Not enriched yet'));
    findByTestId(Button, 'undo').trigger('onClick');
    await waitFor(() =>
      expect(find(Alert, { title: 'Not undone' }).text).toBe(
        'nothing recorded for hubspot account 901 in 4242',
      ),
    );
    expect(maybeFindByTestId(Button, 'undo-submit')).toBeNull();
    findByTestId(Button, 'undo-close').trigger('onClick');
    await waitFor(() => expect(maybeFind(Alert, { title: 'Not undone' })).toBeNull());
  });

  it('a refused undo keeps the plan and its message, and Undo can be asked again', async () => {
    let answer: { status: number; body: unknown } = {
      status: 503,
      body: { error: 'queue_unavailable', message: 'undo needs the work queue; try again' },
    };
    const { fetch, undoCalls } = fakeFetch({
      account: () => account(),
      undoPlan: () => plan(),
      undo: () => answer,
      runs: [run('2026-11-21T10:00:00Z')],
    });
    const card = renderCard(fetch);
    const { find, findByTestId, waitFor } = card;
    await confirmUndo(card);

    await waitFor(() =>
      expect(find(Alert, { title: 'Not undone' }).text).toBe('undo needs the work queue; try again'),
    );
    expect(findByTestId(Text, 'undo-what').text).toBe(WHAT);
    expect(findByTestId(Button, 'undo-submit').props.disabled).toBe(false);

    answer = {
      status: 202,
      body: { runId: '77', jobId: 'undo-77', resumed: false, what: WHAT, remarks: [] },
    };
    findByTestId(Button, 'undo-submit').trigger('onClick');
    await waitFor(() => expect(findByTestId(Text, 'undo-done')).toBeTruthy());
    expect(undoCalls().map((c) => c.body?.dryRun)).toEqual([true, false, false]);
  });

  it('an undo whose run does not end in time says it is still running', async () => {
    const { fetch } = fakeFetch({ account: () => account(), undoPlan: () => plan(), runs: [run(null)] });
    const card = renderCard(fetch);
    const { find, findByTestId, waitFor } = card;
    await confirmUndo(card);
    await waitFor(() =>
      expect(find(Alert, { title: 'Not undone' }).text).toBe(
        'The undo is still running; check back in a minute.',
      ),
    );
    expect(findByTestId(Button, 'refresh').props.disabled).toBe(false);
  });
});

describe('undo: logic and words', () => {
  const ready = cardReducer(initialCardState, { type: 'loaded', account: account() });

  it('opens only on an idle card, confirms only a plan, and closes only when nothing runs', () => {
    const refreshing = cardReducer(ready, { type: 'refresh_requested' });
    expect(cardReducer(refreshing, { type: 'undo_opened' })).toBe(refreshing);
    const checking = cardReducer(ready, { type: 'undo_opened' });
    expect(checking).toMatchObject({ action: 'undo', undo: { stage: 'checking' } });
    expect(cardReducer(checking, { type: 'undo_confirmed' })).toBe(checking);
    expect(cardReducer(checking, { type: 'undo_closed' })).toBe(checking);
    expect(cardReducer(checking, { type: 'refresh_requested' })).toBe(checking);

    const shown = cardReducer(checking, { type: 'undo_planned', plan: plan() });
    expect(shown).toMatchObject({ action: null, undo: { stage: 'plan' } });
    const undoing = cardReducer(shown, { type: 'undo_confirmed' });
    expect(undoing).toMatchObject({ action: 'undo', undo: { stage: 'undoing', runId: null } });
    expect(cardReducer(undoing, { type: 'undo_confirmed' })).toBe(undoing);
    const done = cardReducer(undoing, { type: 'undo_finished', run: run('x'), account: null });
    expect(done).toMatchObject({ action: null, undo: { stage: 'done' }, jobsFinished: 1 });
    expect(cardReducer(done, { type: 'undo_closed' }).undo).toBeNull();
  });

  it('one panel at a time: an undo closes an open form, a form or another action closes the plan', () => {
    const form = cardReducer(ready, { type: 'form_opened', kind: 'reject' });
    expect(cardReducer(form, { type: 'undo_opened' }).form).toBeNull();
    const shown = cardReducer(cardReducer(ready, { type: 'undo_opened' }), {
      type: 'undo_planned',
      plan: plan(),
    });
    expect(cardReducer(shown, { type: 'form_opened', kind: 'research' }).undo).toBeNull();
    expect(cardReducer(shown, { type: 'refresh_requested' }).undo).toBeNull();
  });

  it('words the plan and the result', () => {
    expect(planHasWork(plan({ restore: 0, notes: 1 }))).toBe(true);
    expect(planHasWork(plan({ restore: 0, notes: 0 }))).toBe(false);
    expect(planSummary(plan({ restore: 1, skip: 0, notes: 2 }))).toBe('Puts back 1 value, removes 2 notes.');
    expect(planSummary(plan({ restore: 0, skip: 0, notes: 0 }))).toBe(
      'Nothing to undo: the company already holds its values from before.',
    );
    const many = plan(
      {},
      Array.from({ length: 9 }, (_, i) => ({
        field: `buyer_intel_field_${i}`,
        kind: 'mapped' as const,
        now: 'x',
        wrote: 'x',
        before: 'y',
        action: 'restore' as const,
      })),
    );
    expect(planLines(many)).toHaveLength(6);
    expect(planLines(many).at(-1)).toBe('…and 4 more');
    expect(undoneSummary({ ...run('x'), counts: { restored: 0, failed: 1 } })).toBe(
      'Undone: 0 values put back, HubSpot refused part of it.',
    );
  });

  it('the client refuses an answer it cannot read, and sends the tenant with the account', async () => {
    const { fetch, undoCalls } = fakeFetch({
      account: () => account(),
      undoPlan: () => ({ status: 200, body: { dryRun: true, what: 'x' } }),
    });
    const api = createApiClient({ baseUrl: BASE, fetch, tenant: '4242' });
    await expect(api.previewUndo('901')).rejects.toMatchObject({ code: 'bad_response' });
    expect(undoCalls()[0]?.body).toEqual({
      account: { crm: 'hubspot', accountId: '901', tenant: '4242' },
      dryRun: true,
    });
  });
});
