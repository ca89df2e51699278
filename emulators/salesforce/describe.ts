// GET /services/data/vXX.X/sobjects/{type}/describe: an object's fields as the REST guide's "sObject
// Describe" answers them (a DescribeSObjectResult, its `fields` Field results as the SOAP API's
// describeSObjects documents them). Only the members a client reads to decide what it may write are
// filled: name, label, type, length / precision / scale, nillable (false for a Checkbox, a required or
// a system field), createable / updateable (false for a system field and for one the integration user
// has no Edit on: describe honours field-level security), defaultValue, custom.
import type { FieldSpec } from './field-types.ts';
import { KEY_PREFIXES } from './ids.ts';
import type { FieldInfo, SalesforceStore, SObjectType } from './store.ts';

export interface DescribedField {
  name: string;
  label: string;
  type: string;
  length: number;
  precision: number;
  scale: number;
  nillable: boolean;
  createable: boolean;
  updateable: boolean;
  defaultValue: string | number | boolean | null;
  custom: boolean;
}

/** Text up to 255 characters is `string`, longer `textarea` (Salesforce's long text areas). */
function typeOf(field: FieldInfo): { type: string; length: number; precision: number; scale: number } {
  const plain = { length: 0, precision: 0, scale: 0 };
  const spec: FieldSpec | undefined = field.spec;
  if (field.name === 'Id') return { type: 'id', ...plain, length: 18 };
  if (field.base64) return { type: 'base64', ...plain };
  switch (spec?.kind) {
    case 'text':
      return { type: spec.length > 255 ? 'textarea' : 'string', ...plain, length: spec.length };
    case 'number':
      return { type: 'double', ...plain, precision: spec.precision, scale: spec.scale };
    case 'date':
      return { type: 'date', ...plain };
    case 'datetime':
      return { type: 'datetime', ...plain };
    case 'checkbox':
      return { type: 'boolean', ...plain };
    case 'picklist':
      return { type: 'picklist', ...plain, length: 255 };
    default:
      // Spec-less fields named …Id are references (OwnerId, WhatId, ContentDocumentId …).
      return /Id$/.test(field.name)
        ? { type: 'reference', ...plain, length: 18 }
        : { type: 'string', ...plain };
  }
}

export function describeFields(fields: readonly FieldInfo[]): DescribedField[] {
  return fields.map((f) => {
    const kind = typeOf(f);
    const writable = !f.system && f.editable;
    return {
      name: f.name,
      label: f.label,
      ...kind,
      nillable: !(kind.type === 'boolean' || kind.type === 'id' || f.required || f.system),
      createable: writable,
      updateable: writable && !f.createOnly,
      defaultValue: kind.type === 'boolean' ? (f.default ?? false) : (f.default ?? null),
      custom: f.custom,
    };
  });
}

export function describeSObject(store: SalesforceStore, type: SObjectType) {
  return {
    name: type,
    label: type,
    custom: false,
    keyPrefix: KEY_PREFIXES[type],
    createable: type !== 'ContentDocument',
    updateable: true,
    deletable: type !== 'ContentVersion' && type !== 'User',
    queryable: true,
    fields: describeFields(store.fieldInfo(type)),
  };
}
