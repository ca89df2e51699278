// The card's review forms (reject with a reason, search again with another name or state) and the
// notice a rejected company carries. What they hold lives in buyer-intel-logic.ts, when
// they may send in review-checks.ts.
import { Alert, Button, Divider, Flex, Input, LoadingSpinner, Text, TextArea } from '@hubspot/ui-extensions';
import type { ReviewForm } from './buyer-intel-logic.ts';
import { REASON_MAX, STATE_MAX } from './review-checks.ts';

type Field = 'reason' | 'name' | 'state';

interface FormProps<K extends ReviewForm['kind']> {
  form: Extract<ReviewForm, { kind: K }>;
  busy: boolean;
  /** While this form's request runs: what it is doing ("Rejecting…"). */
  progress: string | null;
  onEdit: (field: Field, value: string) => void;
  onSubmit: () => void;
  onCancel: () => void;
}

// Both input events keep the draft: `onChange` commits on blur only, and a click on the form's button
// must never send what the field showed a keystroke earlier.
const track = (onEdit: (field: Field, value: string) => void, field: Field) => ({
  onInput: (value: string) => onEdit(field, value),
  onChange: (value: string) => onEdit(field, value),
});

function Problem({ title, problem }: { title: string; problem: string | null }) {
  return problem ? (
    <Alert title={title} variant="error">
      {problem}
    </Alert>
  ) : null;
}

function Actions(props: {
  kind: ReviewForm['kind'];
  label: string;
  variant: 'primary' | 'destructive';
  busy: boolean;
  progress: string | null;
  onSubmit: () => void;
  onCancel: () => void;
}) {
  return (
    <Flex direction="row" gap="sm" align="center">
      <Button
        variant={props.variant}
        disabled={props.busy}
        testId={`${props.kind}-submit`}
        onClick={props.onSubmit}
      >
        {props.label}
      </Button>
      <Button
        variant="transparent"
        disabled={props.busy}
        testId={`${props.kind}-cancel`}
        onClick={props.onCancel}
      >
        Cancel
      </Button>
      {props.progress ? <LoadingSpinner label={props.progress} showLabel size="sm" layout="inline" /> : null}
    </Flex>
  );
}

export function RejectForm({ form, busy, progress, onEdit, onSubmit, onCancel }: FormProps<'reject'>) {
  return (
    <Flex direction="column" gap="sm">
      <Divider />
      <Text format={{ fontWeight: 'bold' }}>Not a public buyer</Text>
      <Text variant="microcopy">
        The company is marked “No match” and is not searched again until someone clears the rejection.
      </Text>
      <TextArea
        label="Why is this company not a public buyer?"
        name="reason"
        testId="reject-reason"
        value={form.reason}
        placeholder="e.g. a private company with a similar name"
        required
        rows={2}
        maxLength={REASON_MAX}
        readOnly={busy}
        {...track(onEdit, 'reason')}
      />
      <Problem title="Not rejected" problem={form.problem} />
      <Actions
        kind="reject"
        label="Reject"
        variant="destructive"
        busy={busy}
        progress={progress}
        onSubmit={onSubmit}
        onCancel={onCancel}
      />
    </Flex>
  );
}

export function ResearchForm({ form, busy, progress, onEdit, onSubmit, onCancel }: FormProps<'research'>) {
  return (
    <Flex direction="column" gap="sm">
      <Divider />
      <Text format={{ fontWeight: 'bold' }}>Search again</Text>
      <Text variant="microcopy">
        Searches with this name and state instead of the company’s; the company record itself is not changed.
      </Text>
      <Flex direction="row" gap="sm">
        <Input
          label="Name to search for"
          name="name"
          testId="research-name"
          value={form.name}
          required
          readOnly={busy}
          {...track(onEdit, 'name')}
        />
        <Input
          label="State"
          name="state"
          testId="research-state"
          value={form.state}
          placeholder="e.g. TX"
          description={`A code or a name (up to ${STATE_MAX} characters); blank uses the company’s own.`}
          readOnly={busy}
          {...track(onEdit, 'state')}
        />
      </Flex>
      <Problem title="Not searched" problem={form.problem} />
      <Actions
        kind="research"
        label="Search again"
        variant="primary"
        busy={busy}
        progress={progress}
        onSubmit={onSubmit}
        onCancel={onCancel}
      />
    </Flex>
  );
}

/** A rejected company: who rejected it and why (the service's reason), and the way back. */
export function RejectedNotice(props: {
  explanation: string | null;
  busy: boolean;
  progress: string | null;
  onClear: () => void;
}) {
  return (
    <Flex direction="column" gap="sm">
      <Alert title="Rejected: not a public buyer" variant="info">
        <Text testId="rejected-reason">{props.explanation ?? 'Rejected by a person.'}</Text>
        <Text variant="microcopy">It is not searched again until the rejection is cleared.</Text>
      </Alert>
      <Flex direction="row" gap="sm" align="center">
        <Button size="sm" variant="secondary" disabled={props.busy} testId="clear" onClick={props.onClear}>
          Clear rejection
        </Button>
        {props.progress ? (
          <LoadingSpinner label={props.progress} showLabel size="sm" layout="inline" />
        ) : null}
      </Flex>
    </Flex>
  );
}
