// Our FieldDefinitions as HubSpot company property definitions (POST /crm/v3/properties/companies).
// HubSpot has no URL property type: URLs are single-line text.

import type { FieldDefinition, FieldType } from '../types.ts';

export interface HubSpotPropertyDefinition {
  name: string;
  label: string;
  description: string;
  groupName: string;
  type: 'string' | 'number' | 'date' | 'datetime' | 'enumeration' | 'bool';
  fieldType: 'text' | 'textarea' | 'number' | 'date' | 'select' | 'booleancheckbox';
  options?: { label: string; value: string; displayOrder: number; hidden: boolean }[];
  formField: boolean;
}

const TYPES: Record<FieldType, Pick<HubSpotPropertyDefinition, 'type' | 'fieldType'>> = {
  string: { type: 'string', fieldType: 'text' },
  text: { type: 'string', fieldType: 'textarea' },
  number: { type: 'number', fieldType: 'number' },
  date: { type: 'date', fieldType: 'date' },
  datetime: { type: 'datetime', fieldType: 'date' },
  enumeration: { type: 'enumeration', fieldType: 'select' },
  bool: { type: 'bool', fieldType: 'booleancheckbox' },
  url: { type: 'string', fieldType: 'text' },
};

const BOOL_OPTIONS = [
  { label: 'Yes', value: 'true', displayOrder: 0, hidden: false },
  { label: 'No', value: 'false', displayOrder: 1, hidden: false },
];

export function toPropertyDefinition(field: FieldDefinition, groupName: string): HubSpotPropertyDefinition {
  const { type, fieldType } = TYPES[field.type];
  const options =
    field.type === 'bool'
      ? BOOL_OPTIONS
      : field.type === 'enumeration'
        ? (field.options ?? []).map((o, i) => ({
            label: o.label,
            value: o.value,
            displayOrder: i,
            hidden: false,
          }))
        : undefined;
  return {
    name: field.name,
    label: field.label,
    description: field.description,
    groupName,
    type,
    fieldType,
    ...(options ? { options } : {}),
    formField: false,
  };
}
