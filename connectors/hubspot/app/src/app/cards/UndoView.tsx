// "Undo last change": the plan of the dry run (what goes back, what a person changed since and is
// kept, the notes removed), Undo to confirm it, the run's progress and its result, or the service's
// refusal. Where it stands lives in the card's state (undo-logic.ts).
import { Alert, Button, Divider, Flex, LoadingSpinner, Text } from '@hubspot/ui-extensions';
import { planHasWork, planLines, planOf, planSummary, type UndoPanel, undoneSummary } from './undo-logic.ts';

export function UndoView(props: {
  panel: UndoPanel;
  busy: boolean;
  /** While the dry run or the undo runs: what it is doing. */
  progress: string | null;
  onConfirm: () => void;
  onClose: () => void;
}) {
  const { panel, busy, progress } = props;
  const plan = planOf(panel);
  const canUndo = plan !== null && planHasWork(plan);
  return (
    <Flex direction="column" gap="sm">
      <Divider />
      <Text format={{ fontWeight: 'bold' }}>Undo the last change</Text>
      {plan ? (
        <Flex direction="column" gap="xs">
          <Text variant="microcopy" testId="undo-what">
            {plan.what}
          </Text>
          <Text testId="undo-summary">{planSummary(plan)}</Text>
          {planLines(plan).map((line, i) => (
            // biome-ignore lint/suspicious/noArrayIndexKey: two lines may read the same; the order is fixed.
            <Text key={i} testId={`undo-line-${i}`}>
              {line}
            </Text>
          ))}
          {plan.remarks.map((remark) => (
            <Text key={remark} variant="microcopy">
              {remark}
            </Text>
          ))}
        </Flex>
      ) : null}
      {panel.stage === 'refused' ? (
        <Alert title="Not undone" variant="error">
          {panel.problem}
        </Alert>
      ) : null}
      {panel.stage === 'done' ? (
        <Alert title="Last change undone" variant="success">
          <Text testId="undo-done">{undoneSummary(panel.run)}</Text>
        </Alert>
      ) : null}
      <Flex direction="row" gap="sm" align="center">
        {canUndo ? (
          <Button variant="destructive" disabled={busy} testId="undo-submit" onClick={props.onConfirm}>
            Undo
          </Button>
        ) : null}
        <Button variant="transparent" disabled={busy} testId="undo-close" onClick={props.onClose}>
          {canUndo ? 'Cancel' : 'Close'}
        </Button>
        {progress ? <LoadingSpinner label={progress} showLabel size="sm" layout="inline" /> : null}
      </Flex>
    </Flex>
  );
}
