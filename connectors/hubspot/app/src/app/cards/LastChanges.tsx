// The card's "Last changes": what the service wrote on the company lately, read from its write history
// after the company itself (the card never waits for it), again after each job, a few at a time. A
// failed read says so here and leaves the rest of the card alone.
import { Alert, Button, Divider, Flex, LoadingButton, LoadingSpinner, Text } from '@hubspot/ui-extensions';
import { useEffect, useReducer } from 'react';
import type { BuyerIntelApi } from './buyer-intel-api.ts';
import { changeView, errorMessage } from './buyer-intel-format.ts';
import {
  hasMoreChanges,
  historyReducer,
  initialHistoryState,
  pageWanted,
  visibleChanges,
} from './history-logic.ts';

export function LastChanges(props: {
  api: BuyerIntelApi;
  accountId: string;
  /** Changes when a job has finished: the history is read again. */
  refreshKey: number;
}) {
  const { api, accountId, refreshKey } = props;
  const [state, dispatch] = useReducer(historyReducer, initialHistoryState);

  // biome-ignore lint/correctness/useExhaustiveDependencies: refreshKey is the reason to read again.
  useEffect(() => dispatch({ type: 'reload' }), [api, accountId, refreshKey]);

  const request = state.request;
  useEffect(() => {
    if (request === 0) return;
    api.getHistory(accountId).then(
      (page) => dispatch({ type: 'page', request, after: null, page }),
      (err: unknown) => dispatch({ type: 'failed', request, after: null, message: errorMessage(err) }),
    );
  }, [api, accountId, request]);

  const wanted = pageWanted(state);
  useEffect(() => {
    if (wanted === null) return;
    dispatch({ type: 'fetching', after: wanted });
    api.getHistory(accountId, wanted).then(
      (page) => dispatch({ type: 'page', request, after: wanted, page }),
      (err: unknown) => dispatch({ type: 'failed', request, after: wanted, message: errorMessage(err) }),
    );
  }, [api, accountId, request, wanted]);

  const views = visibleChanges(state).map(changeView);
  return (
    <Flex direction="column" gap="xs">
      <Divider />
      <Flex direction="row" gap="sm" align="center">
        <Text format={{ fontWeight: 'bold' }}>Last changes</Text>
        {state.loading === 'first' ? (
          <LoadingSpinner label="Loading last changes" size="xs" layout="inline" />
        ) : null}
      </Flex>
      {state.error ? (
        <Alert title="Last changes are unavailable" variant="warning">
          {state.error}
        </Alert>
      ) : null}
      {state.error ? (
        <Button
          size="xs"
          variant="secondary"
          testId="history-retry"
          onClick={() => dispatch({ type: 'retry' })}
        >
          Try again
        </Button>
      ) : null}
      {state.loaded && views.length === 0 && state.next === null ? (
        <Text variant="microcopy" testId="history-empty">
          Buyer intel has not changed this company yet.
        </Text>
      ) : null}
      {views.map((view, i) => (
        <Flex key={view.key} direction="column" gap="flush">
          <Text variant="microcopy" testId={`history-${i}-by`}>{`${view.when} · ${view.by}`}</Text>
          {view.lines.map((line) => (
            <Text key={line.key} testId={`history-${i}-line-${line.key}`}>
              {line.text}
            </Text>
          ))}
        </Flex>
      ))}
      {hasMoreChanges(state) ? (
        <LoadingButton
          size="xs"
          variant="secondary"
          loading={state.loading === 'more'}
          testId="history-more"
          onClick={() => dispatch({ type: 'show_more' })}
        >
          Show more
        </LoadingButton>
      ) : null}
    </Flex>
  );
}
