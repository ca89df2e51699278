// What changed between two mappings, row by row, as a person reads it in the versions list and above
// a preview: a row is a CRM field (each takes one attribute), so rows are matched by their property.
import type { Mapping, MappingField } from '../map/mapping-schema.ts';
import type { MatchThresholds } from '../resolve/thresholds.ts';

export type RowChange =
  | { kind: 'added'; property: string; field: MappingField }
  | { kind: 'removed'; property: string; field: MappingField }
  | {
      kind: 'changed';
      property: string;
      field: MappingField;
      /** Each key that differs: its value before and after (JSON for labels). */
      keys: { key: keyof MappingField; from: string; to: string }[];
    };

const COMPARED: (keyof MappingField)[] = ['attribute', 'transform', 'policy', 'label', 'enumLabels'];

function shown(value: unknown): string {
  if (value === undefined) return '(none)';
  if (typeof value === 'string') return value;
  // enumLabels: compared with their order (the dropdown's), named by their count.
  const entries = Object.entries(value as Record<string, string>);
  return `${entries.length} labels (${entries.map(([k, v]) => `${k}=${v}`).join(', ')})`;
}

function short(text: string): string {
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}

/** The rows of `after` that differ from `before` (in `after`'s order), then the rows it dropped. */
export function diffMappings(before: Mapping, after: Mapping): RowChange[] {
  const old = new Map(before.fields.map((f) => [f.property, f]));
  const kept = new Set(after.fields.map((f) => f.property));
  const changes: RowChange[] = [];
  for (const field of after.fields) {
    const was = old.get(field.property);
    if (!was) {
      changes.push({ kind: 'added', property: field.property, field });
      continue;
    }
    const keys = COMPARED.flatMap((key) => {
      const from = shown(was[key]);
      const to = shown(field[key]);
      return from === to ? [] : [{ key, from, to }];
    });
    if (keys.length) changes.push({ kind: 'changed', property: field.property, field, keys });
  }
  for (const field of before.fields)
    if (!kept.has(field.property)) changes.push({ kind: 'removed', property: field.property, field });
  return changes;
}

/** One line per change: "buyer_intel_main_phone: policy fill-empty → overwrite". */
export function describeChange(c: RowChange): string {
  if (c.kind === 'added')
    return `${c.property}: added (${c.field.attribute}, ${c.field.transform}, ${c.field.policy})`;
  if (c.kind === 'removed') return `${c.property}: removed (was ${c.field.attribute})`;
  return `${c.property}: ${c.keys.map((k) => `${k.key} ${short(k.from)} → ${short(k.to)}`).join(', ')}`;
}

/** The thresholds' changes in words: "auto-match floor 0.75 → 0.8". */
export function thresholdChanges(before: MatchThresholds, after: MatchThresholds): string[] {
  const out: string[] = [];
  if (before.acceptThreshold !== after.acceptThreshold)
    out.push(`auto-match floor ${before.acceptThreshold} → ${after.acceptThreshold}`);
  if (before.ambiguityMargin !== after.ambiguityMargin)
    out.push(`review margin ${before.ambiguityMargin} → ${after.ambiguityMargin}`);
  return out;
}
