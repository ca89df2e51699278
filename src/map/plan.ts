// The pure decision, per mapped field, of whether to write a buyer's value into the CRM field, under the
// field's write policy. No I/O: the CRM's current values and the ledger (what we last wrote) come in.
import type { FieldLimits } from '../../connectors/types.ts';
import type { BuyerField } from '../buyer-intel/fields.ts';
import { fieldDefinition } from './field-definitions.ts';
import { type FitNoteKind, fitValue } from './fit.ts';
import { DEFAULT_POLICY, type Mapping, type MappingField, type WritePolicy } from './mapping-schema.ts';
import { comparableValue, enumOptionValues, transformValue } from './transforms.ts';

export type FieldDecision =
  | 'write'
  /** The buyer has no value any more and the field still holds the one we wrote: it is cleared. */
  | 'clear'
  | 'unchanged'
  | 'blocked-edited-by-person'
  | 'blocked-not-empty'
  | 'skip-no-value';

export interface FieldChange {
  attribute: BuyerField;
  property: string;
  policy: WritePolicy;
  /** The CRM's current value (null when empty). */
  old: string | null;
  /** Our value for the field (null when the buyer has none, or it could not be converted). */
  new: string | null;
  decision: FieldDecision;
  /** A short sentence for people (the plan printout, logs). */
  reason: string;
  /** Our value did not fit the CRM field as it was: cut, rounded, or (decision skip-no-value) left out. */
  fit?: { kind: FitNoteKind; reason: string };
}

export interface PlanInput {
  mapping: Mapping;
  attributes: Partial<Record<BuyerField, unknown>>;
  /** The CRM's current values, by field name. */
  current: Record<string, string | null>;
  /** What we last wrote, by field name. */
  ledger: Record<string, string>;
  /** What the CRM's fields hold (`CrmConnector.fieldLimits`): values are fitted to it. None: as they are. */
  limits?: FieldLimits | undefined;
}

export interface FieldWritePlan {
  /** One per mapped field, in mapping order. */
  changes: FieldChange[];
  /** Only the fields whose decision is 'write' (their value) or 'clear' (null). */
  updates: Record<string, string | null>;
}

/**
 * - `overwrite` writes whenever our value differs from the current one.
 * - `fill-empty` writes only into an empty field (null or blank).
 * - `ours` writes into an empty field, or over the value we wrote last (the ledger); a value somebody
 *   else put there — a person's edit after our write, or any value present before we ever wrote — is kept.
 * Whatever the policy, a buyer with no value for a field that still holds the value we wrote last
 * clears it (`clear`): the CRM shows the current buyer's data or none of ours. A field holding anything
 * else is left as it is, and a value equal to the current one (after normalising: '100' and '100.0',
 * trailing spaces) is not written again.
 */
export function planFieldWrites(input: PlanInput): FieldWritePlan {
  const changes = input.mapping.fields.map((field) => decide(field, input));
  const updates: Record<string, string | null> = {};
  for (const change of changes) {
    if (change.decision === 'write' && change.new !== null) updates[change.property] = change.new;
    if (change.decision === 'clear') updates[change.property] = null;
  }
  return { changes, updates };
}

function decide(field: MappingField, input: PlanInput): FieldChange {
  const policy = field.policy ?? DEFAULT_POLICY;
  const rawOld = input.current[field.property];
  const old = rawOld === undefined || rawOld === null || rawOld.trim() === '' ? null : rawOld;
  const raw = input.attributes[field.attribute];
  const converted = transformValue(raw, field);
  const base = { attribute: field.attribute, property: field.property, policy, old };
  const result = (decision: FieldDecision, reason: string, value = converted): FieldChange => ({
    ...base,
    new: value,
    decision,
    reason,
  });

  if (converted === null) {
    const noValue = raw === null || raw === undefined || (typeof raw === 'string' && raw.trim() === '');
    const ours = input.ledger[field.property];
    if (
      noValue &&
      old !== null &&
      ours !== undefined &&
      comparableValue(ours, field) === comparableValue(old, field)
    )
      return result(
        'clear',
        `The buyer has no ${field.attribute} (any more); the field still held the value we wrote, so it is cleared.`,
      );
    return result(
      'skip-no-value',
      noValue
        ? `The buyer has no ${field.attribute}; the field is left as it is.`
        : `${field.attribute} ${preview(raw)} is not a valid ${field.transform}; the field is left as it is.`,
    );
  }
  const options = enumOptionValues(field);
  if (options !== null && !options.includes(converted)) {
    return result(
      'skip-no-value',
      `"${converted}" is not one of the field's options; the field is left as it is.`,
      null,
    );
  }
  const fit = input.limits ? fitValue(converted, fieldDefinition(field), input.limits) : undefined;
  if (fit && !fit.ok) {
    const reason = `${fit.reason} The field is left as it is.`;
    return { ...result('skip-no-value', reason, null), fit: { kind: 'skipped', reason } };
  }
  if (fit?.note) {
    // Compared and written as it fits: a value cut to the field's length is "unchanged" on the next run.
    const fitted = decide(field, {
      ...input,
      limits: undefined,
      attributes: { [field.attribute]: fit.value },
    });
    return { ...fitted, new: fit.value, fit: fit.note };
  }

  const now = comparableValue(old, field);
  if (now === comparableValue(converted, field))
    return result('unchanged', 'The field already holds this value.');
  if (old === null) return result('write', 'The field was empty.');
  if (unsetBool(field, old, policy, input))
    return result('write', 'The field held false, the empty state of a yes/no field on this CRM.');

  switch (policy) {
    case 'overwrite':
      return result('write', 'Overwrite policy: our current value replaces the old one.');
    case 'fill-empty':
      return result('blocked-not-empty', 'Fill-empty policy: the field already has a value, which is kept.');
    case 'ours': {
      const ours = input.ledger[field.property];
      if (ours === undefined) {
        return result(
          'blocked-edited-by-person',
          'The field holds a value we did not write (a person or another tool put it there); it is kept.',
        );
      }
      if (comparableValue(ours, field) === now) {
        return result('write', 'The field still holds the value we wrote last; it is updated.');
      }
      return result(
        'blocked-edited-by-person',
        `The value was changed after we wrote ${JSON.stringify(ours)}; the person's edit is kept.`,
      );
    }
    default: {
      // A policy added to WRITE_POLICIES must get its own case: this stops compiling until it does,
      // rather than it quietly behaving as another policy.
      const unreachable: never = policy;
      throw new Error(`unknown write policy "${String(unreachable)}"`);
    }
  }
}

/** false in a yes/no field that cannot be empty (FieldLimits.boolReadsFalseWhenEmpty) that we never set. */
function unsetBool(field: MappingField, old: string, policy: WritePolicy, input: PlanInput): boolean {
  if (!input.limits?.boolReadsFalseWhenEmpty || field.transform !== 'boolean') return false;
  if (comparableValue(old, field) !== 'false') return false;
  return policy === 'fill-empty' || (policy === 'ours' && input.ledger[field.property] === undefined);
}

function preview(value: unknown): string {
  let text: string;
  try {
    text = typeof value === 'string' ? JSON.stringify(value) : (JSON.stringify(value) ?? String(value));
  } catch {
    text = String(value);
  }
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}
