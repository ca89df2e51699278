// Why each field of an enrichment's write is sent, for the write history (src/write/journal.ts): a
// mapped field's policy decision, attribute and previous value; a provenance field's previous value.
// Nothing here reaches the CRM.
import type { FieldChange } from '../map/plan.ts';
import type { FieldReason, WriteContext, WriteOrigin } from '../write/journal.ts';

export function writeContextOf(
  origin: WriteOrigin | undefined,
  buyerId: string | null,
  changes: readonly FieldChange[],
  current: Record<string, string | null>,
  written: Record<string, string | null>,
): WriteContext {
  const mapped = new Map(
    changes.filter((c) => c.decision === 'write' || c.decision === 'clear').map((c) => [c.property, c]),
  );
  const fields: Record<string, FieldReason> = {};
  for (const name of Object.keys(written)) {
    const change = mapped.get(name);
    fields[name] = change
      ? {
          old: change.old,
          decision: change.decision,
          kind: 'mapped',
          attribute: change.attribute,
          policy: change.policy,
        }
      : { old: current[name] ?? null, decision: 'provenance', kind: 'provenance' };
  }
  return { ...origin, buyerId, fields };
}
