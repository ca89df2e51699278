// The CRM fields `setup` creates: one per mapped field, typed from its transform, plus our provenance
// fields (the same for every mapping).
import type { FieldDefinition, FieldType } from '../../connectors/types.ts';
import { BUYER_FIELD_LABELS } from '../buyer-intel/fields.ts';
import type { FieldTransform, Mapping, MappingField } from './mapping-schema.ts';
import { ENRICH_STATUS_LABELS, ENRICH_STATUSES, PROVENANCE_FIELDS } from './provenance.ts';
import { enumOptionValues, LIST_SEPARATOR } from './transforms.ts';

export {
  ENRICH_STATUS_LABELS,
  ENRICH_STATUSES,
  type EnrichmentStatus,
  PROVENANCE_FIELD_NAMES,
  PROVENANCE_FIELDS,
  type ProvenanceField,
  type ProvenanceRole,
} from './provenance.ts';

const FIELD_TYPES: Record<FieldTransform, FieldType> = {
  number: 'number',
  integer: 'number',
  percent: 'number',
  currency: 'number',
  date: 'date',
  url: 'url',
  boolean: 'bool',
  enum: 'string', // 'enumeration' when the mapping gives enumLabels
  list: 'text',
  text: 'string',
};

const TRANSFORM_NOTES: Record<FieldTransform, string> = {
  text: 'text',
  number: 'a number',
  integer: 'a whole number',
  percent: 'a percentage (12.5 means 12.5%)',
  currency: 'US dollars, whole',
  date: 'a date',
  list: `a list, items separated by "${LIST_SEPARATOR}"`,
  url: 'a URL',
  enum: 'one of a fixed set of values',
  boolean: 'true or false',
};

const POLICY_NOTES: Record<MappingField['policy'], string> = {
  overwrite: 'kept current on every enrichment',
  'fill-empty': 'written only while the field is empty',
  ours: 'updated on every enrichment unless somebody else changed it',
};

export function fieldDefinition(field: MappingField): FieldDefinition {
  const options = enumOptionValues(field);
  const sourceLabel = BUYER_FIELD_LABELS[field.attribute];
  const definition: FieldDefinition = {
    name: field.property,
    label: field.label ?? sourceLabel,
    type: options !== null ? 'enumeration' : FIELD_TYPES[field.transform],
    description:
      `Buyer Intelligence attribute ${field.attribute} (${sourceLabel}): ${TRANSFORM_NOTES[field.transform]}; ` +
      `${POLICY_NOTES[field.policy ?? 'ours']}.`,
  };
  if (options !== null) definition.options = options.map((value) => ({ value, label: value }));
  return definition;
}

/** The provenance fields: which buyer the account matched, how sure, why, and when. */
export const PROVENANCE_FIELD_DEFINITIONS: readonly FieldDefinition[] = [
  {
    name: PROVENANCE_FIELDS.buyerId,
    label: 'Buyer Intel Buyer ID',
    type: 'string',
    description:
      'The id of the public-sector buyer this account matched. Set it by hand to pin the account to a buyer.',
  },
  {
    name: PROVENANCE_FIELDS.buyerName,
    label: 'Buyer Intel Buyer Name',
    type: 'string',
    description: 'The name of the public-sector buyer this account matched.',
  },
  {
    name: PROVENANCE_FIELDS.matchConfidence,
    label: 'Buyer Intel Match Confidence',
    type: 'number',
    description: 'How sure the match is, from 0 to 1.',
  },
  {
    name: PROVENANCE_FIELDS.status,
    label: 'Buyer Intel Status',
    type: 'enumeration',
    description: 'The outcome of the last enrichment.',
    options: ENRICH_STATUSES.map((value) => ({ value, label: ENRICH_STATUS_LABELS[value] })),
  },
  {
    name: PROVENANCE_FIELDS.matchReason,
    label: 'Buyer Intel Match Reason',
    type: 'text',
    description: 'Why the account matched its buyer, or why it did not.',
  },
  {
    name: PROVENANCE_FIELDS.candidates,
    label: 'Buyer Intel Candidates',
    type: 'text',
    description: 'When the match needs review: the candidate buyers, one a line.',
  },
  {
    name: PROVENANCE_FIELDS.lastEnrichedAt,
    label: 'Buyer Intel Last Enriched At',
    type: 'datetime',
    description: 'When the account was last enriched.',
  },
  {
    name: PROVENANCE_FIELDS.duplicateOf,
    label: 'Buyer Intel Duplicate Of',
    type: 'string',
    description:
      "Set when another account resolved to the same buyer holds stronger evidence: that account's record id. Nothing is merged or deleted.",
  },
];

/** Every field `setup` creates for a mapping: the mapped fields, in order, then the provenance fields. */
export function fieldDefinitions(mapping: Mapping): FieldDefinition[] {
  return [...mapping.fields.map(fieldDefinition), ...PROVENANCE_FIELD_DEFINITIONS.map((d) => ({ ...d }))];
}
