import { Alert, Button, Flex, hubspot, LoadingSpinner } from '@hubspot/ui-extensions';
import { useCallback, useEffect, useMemo, useReducer, useRef, useState } from 'react';
import { createApiClient, type FetchLike, type PollOptions, type Queued } from './buyer-intel-api.ts';
import { errorMessage } from './buyer-intel-format.ts';
import {
  type CardAction,
  type CardEvent,
  cardReducer,
  initialCardState,
  isBusy,
} from './buyer-intel-logic.ts';
import { progressLabel, runJobFlow } from './card-actions.ts';
import { LastChanges } from './LastChanges.tsx';
import { Candidates, JobDiff, MatchSummary } from './MatchViews.tsx';
import { RejectedNotice, RejectForm, ResearchForm } from './ReviewForms.tsx';
import { checkReason, checkResearch, offeredActions } from './review-checks.ts';
import { UndoView } from './UndoView.tsx';
import { runUndoFlow, runUndoPreview } from './undo-logic.ts';

/** Must match `permittedUrls.fetch` in app-hsmeta.json. */
export const BACKEND_URL = 'https://buyer-intel.example.com';

export interface BuyerIntelCardContext {
  portal: { id: number | string };
  crm: { objectId: number | string };
}

export interface BuyerIntelCardProps {
  context: BuyerIntelCardContext;
  /** `hubspot.fetch` in HubSpot; a fake in tests. */
  fetch: FetchLike;
  baseUrl?: string;
  poll?: PollOptions;
}

hubspot.extend<'crm.record.tab'>(({ context }) => <BuyerIntelCard context={context} fetch={hubspot.fetch} />);

export function BuyerIntelCard({ context, fetch, baseUrl = BACKEND_URL, poll }: BuyerIntelCardProps) {
  const accountId = String(context.crm.objectId);
  const api = useMemo(
    () => createApiClient({ baseUrl, fetch, tenant: String(context.portal.id), crm: 'hubspot' }),
    [baseUrl, fetch, context.portal.id],
  );
  const [state, dispatch] = useReducer(cardReducer, initialCardState);
  // Bumped by "Try again" after the company could not be read.
  const [loads, setLoads] = useState(0);

  // biome-ignore lint/correctness/useExhaustiveDependencies: `loads` is the reason to read again.
  useEffect(() => {
    let cancelled = false;
    dispatch({ type: 'load' });
    api.getAccount(accountId).then(
      (account) => {
        if (!cancelled) dispatch({ type: 'loaded', account });
      },
      (err: unknown) => {
        if (!cancelled) dispatch({ type: 'failed', message: errorMessage(err) });
      },
    );
    return () => {
      cancelled = true;
    };
  }, [api, accountId, loads]);

  const busy = isBusy(state);
  // Set before the request and cleared when its job ends: a second click that arrives before React
  // re-renders the disabled button sends nothing (the reducer ignores its event as well).
  const inFlight = useRef(false);
  const guarded = useCallback((event: CardEvent, flow: () => Promise<void>) => {
    if (inFlight.current) return;
    inFlight.current = true;
    dispatch(event);
    void flow().finally(() => {
      inFlight.current = false;
    });
  }, []);
  const start = useCallback(
    (event: CardEvent, send: () => Promise<Queued>) =>
      guarded(event, () => runJobFlow(api, accountId, send, dispatch, poll)),
    [guarded, api, accountId, poll],
  );
  const onUndo = useCallback(
    () => guarded({ type: 'undo_opened' }, () => runUndoPreview(api, accountId, dispatch)),
    [guarded, api, accountId],
  );
  const onConfirmUndo = useCallback(
    () => guarded({ type: 'undo_confirmed' }, () => runUndoFlow(api, accountId, dispatch, poll)),
    [guarded, api, accountId, poll],
  );
  const onCloseUndo = useCallback(() => dispatch({ type: 'undo_closed' }), []);

  const onRefresh = useCallback(
    () => start({ type: 'refresh_requested' }, () => api.refresh(accountId)),
    [start, api, accountId],
  );
  const onConfirm = useCallback(
    (buyerId: string) => start({ type: 'confirm_requested', buyerId }, () => api.confirm(accountId, buyerId)),
    [start, api, accountId],
  );
  const onClear = useCallback(
    () => start({ type: 'clear_requested' }, () => api.clear(accountId)),
    [start, api, accountId],
  );
  const form = state.form;
  const onSubmitForm = useCallback(() => {
    if (form?.kind === 'reject') {
      const checked = checkReason(form.reason);
      if (!checked.ok) return dispatch({ type: 'form_invalid', problem: checked.problem });
      start({ type: 'reject_requested' }, () => api.reject(accountId, checked.value));
    } else if (form?.kind === 'research') {
      const checked = checkResearch(form.name, form.state);
      if (!checked.ok) return dispatch({ type: 'form_invalid', problem: checked.problem });
      start({ type: 'research_requested' }, () => api.research(accountId, checked.value));
    }
  }, [form, start, api, accountId]);
  const onEdit = useCallback(
    (field: 'reason' | 'name' | 'state', value: string) => dispatch({ type: 'form_edited', field, value }),
    [],
  );
  const onCancel = useCallback(() => dispatch({ type: 'form_closed' }), []);

  if (state.phase === 'loading') return <LoadingSpinner label="Loading buyer intel" layout="centered" />;
  if (state.phase === 'error' || !state.account) {
    return (
      <Flex direction="column" gap="sm">
        <Alert title="Buyer intel is unavailable" variant="error">
          {state.error ?? 'Unknown error'}
        </Alert>
        <Button variant="secondary" testId="reload" onClick={() => setLoads((n) => n + 1)}>
          Try again
        </Button>
      </Flex>
    );
  }

  const account = state.account;
  const offered = offeredActions(account);
  // Progress shows beside the control that started it.
  const progressOf = (...actions: CardAction[]) =>
    state.action && actions.includes(state.action) ? progressLabel(state) : null;
  const rowProgress = progressOf('refresh', 'confirm');
  const formProps = { busy, onEdit, onSubmit: onSubmitForm, onCancel };
  return (
    <Flex direction="column" gap="md">
      {state.error ? (
        <Alert title="Something went wrong" variant="error">
          {state.error}
        </Alert>
      ) : null}
      <MatchSummary account={account} />
      {offered.clear ? (
        <RejectedNotice
          explanation={account.explanation}
          busy={busy}
          progress={progressOf('clear')}
          onClear={onClear}
        />
      ) : null}
      <Flex direction="row" gap="sm" align="center" wrap>
        <Button variant="primary" onClick={onRefresh} disabled={busy} testId="refresh">
          Refresh from buyer intel
        </Button>
        {offered.research ? (
          <Button
            variant="secondary"
            disabled={busy}
            testId="research"
            onClick={() => dispatch({ type: 'form_opened', kind: 'research' })}
          >
            Search again…
          </Button>
        ) : null}
        {offered.reject ? (
          <Button
            variant="secondary"
            disabled={busy}
            testId="reject"
            onClick={() => dispatch({ type: 'form_opened', kind: 'reject' })}
          >
            Not a public buyer…
          </Button>
        ) : null}
        <Button variant="secondary" disabled={busy} testId="undo" onClick={onUndo}>
          Undo last change…
        </Button>
        {rowProgress ? <LoadingSpinner label={rowProgress} showLabel size="sm" layout="inline" /> : null}
      </Flex>
      {form?.kind === 'reject' ? (
        <RejectForm form={form} progress={progressOf('reject')} {...formProps} />
      ) : null}
      {form?.kind === 'research' ? (
        <ResearchForm form={form} progress={progressOf('research')} {...formProps} />
      ) : null}
      {state.undo ? (
        <UndoView
          panel={state.undo}
          busy={busy}
          progress={progressOf('undo')}
          onConfirm={onConfirmUndo}
          onClose={onCloseUndo}
        />
      ) : null}
      {state.outcome ? <JobDiff outcome={state.outcome} /> : null}
      {account.status === 'needs_review' && !account.pinned ? (
        <Candidates account={account} busy={busy} onConfirm={onConfirm} />
      ) : null}
      <LastChanges api={api} accountId={accountId} refreshKey={state.jobsFinished} />
    </Flex>
  );
}
