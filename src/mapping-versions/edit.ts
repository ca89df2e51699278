// A mapping as the console's form sends it: one row per CRM field (attribute, field, transform, policy)
// and, for a row that was already there, which row of the version it was edited from — that row's
// label and enum labels, which the form does not show, are carried over. The document it makes goes
// through the mapping file's own schema, and each problem comes back located by row and input.
import { z } from 'zod';
import { MAPPING_VERSION, type Mapping, type MappingIssue, validateMapping } from '../map/mapping-schema.ts';
import { type MatchThresholds, matchThresholdsSchema } from '../resolve/thresholds.ts';

const text = (max: number) => z.string().max(max, { error: `must be at most ${max} characters` });

export const mappingEditSchema = z.strictObject({
  /** The version the form was opened on: saving from an older one is refused. */
  base: z.number().int().min(1),
  reason: text(500).trim().optional(),
  fields: z
    .array(
      z.strictObject({
        from: z.number().int().min(0).max(10_000).optional(),
        attribute: text(200).trim(),
        property: text(200).trim(),
        transform: text(50),
        policy: text(50),
      }),
    )
    .max(1_000, { error: 'at most 1000 rows' }),
  /** Checked by matchThresholdsSchema, each problem beside its input; absent: the version's own. */
  thresholds: z.unknown().optional(),
});
export type MappingEdit = z.infer<typeof mappingEditSchema>;

/** A problem of the form: its row (0-based, in the form's order) and input, or the whole mapping. */
export interface FormProblem {
  row: number | null;
  key: string | null;
  message: string;
}

/** The edited document, as raw input for the schema (a row's hidden keys from the row it came from). */
export function documentOf(edit: MappingEdit, base: Mapping): unknown {
  return {
    version: MAPPING_VERSION,
    fields: edit.fields.map((row) => {
      const was = row.from === undefined ? undefined : base.fields[row.from];
      const same = was !== undefined && was.attribute === row.attribute;
      return {
        attribute: row.attribute,
        property: row.property,
        ...(same && was.label !== undefined ? { label: was.label } : {}),
        transform: row.transform,
        policy: row.policy,
        // Labels of values only mean something to the enum transform of the same attribute.
        ...(same && row.transform === 'enum' && was.enumLabels !== undefined
          ? { enumLabels: was.enumLabels }
          : {}),
      };
    }),
  };
}

function problemOf(issue: MappingIssue): FormProblem {
  const [top, row, key] = issue.path;
  if (top === 'fields' && typeof row === 'number')
    return { row, key: typeof key === 'string' ? key : null, message: issue.message };
  return { row: null, key: null, message: issue.message };
}

/**
 * The form's mapping, validated as a mapping file is, and its thresholds (the base's when the form
 * sends none); every problem located in the form.
 */
export function mappingOfEdit(
  edit: MappingEdit,
  base: Mapping,
  baseThresholds: MatchThresholds,
): { ok: true; mapping: Mapping; thresholds: MatchThresholds } | { ok: false; problems: FormProblem[] } {
  const result = validateMapping(documentOf(edit, base));
  const problems = result.ok ? [] : result.issues.map(problemOf);
  const thresholds =
    edit.thresholds === undefined
      ? ({ success: true, data: baseThresholds } as const)
      : matchThresholdsSchema.safeParse(edit.thresholds);
  if (!thresholds.success)
    for (const issue of thresholds.error.issues) {
      const key = issue.path[0];
      problems.push({
        row: null,
        key: typeof key === 'string' ? key : 'thresholds',
        message: issue.code === 'unrecognized_keys' ? `unknown key ${issue.keys.join(', ')}` : issue.message,
      });
    }
  if (!result.ok || !thresholds.success) return { ok: false, problems };
  return { ok: true, mapping: result.mapping, thresholds: thresholds.data };
}
