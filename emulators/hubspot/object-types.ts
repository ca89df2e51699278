// The CRM object types the sandbox holds and the association types between them. Type ids from the
// "Using object APIs" guide (companies 0-2, notes 0-46, tasks 0-27); association type ids from the
// associations v4 guide (company→note 189, note→company 190, company→task 191, task→company 192, all
// HUBSPOT_DEFINED and unlabelled).

export type ObjectType = 'companies' | 'notes' | 'tasks';

export interface ObjectTypeInfo {
  name: ObjectType;
  typeId: string;
  singular: string;
  /** The upper-case name HubSpot uses in messages ("COMPANY=123 is not valid"). */
  upper: string;
  /** The property holding the creation time (companies: createdate, activities: hs_createdate). */
  createdateProperty: string;
  /** Returned by GET / list / search when no `properties` are requested (search guide's table). */
  defaultProperties: string[];
  /** Searched by the `query` of a search request. */
  searchableProperties: string[];
}

export const OBJECT_TYPES: Record<ObjectType, ObjectTypeInfo> = {
  companies: {
    name: 'companies',
    typeId: '0-2',
    singular: 'company',
    upper: 'COMPANY',
    createdateProperty: 'createdate',
    defaultProperties: ['createdate', 'domain', 'hs_lastmodifieddate', 'hs_object_id', 'name'],
    searchableProperties: ['name', 'domain', 'website', 'phone'],
  },
  notes: {
    name: 'notes',
    typeId: '0-46',
    singular: 'note',
    upper: 'NOTE',
    createdateProperty: 'hs_createdate',
    defaultProperties: ['hs_createdate', 'hs_lastmodifieddate', 'hs_object_id'],
    searchableProperties: ['hs_note_body'],
  },
  tasks: {
    name: 'tasks',
    typeId: '0-27',
    singular: 'task',
    upper: 'TASK',
    createdateProperty: 'hs_createdate',
    defaultProperties: ['hs_createdate', 'hs_lastmodifieddate', 'hs_object_id'],
    searchableProperties: ['hs_task_subject', 'hs_task_body'],
  },
};

/** Path segments HubSpot accepts for an object type: plural, singular or type id. */
export function resolveObjectType(raw: string | undefined): ObjectType | undefined {
  const key = (raw ?? '').toLowerCase();
  for (const info of Object.values(OBJECT_TYPES)) {
    if (key === info.name || key === info.singular || key === info.typeId) return info.name;
  }
  return undefined;
}

export type AssociationCategory = 'HUBSPOT_DEFINED' | 'USER_DEFINED' | 'INTEGRATOR_DEFINED';

export interface AssociationTypeDef {
  from: ObjectType;
  to: ObjectType;
  typeId: number;
  category: AssociationCategory;
  /** Null for HubSpot's unlabelled default association types. */
  label: string | null;
  /** The v3 name shown in `associations` of a record ("company_to_note"). */
  name: string;
  inverseTypeId: number;
}

export const ASSOCIATION_TYPES: AssociationTypeDef[] = [
  {
    from: 'companies',
    to: 'notes',
    typeId: 189,
    category: 'HUBSPOT_DEFINED',
    label: null,
    name: 'company_to_note',
    inverseTypeId: 190,
  },
  {
    from: 'notes',
    to: 'companies',
    typeId: 190,
    category: 'HUBSPOT_DEFINED',
    label: null,
    name: 'note_to_company',
    inverseTypeId: 189,
  },
  {
    from: 'companies',
    to: 'tasks',
    typeId: 191,
    category: 'HUBSPOT_DEFINED',
    label: null,
    name: 'company_to_task',
    inverseTypeId: 192,
  },
  {
    from: 'tasks',
    to: 'companies',
    typeId: 192,
    category: 'HUBSPOT_DEFINED',
    label: null,
    name: 'task_to_company',
    inverseTypeId: 191,
  },
];

export function associationType(typeId: number, category: string): AssociationTypeDef | undefined {
  return ASSOCIATION_TYPES.find((t) => t.typeId === typeId && t.category === category);
}

/** The unlabelled default type from one object type to another, if they can be associated. */
export function defaultAssociationType(from: ObjectType, to: ObjectType): AssociationTypeDef | undefined {
  return ASSOCIATION_TYPES.find((t) => t.from === from && t.to === to && t.label === null);
}
