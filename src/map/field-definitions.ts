// The CRM fields `setup` creates: one per mapped field, typed from its transform, plus our provenance
// fields (the same for every mapping), plus the id fields a connector reads that are ours.
import type { AccountIdField, AccountIdKind, FieldDefinition, FieldType } from '../../connectors/types.ts';
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

const ID_FIELD_TEXT: Record<AccountIdKind, { label: string; description: string }> = {
  nces: {
    label: 'Buyer Intel Match NCES ID',
    description:
      'An NCES id this account is known by: 7 digits for a school district, 12 for a school (keep the leading zeros). Enrichment matches the account to the buyer with that id before trying its name.',
  },
  ipeds: {
    label: 'Buyer Intel Match IPEDS ID',
    description:
      "An IPEDS id (the college's 6-digit UNITID). Enrichment matches the account to the buyer with that id before trying its name.",
  },
  census: {
    label: 'Buyer Intel Match Census ID',
    description:
      'A Census of Governments id: the 6-digit PID6 or the 14-digit GID (keep the leading zeros). Enrichment matches the account to the buyer with that id before trying its name.',
  },
  buyer: {
    label: 'Buyer Intel Match Buyer ID',
    description:
      'The Buyer Intelligence buyer this account is, if you know its id. Enrichment checks it with the API and matches the account to it; unlike Buyer Intel Buyer ID, which enrichment writes, this field is yours.',
  },
};

/** Comparable across CRMs: `buyer_intel_nces_id` and `BuyerIntel_NcesId__c` are the same field. */
const fieldKey = (name: string) =>
  name
    .toLowerCase()
    .replace(/__c$/, '')
    .replace(/[^a-z0-9]/g, '')
    .replace(/^buyerintel/, '');

/**
 * The id fields `setup` creates (text, ours only: a field a customer named is theirs, and a missing one
 * is a typo to fix, not a field to make), and a problem for each id field that is also a field
 * enrichment writes — an id read back from what enrichment wrote would match the last match again.
 */
export function idFieldDefinitions(
  fields: readonly AccountIdField[],
  mapping: Mapping,
): { definitions: FieldDefinition[]; problems: string[] } {
  const written = new Map(fieldDefinitions(mapping).map((d) => [fieldKey(d.name), d.name]));
  const problems = fields.flatMap((f) => {
    const clash = written.get(fieldKey(f.name));
    return clash
      ? [`the ${f.kind} id field ${f.name} is the field enrichment writes as ${clash}: name another one`]
      : [];
  });
  const definitions = fields
    .filter((f) => f.ours)
    .map((f): FieldDefinition => ({ name: f.name, type: 'string', ...ID_FIELD_TEXT[f.kind] }));
  return { definitions, problems };
}
