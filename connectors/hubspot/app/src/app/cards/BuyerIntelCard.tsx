import {
  Alert,
  Button,
  DescriptionList,
  DescriptionListItem,
  Divider,
  Flex,
  Heading,
  hubspot,
  LoadingSpinner,
  Table,
  TableBody,
  TableCell,
  TableHead,
  TableHeader,
  TableRow,
  Tag,
  Text,
} from '@hubspot/ui-extensions';
import { useCallback, useEffect, useMemo, useReducer } from 'react';
import {
  type AccountMatch,
  type CardState,
  cardReducer,
  createApiClient,
  errorMessage,
  type FetchLike,
  formatConfidence,
  formatDateTime,
  initialCardState,
  isBusy,
  type JobOutcome,
  type PollOptions,
  runJobFlow,
  statusLabel,
  statusVariant,
} from './buyer-intel-logic.ts';

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
  }, [api, accountId]);

  const busy = isBusy(state);
  const onRefresh = useCallback(() => {
    if (busy) return;
    dispatch({ type: 'refresh_requested' });
    void runJobFlow(api, accountId, () => api.refresh(accountId), dispatch, poll);
  }, [api, accountId, busy, poll]);

  const onConfirm = useCallback(
    (buyerId: string) => {
      if (busy) return;
      dispatch({ type: 'confirm_requested', buyerId });
      void runJobFlow(api, accountId, () => api.confirm(accountId, buyerId), dispatch, poll);
    },
    [api, accountId, busy, poll],
  );

  if (state.phase === 'loading') return <LoadingSpinner label="Loading buyer intel" layout="centered" />;
  if (state.phase === 'error' || !state.account) {
    return (
      <Alert title="Buyer intel is unavailable" variant="error">
        {state.error ?? 'Unknown error'}
      </Alert>
    );
  }

  return (
    <Flex direction="column" gap="md">
      {state.error ? (
        <Alert title="Something went wrong" variant="error">
          {state.error}
        </Alert>
      ) : null}
      <MatchSummary account={state.account} />
      <Flex direction="row" gap="sm" align="center">
        <Button variant="primary" onClick={onRefresh} disabled={busy} testId="refresh">
          Refresh from buyer intel
        </Button>
        {busy ? <LoadingSpinner label={progressLabel(state)} showLabel size="sm" layout="inline" /> : null}
      </Flex>
      {state.outcome ? <JobDiff outcome={state.outcome} /> : null}
      {state.account.status === 'needs_review' ? (
        <Candidates account={state.account} busy={busy} onConfirm={onConfirm} />
      ) : null}
    </Flex>
  );
}

function progressLabel(state: CardState): string {
  return state.phase === 'confirming' ? 'Confirming buyer…' : 'Refreshing…';
}

function MatchSummary({ account }: { account: AccountMatch }) {
  return (
    <Flex direction="column" gap="sm">
      <Flex direction="row" gap="sm" align="center">
        <Heading>{account.buyerName ?? 'No buyer matched'}</Heading>
        <Tag variant={statusVariant(account.status)} testId="status">
          {statusLabel(account.status)}
        </Tag>
      </Flex>
      <DescriptionList direction="row">
        <DescriptionListItem label="Buyer">
          <Text testId="buyer">{account.buyerName ?? '—'}</Text>
        </DescriptionListItem>
        <DescriptionListItem label="Confidence">
          <Text testId="confidence">{formatConfidence(account.confidence)}</Text>
        </DescriptionListItem>
        <DescriptionListItem label="Last enriched">
          <Text>{formatDateTime(account.lastEnrichedAt)}</Text>
        </DescriptionListItem>
      </DescriptionList>
      {account.explanation ? <Text variant="microcopy">{account.explanation}</Text> : null}
    </Flex>
  );
}

function JobDiff({ outcome }: { outcome: JobOutcome }) {
  if (outcome.state === 'failed') {
    return (
      <Alert title="Refresh failed" variant="error">
        {outcome.failedReason ?? 'The refresh failed.'}
      </Alert>
    );
  }
  return (
    <Flex direction="column" gap="sm">
      <Divider />
      <Text format={{ fontWeight: 'bold' }}>
        {outcome.rows.length === 0
          ? 'Refresh complete: no field changed.'
          : 'Refresh complete: fields updated'}
      </Text>
      {outcome.rows.length > 0 ? (
        <Table bordered>
          <TableHead>
            <TableRow>
              <TableHeader>Property</TableHeader>
              <TableHeader>Change</TableHeader>
            </TableRow>
          </TableHead>
          <TableBody>
            {outcome.rows.map((row) => (
              <TableRow key={row.property}>
                <TableCell>{row.property}</TableCell>
                <TableCell>{`${row.from} → ${row.to}`}</TableCell>
              </TableRow>
            ))}
          </TableBody>
        </Table>
      ) : null}
      {outcome.notes.length > 0 ? (
        <Flex direction="column" gap="xs">
          <Text format={{ fontWeight: 'bold' }}>Notes added</Text>
          {outcome.notes.map((note) => (
            <Text key={note.key} testId={`note-${note.key}`}>
              {note.title}
            </Text>
          ))}
        </Flex>
      ) : null}
    </Flex>
  );
}

function Candidates({
  account,
  busy,
  onConfirm,
}: {
  account: AccountMatch;
  busy: boolean;
  onConfirm: (buyerId: string) => void;
}) {
  if (account.candidates.length === 0) return <Text>No candidates to review.</Text>;
  return (
    <Flex direction="column" gap="sm">
      <Divider />
      <Text format={{ fontWeight: 'bold' }}>Possible buyers: confirm the right one</Text>
      {account.candidates.map((c) => (
        <Flex key={c.buyerId} direction="row" gap="sm" align="center" justify="between">
          <Text testId={`candidate-${c.buyerId}`}>
            {`${c.name} (${c.type}, ${c.stateCode}) · ${formatConfidence(c.score)}`}
          </Text>
          <Button
            size="sm"
            variant="secondary"
            disabled={busy}
            testId={`confirm-${c.buyerId}`}
            onClick={() => onConfirm(c.buyerId)}
          >
            Confirm
          </Button>
        </Flex>
      ))}
    </Flex>
  );
}
