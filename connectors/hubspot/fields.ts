// Our FieldDefinitions as HubSpot company property definitions (POST /crm/v3/properties/companies),
// and `ensureFields`, which creates them and their property group where missing.
// HubSpot has no URL property type: URLs are single-line text.

import type { EnsureFieldsResult, FieldDefinition, FieldLimits, FieldType } from '../types.ts';
import type { HubSpotCalls } from './client.ts';
import { isStatus } from './errors.ts';

/** HubSpot holds at most 65,536 characters in a string property; its numbers have no declared precision. */
export const HUBSPOT_FIELD_LIMITS: FieldLimits = { stringLength: 65_536, textLength: 65_536 };

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

type PropertyCreate = Parameters<HubSpotCalls['properties']['coreApi']['createWithHttpInfo']>[1];

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

/** Idempotent: a group or property that exists already (409, even one created meanwhile) is left as is. */
export async function ensureFields(
  calls: HubSpotCalls,
  group: { name: string; label: string },
  definitions: readonly FieldDefinition[],
): Promise<EnsureFieldsResult> {
  try {
    await calls.call('crm.properties.groupsApi.create', () =>
      calls.properties.groupsApi.createWithHttpInfo('companies', {
        name: group.name,
        label: group.label,
        displayOrder: -1,
      }),
    );
  } catch (err) {
    if (!isStatus(err, 409)) throw err; // 409: the group exists
  }
  const { data } = await calls.call('crm.properties.coreApi.getAll', () =>
    calls.properties.coreApi.getAllWithHttpInfo('companies', false),
  );
  const existingNames = new Set((data.results ?? []).map((p) => p.name));
  const created: string[] = [];
  const existing: string[] = [];
  const seen = new Set<string>();
  for (const definition of definitions) {
    if (seen.has(definition.name)) continue;
    seen.add(definition.name);
    if (existingNames.has(definition.name)) {
      existing.push(definition.name);
      continue;
    }
    const def = toPropertyDefinition(definition, group.name);
    const property: PropertyCreate = {
      ...def,
      type: def.type as PropertyCreate['type'],
      fieldType: def.fieldType as PropertyCreate['fieldType'],
    };
    try {
      await calls.call('crm.properties.coreApi.create', () =>
        calls.properties.coreApi.createWithHttpInfo('companies', property),
      );
      created.push(definition.name);
    } catch (err) {
      if (!isStatus(err, 409)) throw err; // created meanwhile by someone else
      existing.push(definition.name);
    }
  }
  return { created, existing };
}
