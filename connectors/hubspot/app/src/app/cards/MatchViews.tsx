// What the card shows of the match: the buyer and status, the last job's diff, and the candidates of
// a match that needs review.
import {
  Alert,
  Button,
  DescriptionList,
  DescriptionListItem,
  Divider,
  Flex,
  Heading,
  Table,
  TableBody,
  TableCell,
  TableHead,
  TableHeader,
  TableRow,
  Tag,
  Text,
} from '@hubspot/ui-extensions';
import type { AccountMatch } from './buyer-intel-api.ts';
import { formatConfidence, formatDateTime, statusLabel, statusVariant } from './buyer-intel-format.ts';
import type { JobOutcome } from './buyer-intel-logic.ts';
import { failedTitle, outcomeTitle } from './card-actions.ts';

export function MatchSummary({ account }: { account: AccountMatch }) {
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

export function JobDiff({ outcome }: { outcome: JobOutcome }) {
  if (outcome.state === 'failed') {
    return (
      <Alert title={failedTitle(outcome.action)} variant="error">
        {outcome.failedReason ?? `${failedTitle(outcome.action)}.`}
      </Alert>
    );
  }
  return (
    <Flex direction="column" gap="sm">
      <Divider />
      <Text format={{ fontWeight: 'bold' }}>{outcomeTitle(outcome)}</Text>
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

export function Candidates({
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
