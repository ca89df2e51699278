// The HubSpot-defined properties and property groups a new portal starts with, for the object types the
// sandbox holds. Names, types and field types follow HubSpot's defaults; `industry` carries HubSpot's
// fixed option list, so writing a value outside it fails with INVALID_OPTION as it does in HubSpot.
import type { ObjectType } from './object-types.ts';

export type PropertyType =
  | 'string'
  | 'number'
  | 'date'
  | 'datetime'
  | 'enumeration'
  | 'bool'
  | 'phone_number';
export type FieldType =
  | 'booleancheckbox'
  | 'calculation_equation'
  | 'checkbox'
  | 'date'
  | 'file'
  | 'html'
  | 'number'
  | 'phonenumber'
  | 'radio'
  | 'select'
  | 'text'
  | 'textarea';

export const PROPERTY_TYPES: readonly PropertyType[] = [
  'bool',
  'date',
  'datetime',
  'enumeration',
  'number',
  'phone_number',
  'string',
];
export const FIELD_TYPES: readonly FieldType[] = [
  'booleancheckbox',
  'calculation_equation',
  'checkbox',
  'date',
  'file',
  'html',
  'number',
  'phonenumber',
  'radio',
  'select',
  'text',
  'textarea',
];

export interface PropertyOption {
  label: string;
  value: string;
  description?: string;
  displayOrder: number;
  hidden: boolean;
}

export interface PropertyDefinition {
  name: string;
  label: string;
  type: PropertyType;
  fieldType: FieldType;
  description: string;
  groupName: string;
  options: PropertyOption[];
  displayOrder: number;
  calculated: boolean;
  externalOptions: boolean;
  hasUniqueValue: boolean;
  hidden: boolean;
  hubspotDefined?: boolean;
  showCurrencySymbol?: boolean;
  numberDisplayHint?: string;
  modificationMetadata: {
    archivable: boolean;
    readOnlyDefinition: boolean;
    readOnlyValue: boolean;
    readOnlyOptions?: boolean;
  };
  formField: boolean;
  dataSensitivity: 'non_sensitive' | 'sensitive' | 'highly_sensitive';
  createdAt: string;
  updatedAt: string;
  archived: boolean;
}

export interface PropertyGroup {
  name: string;
  label: string;
  displayOrder: number;
  archived: boolean;
}

const DEFINED_AT = '2019-08-06T02:41:08.029Z';

interface Spec {
  name: string;
  label: string;
  type: PropertyType;
  fieldType: FieldType;
  groupName: string;
  description?: string;
  options?: string[] | [string, string][];
  readOnlyValue?: boolean;
  externalOptions?: boolean;
  numberDisplayHint?: string;
}

function define(spec: Spec, displayOrder: number): PropertyDefinition {
  const options = (spec.options ?? []).map((o, i) => {
    const [value, label] = Array.isArray(o) ? o : [o, titleCase(o)];
    return { label, value, displayOrder: i, hidden: false };
  });
  return {
    name: spec.name,
    label: spec.label,
    type: spec.type,
    fieldType: spec.fieldType,
    description: spec.description ?? '',
    groupName: spec.groupName,
    options,
    displayOrder,
    calculated: false,
    externalOptions: spec.externalOptions ?? false,
    hasUniqueValue: false,
    hidden: false,
    hubspotDefined: true,
    ...(spec.type === 'number' ? { showCurrencySymbol: spec.numberDisplayHint === 'currency' } : {}),
    ...(spec.numberDisplayHint ? { numberDisplayHint: spec.numberDisplayHint } : {}),
    modificationMetadata: {
      archivable: false,
      readOnlyDefinition: true,
      readOnlyValue: spec.readOnlyValue ?? false,
    },
    formField: !spec.readOnlyValue,
    dataSensitivity: 'non_sensitive',
    createdAt: DEFINED_AT,
    updatedAt: DEFINED_AT,
    archived: false,
  };
}

function titleCase(value: string): string {
  return value
    .toLowerCase()
    .split('_')
    .map((w) => (w ? (w[0] ?? '').toUpperCase() + w.slice(1) : w))
    .join(' ');
}

/** HubSpot's `industry` option values (the LinkedIn-derived list HubSpot ships with every portal). */
export const INDUSTRY_OPTIONS = [
  'ACCOUNTING',
  'AIRLINES_AVIATION',
  'ALTERNATIVE_DISPUTE_RESOLUTION',
  'ALTERNATIVE_MEDICINE',
  'ANIMATION',
  'APPAREL_FASHION',
  'ARCHITECTURE_PLANNING',
  'ARTS_AND_CRAFTS',
  'AUTOMOTIVE',
  'AVIATION_AEROSPACE',
  'BANKING',
  'BIOTECHNOLOGY',
  'BROADCAST_MEDIA',
  'BUILDING_MATERIALS',
  'BUSINESS_SUPPLIES_AND_EQUIPMENT',
  'CAPITAL_MARKETS',
  'CHEMICALS',
  'CIVIC_SOCIAL_ORGANIZATION',
  'CIVIL_ENGINEERING',
  'COMMERCIAL_REAL_ESTATE',
  'COMPUTER_NETWORK_SECURITY',
  'COMPUTER_GAMES',
  'COMPUTER_HARDWARE',
  'COMPUTER_NETWORKING',
  'COMPUTER_SOFTWARE',
  'INTERNET',
  'CONSTRUCTION',
  'CONSUMER_ELECTRONICS',
  'CONSUMER_GOODS',
  'CONSUMER_SERVICES',
  'COSMETICS',
  'DAIRY',
  'DEFENSE_SPACE',
  'DESIGN',
  'EDUCATION_MANAGEMENT',
  'E_LEARNING',
  'ELECTRICAL_ELECTRONIC_MANUFACTURING',
  'ENTERTAINMENT',
  'ENVIRONMENTAL_SERVICES',
  'EVENTS_SERVICES',
  'EXECUTIVE_OFFICE',
  'FACILITIES_SERVICES',
  'FARMING',
  'FINANCIAL_SERVICES',
  'FINE_ART',
  'FISHERY',
  'FOOD_BEVERAGES',
  'FOOD_PRODUCTION',
  'FUND_RAISING',
  'FURNITURE',
  'GAMBLING_CASINOS',
  'GLASS_CERAMICS_CONCRETE',
  'GOVERNMENT_ADMINISTRATION',
  'GOVERNMENT_RELATIONS',
  'GRAPHIC_DESIGN',
  'HEALTH_WELLNESS_AND_FITNESS',
  'HIGHER_EDUCATION',
  'HOSPITAL_HEALTH_CARE',
  'HOSPITALITY',
  'HUMAN_RESOURCES',
  'IMPORT_AND_EXPORT',
  'INDIVIDUAL_FAMILY_SERVICES',
  'INDUSTRIAL_AUTOMATION',
  'INFORMATION_SERVICES',
  'INFORMATION_TECHNOLOGY_AND_SERVICES',
  'INSURANCE',
  'INTERNATIONAL_AFFAIRS',
  'INTERNATIONAL_TRADE_AND_DEVELOPMENT',
  'INVESTMENT_BANKING',
  'INVESTMENT_MANAGEMENT',
  'JUDICIARY',
  'LAW_ENFORCEMENT',
  'LAW_PRACTICE',
  'LEGAL_SERVICES',
  'LEGISLATIVE_OFFICE',
  'LEISURE_TRAVEL_TOURISM',
  'LIBRARIES',
  'LOGISTICS_AND_SUPPLY_CHAIN',
  'LUXURY_GOODS_JEWELRY',
  'MACHINERY',
  'MANAGEMENT_CONSULTING',
  'MARITIME',
  'MARKET_RESEARCH',
  'MARKETING_AND_ADVERTISING',
  'MECHANICAL_OR_INDUSTRIAL_ENGINEERING',
  'MEDIA_PRODUCTION',
  'MEDICAL_DEVICES',
  'MEDICAL_PRACTICE',
  'MENTAL_HEALTH_CARE',
  'MILITARY',
  'MINING_METALS',
  'MOTION_PICTURES_AND_FILM',
  'MUSEUMS_AND_INSTITUTIONS',
  'MUSIC',
  'NANOTECHNOLOGY',
  'NEWSPAPERS',
  'NON_PROFIT_ORGANIZATION_MANAGEMENT',
  'OIL_ENERGY',
  'ONLINE_MEDIA',
  'OUTSOURCING_OFFSHORING',
  'PACKAGE_FREIGHT_DELIVERY',
  'PACKAGING_AND_CONTAINERS',
  'PAPER_FOREST_PRODUCTS',
  'PERFORMING_ARTS',
  'PHARMACEUTICALS',
  'PHILANTHROPY',
  'PHOTOGRAPHY',
  'PLASTICS',
  'POLITICAL_ORGANIZATION',
  'PRIMARY_SECONDARY_EDUCATION',
  'PRINTING',
  'PROFESSIONAL_TRAINING_COACHING',
  'PROGRAM_DEVELOPMENT',
  'PUBLIC_POLICY',
  'PUBLIC_RELATIONS_AND_COMMUNICATIONS',
  'PUBLIC_SAFETY',
  'PUBLISHING',
  'RAILROAD_MANUFACTURE',
  'RANCHING',
  'REAL_ESTATE',
  'RECREATIONAL_FACILITIES_AND_SERVICES',
  'RELIGIOUS_INSTITUTIONS',
  'RENEWABLES_ENVIRONMENT',
  'RESEARCH',
  'RESTAURANTS',
  'RETAIL',
  'SECURITY_AND_INVESTIGATIONS',
  'SEMICONDUCTORS',
  'SHIPBUILDING',
  'SPORTING_GOODS',
  'SPORTS',
  'STAFFING_AND_RECRUITING',
  'SUPERMARKETS',
  'TELECOMMUNICATIONS',
  'TEXTILES',
  'THINK_TANKS',
  'TOBACCO',
  'TRANSLATION_AND_LOCALIZATION',
  'TRANSPORTATION_TRUCKING_RAILROAD',
  'UTILITIES',
  'VENTURE_CAPITAL_PRIVATE_EQUITY',
  'VETERINARY',
  'WAREHOUSING',
  'WHOLESALE',
  'WINE_AND_SPIRITS',
  'WIRELESS',
  'WRITING_AND_EDITING',
  'MOBILE_GAMES',
];

const COMPANY_SPECS: Spec[] = [
  { name: 'name', label: 'Company name', type: 'string', fieldType: 'text', groupName: 'companyinformation' },
  {
    name: 'domain',
    label: 'Company Domain Name',
    type: 'string',
    fieldType: 'text',
    groupName: 'companyinformation',
  },
  {
    name: 'website',
    label: 'Website URL',
    type: 'string',
    fieldType: 'text',
    groupName: 'companyinformation',
  },
  {
    name: 'description',
    label: 'Description',
    type: 'string',
    fieldType: 'textarea',
    groupName: 'companyinformation',
  },
  {
    name: 'phone',
    label: 'Phone Number',
    type: 'string',
    fieldType: 'phonenumber',
    groupName: 'companyinformation',
  },
  {
    name: 'address',
    label: 'Street Address',
    type: 'string',
    fieldType: 'text',
    groupName: 'companyinformation',
  },
  {
    name: 'address2',
    label: 'Street Address 2',
    type: 'string',
    fieldType: 'text',
    groupName: 'companyinformation',
  },
  { name: 'city', label: 'City', type: 'string', fieldType: 'text', groupName: 'companyinformation' },
  {
    name: 'state',
    label: 'State/Region',
    type: 'string',
    fieldType: 'text',
    groupName: 'companyinformation',
  },
  { name: 'zip', label: 'Postal Code', type: 'string', fieldType: 'text', groupName: 'companyinformation' },
  {
    name: 'country',
    label: 'Country/Region',
    type: 'string',
    fieldType: 'text',
    groupName: 'companyinformation',
  },
  {
    name: 'industry',
    label: 'Industry',
    type: 'enumeration',
    fieldType: 'select',
    groupName: 'companyinformation',
    options: INDUSTRY_OPTIONS,
  },
  {
    name: 'numberofemployees',
    label: 'Number of Employees',
    type: 'number',
    fieldType: 'number',
    groupName: 'companyinformation',
  },
  {
    name: 'annualrevenue',
    label: 'Annual Revenue',
    type: 'number',
    fieldType: 'number',
    groupName: 'companyinformation',
    numberDisplayHint: 'currency',
  },
  {
    name: 'type',
    label: 'Type',
    type: 'enumeration',
    fieldType: 'select',
    groupName: 'companyinformation',
    options: [
      ['PROSPECT', 'Prospect'],
      ['PARTNER', 'Partner'],
      ['RESELLER', 'Reseller'],
      ['VENDOR', 'Vendor'],
      ['OTHER', 'Other'],
    ],
  },
  {
    name: 'lifecyclestage',
    label: 'Lifecycle Stage',
    type: 'enumeration',
    fieldType: 'radio',
    groupName: 'companyinformation',
    options: [
      ['subscriber', 'Subscriber'],
      ['lead', 'Lead'],
      ['marketingqualifiedlead', 'Marketing Qualified Lead'],
      ['salesqualifiedlead', 'Sales Qualified Lead'],
      ['opportunity', 'Opportunity'],
      ['customer', 'Customer'],
      ['evangelist', 'Evangelist'],
      ['other', 'Other'],
    ],
  },
  {
    name: 'founded_year',
    label: 'Year Founded',
    type: 'string',
    fieldType: 'text',
    groupName: 'companyinformation',
  },
  {
    name: 'timezone',
    label: 'Time Zone',
    type: 'string',
    fieldType: 'text',
    groupName: 'companyinformation',
  },
  {
    name: 'linkedin_company_page',
    label: 'LinkedIn Company Page',
    type: 'string',
    fieldType: 'text',
    groupName: 'socialmediainformation',
  },
  {
    name: 'hubspot_owner_id',
    label: 'Company owner',
    type: 'enumeration',
    fieldType: 'select',
    groupName: 'companyinformation',
    externalOptions: true,
  },
  {
    name: 'createdate',
    label: 'Create Date',
    type: 'datetime',
    fieldType: 'date',
    groupName: 'companyinformation',
  },
  {
    name: 'hs_lastmodifieddate',
    label: 'Last Modified Date',
    type: 'datetime',
    fieldType: 'date',
    groupName: 'companyinformation',
    readOnlyValue: true,
  },
  {
    name: 'hs_object_id',
    label: 'Record ID',
    type: 'number',
    fieldType: 'number',
    groupName: 'companyinformation',
    readOnlyValue: true,
  },
  {
    name: 'notes_last_updated',
    label: 'Last Activity Date',
    type: 'datetime',
    fieldType: 'date',
    groupName: 'company_activity',
    readOnlyValue: true,
  },
];

const NOTE_SPECS: Spec[] = [
  {
    name: 'hs_timestamp',
    label: 'Activity date',
    type: 'datetime',
    fieldType: 'date',
    groupName: 'engagement',
  },
  { name: 'hs_note_body', label: 'Note body', type: 'string', fieldType: 'html', groupName: 'engagement' },
  {
    name: 'hubspot_owner_id',
    label: 'Activity assigned to',
    type: 'enumeration',
    fieldType: 'select',
    groupName: 'engagement',
    externalOptions: true,
  },
  {
    name: 'hs_attachment_ids',
    label: 'Attachment IDs',
    type: 'enumeration',
    fieldType: 'checkbox',
    groupName: 'engagement',
    externalOptions: true,
  },
  {
    name: 'hs_createdate',
    label: 'Created at',
    type: 'datetime',
    fieldType: 'date',
    groupName: 'engagement',
  },
  {
    name: 'hs_lastmodifieddate',
    label: 'Last modified date',
    type: 'datetime',
    fieldType: 'date',
    groupName: 'engagement',
    readOnlyValue: true,
  },
  {
    name: 'hs_object_id',
    label: 'Record ID',
    type: 'number',
    fieldType: 'number',
    groupName: 'engagement',
    readOnlyValue: true,
  },
];

// The task properties of the tasks guide: hs_timestamp is the due date and required; status, priority
// and type are enumerations with HubSpot's values; hubspot_owner_id names the assigned user.
const TASK_SPECS: Spec[] = [
  { name: 'hs_timestamp', label: 'Due date', type: 'datetime', fieldType: 'date', groupName: 'task' },
  { name: 'hs_task_subject', label: 'Task Title', type: 'string', fieldType: 'text', groupName: 'task' },
  { name: 'hs_task_body', label: 'Notes', type: 'string', fieldType: 'html', groupName: 'task' },
  {
    name: 'hs_task_status',
    label: 'Task Status',
    type: 'enumeration',
    fieldType: 'select',
    groupName: 'task',
    options: [
      ['NOT_STARTED', 'Not started'],
      ['IN_PROGRESS', 'In progress'],
      ['WAITING', 'Waiting'],
      ['COMPLETED', 'Completed'],
      ['DEFERRED', 'Deferred'],
    ],
  },
  {
    name: 'hs_task_priority',
    label: 'Priority',
    type: 'enumeration',
    fieldType: 'select',
    groupName: 'task',
    options: [
      ['NONE', 'None'],
      ['LOW', 'Low'],
      ['MEDIUM', 'Medium'],
      ['HIGH', 'High'],
    ],
  },
  {
    name: 'hs_task_type',
    label: 'Task Type',
    type: 'enumeration',
    fieldType: 'select',
    groupName: 'task',
    options: [
      ['CALL', 'Call'],
      ['EMAIL', 'Email'],
      ['TODO', 'To-do'],
    ],
  },
  {
    name: 'hubspot_owner_id',
    label: 'Assigned to',
    type: 'enumeration',
    fieldType: 'select',
    groupName: 'task',
    externalOptions: true,
  },
  { name: 'hs_createdate', label: 'Created at', type: 'datetime', fieldType: 'date', groupName: 'task' },
  {
    name: 'hs_lastmodifieddate',
    label: 'Last modified date',
    type: 'datetime',
    fieldType: 'date',
    groupName: 'task',
    readOnlyValue: true,
  },
  {
    name: 'hs_object_id',
    label: 'Record ID',
    type: 'number',
    fieldType: 'number',
    groupName: 'task',
    readOnlyValue: true,
  },
];

const SPECS: Record<ObjectType, Spec[]> = { companies: COMPANY_SPECS, notes: NOTE_SPECS, tasks: TASK_SPECS };

const GROUPS: Record<ObjectType, [string, string][]> = {
  companies: [
    ['companyinformation', 'Company information'],
    ['company_activity', 'Company activity'],
    ['socialmediainformation', 'Social media information'],
    ['analyticsinformation', 'Web analytics history'],
  ],
  notes: [['engagement', 'Engagement']],
  tasks: [['task', 'Task information']],
};

export function defaultProperties(type: ObjectType): PropertyDefinition[] {
  return SPECS[type].map((spec, i) => define(spec, i));
}

export function defaultGroups(type: ObjectType): PropertyGroup[] {
  return GROUPS[type].map(([name, label], i) => ({ name, label, displayOrder: i, archived: false }));
}
