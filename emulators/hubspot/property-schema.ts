// Validation of property and property-group definitions sent to the properties API (PropertyCreate and
// PropertyGroupCreate in properties-v3.json: name, label, type, fieldType and groupName are required).
import {
  FIELD_TYPES,
  type FieldType,
  PROPERTY_TYPES,
  type PropertyDefinition,
  type PropertyGroup,
  type PropertyOption,
  type PropertyType,
} from './default-properties.ts';
import { validationError } from './errors.ts';

/** Field types HubSpot accepts for each property type. */
const FIELD_TYPES_FOR: Record<PropertyType, readonly FieldType[]> = {
  string: ['text', 'textarea', 'html', 'phonenumber', 'file'],
  number: ['number', 'calculation_equation'],
  date: ['date'],
  datetime: ['date'],
  enumeration: ['select', 'radio', 'checkbox', 'booleancheckbox', 'calculation_equation'],
  bool: ['booleancheckbox', 'calculation_equation'],
  phone_number: ['phonenumber'],
};

const NAME = /^[a-z][a-z0-9_]*$/;

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

function requireString(body: Record<string, unknown>, field: string): string {
  const value = body[field];
  if (typeof value !== 'string' || value.trim() === '') {
    throw validationError(`${field} can not be null or empty`);
  }
  return value;
}

export function buildPropertyDefinition(
  body: unknown,
  groups: ReadonlyMap<string, PropertyGroup>,
  now: string,
): PropertyDefinition {
  if (!isRecord(body)) throw validationError('Invalid input JSON: expected a property definition object');
  const name = requireString(body, 'name');
  const label = requireString(body, 'label');
  const type = requireString(body, 'type');
  const fieldType = requireString(body, 'fieldType');
  const groupName = requireString(body, 'groupName');
  if (!NAME.test(name)) {
    throw validationError(
      `Property name ${name} is invalid: names must start with a lowercase letter and contain only lowercase letters, numbers and underscores`,
    );
  }
  if (!(PROPERTY_TYPES as readonly string[]).includes(type)) {
    throw validationError(`Unknown property type ${type}; allowed: ${PROPERTY_TYPES.join(', ')}`);
  }
  if (!(FIELD_TYPES as readonly string[]).includes(fieldType)) {
    throw validationError(`Unknown field type ${fieldType}; allowed: ${FIELD_TYPES.join(', ')}`);
  }
  const allowed = FIELD_TYPES_FOR[type as PropertyType];
  if (!allowed.includes(fieldType as FieldType)) {
    throw validationError(
      `Field type ${fieldType} is not valid for property type ${type}; allowed: ${allowed.join(', ')}`,
    );
  }
  if (!groups.has(groupName)) throw validationError(`Property group ${groupName} does not exist`);
  const options = parseOptions(body.options);
  if ((type === 'enumeration' || type === 'bool') && options.length === 0 && body.externalOptions !== true) {
    throw validationError(`Enumeration property ${name} must define options`);
  }
  const bool = (field: string, fallback: boolean) =>
    typeof body[field] === 'boolean' ? (body[field] as boolean) : fallback;
  return {
    name,
    label,
    type: type as PropertyType,
    fieldType: fieldType as FieldType,
    description: typeof body.description === 'string' ? body.description : '',
    groupName,
    options,
    displayOrder: typeof body.displayOrder === 'number' ? body.displayOrder : -1,
    calculated: false,
    externalOptions: bool('externalOptions', false),
    hasUniqueValue: bool('hasUniqueValue', false),
    hidden: bool('hidden', false),
    ...(type === 'number' ? { showCurrencySymbol: bool('showCurrencySymbol', false) } : {}),
    ...(typeof body.numberDisplayHint === 'string' ? { numberDisplayHint: body.numberDisplayHint } : {}),
    modificationMetadata: { archivable: true, readOnlyDefinition: false, readOnlyValue: false },
    formField: bool('formField', false),
    dataSensitivity: 'non_sensitive',
    createdAt: now,
    updatedAt: now,
    archived: false,
  };
}

function parseOptions(raw: unknown): PropertyOption[] {
  if (raw === undefined || raw === null) return [];
  if (!Array.isArray(raw)) throw validationError('options must be an array');
  return raw.map((o, i) => {
    if (!isRecord(o) || typeof o.label !== 'string' || typeof o.value !== 'string') {
      throw validationError('every option needs a label and a value');
    }
    return {
      label: o.label,
      value: o.value,
      ...(typeof o.description === 'string' ? { description: o.description } : {}),
      displayOrder: typeof o.displayOrder === 'number' ? o.displayOrder : i,
      hidden: o.hidden === true,
    };
  });
}

export function buildPropertyGroup(body: unknown): PropertyGroup {
  if (!isRecord(body)) throw validationError('Invalid input JSON: expected a property group object');
  const name = requireString(body, 'name');
  const label = requireString(body, 'label');
  if (!NAME.test(name)) {
    throw validationError(
      `Property group name ${name} is invalid: names must start with a lowercase letter and contain only lowercase letters, numbers and underscores`,
    );
  }
  return {
    name,
    label,
    displayOrder: typeof body.displayOrder === 'number' ? body.displayOrder : -1,
    archived: false,
  };
}
