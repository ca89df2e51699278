// Enumerations of the spec, completed from the provider's reference where the spec is silent.
// Request-side lists are strict (we only send what the spec allows); response parsers accept any
// string, because the provider adds values over time (its reference already lists more filter types).

export const SIGNAL_FILTER_TYPES = [
  'RFP',
  'Meeting',
  'Purchase',
  'Buyer',
  'Contact',
  'Signal',
  'Conference',
  'JobChange',
  'SequenceBuyer',
  'SequenceContact',
  'SequenceJobChange',
] as const;
export type SignalFilterType = (typeof SIGNAL_FILTER_TYPES)[number];

/** Bridge filter types of the reference: the spec's list plus four newer kinds. */
export const BRIDGE_FILTER_TYPES = [
  ...SIGNAL_FILTER_TYPES,
  'TopBuyer',
  'VendorPresence',
  'ProductCompetitorPresence',
  'CompanionPresence',
] as const;
export type BridgeFilterType = (typeof BRIDGE_FILTER_TYPES)[number];

/** The user-facing status of a row (the `status` filter of the signal feeds). */
export const ROW_STATUSES = ['New', 'Actioned', 'Saved', 'Attending', 'Sponsoring', 'NotInterested'] as const;
export type RowStatus = (typeof ROW_STATUSES)[number];

/** The processing status of a row or of one cell (reference only). */
export const PROCESSING_STATUSES = [
  'NotProcessed',
  'Queued',
  'Processing',
  'Processed',
  'Failed',
  'Skipped',
] as const;
export type ProcessingStatus = (typeof PROCESSING_STATUSES)[number];

export const SIGNAL_SORTS = ['Date', 'Hotness'] as const;
export type SignalSort = (typeof SIGNAL_SORTS)[number];

export const RELATIVE_DATE_PERIODS = [
  'LastOneDay',
  'LastSevenDays',
  'LastThirtyDays',
  'LastSixtyDays',
  'LastOneMonths',
  'LastTwoMonths',
  'LastThreeMonths',
  'LastSixMonths',
  'LastNineMonths',
  'LastYear',
  'LastTwoYears',
] as const;
export type RelativeDatePeriod = (typeof RELATIVE_DATE_PERIODS)[number];

export const FILTER_OPERATIONS = {
  scalar: ['Equals', 'DoesNotEqual', 'Contains', 'DoesNotContain', 'GreaterThan', 'LessThan'],
  array: ['Any', 'None', 'ContainsAny', 'ContainsAll', 'ContainedBy', 'NotContainedBy'],
  presence: ['IsEmpty', 'IsNotEmpty'],
  columnStatus: ['HasCellStatus', 'HasLookupStatus', 'HasLastSyncStatus', 'HasSyncStatusHistory'],
} as const;
export type FilterOperationCategory = keyof typeof FILTER_OPERATIONS;
export type FilterOperation = (typeof FILTER_OPERATIONS)[FilterOperationCategory][number];
export const ALL_FILTER_OPERATIONS: readonly FilterOperation[] = Object.values(FILTER_OPERATIONS).flat();

export function filterOperationCategory(op: string): FilterOperationCategory | undefined {
  for (const [category, ops] of Object.entries(FILTER_OPERATIONS) as [
    FilterOperationCategory,
    readonly string[],
  ][]) {
    if (ops.includes(op)) return category;
  }
  return undefined;
}

/** Entry-level fields a filter term may name instead of a column id (reference, BridgeFiltersTerm.field). */
export const ROW_FILTER_ENTRY_FIELDS = [
  'status',
  'buyerId',
  'opportunityId',
  'entryId',
  'entryName',
  'triggeredAt',
  'op:added_date',
  'bridge:entry_url',
  'adminActionCrmMatch',
] as const;

/** Sort columns accepted besides a column id: the synthetic `rowUpdatedAt` and three discouraged entry fields. */
export const ROW_SORT_ENTRY_FIELDS = ['rowUpdatedAt', 'entryId', 'entryName', 'triggeredAt'] as const;

export const SORT_DIRECTIONS = ['ASC', 'DESC'] as const;
export type SortDirection = (typeof SORT_DIRECTIONS)[number];

/** Buyer types of the reference's BuyerBrief.type. */
export const BUYER_TYPES = [
  'AdministrativeAgency',
  'City',
  'CityAttorney',
  'CityClerk',
  'CityEngineer',
  'CityManager',
  'CitySecretary',
  'County',
  'CountyAttorney',
  'CountyClerk',
  'CountyEngineer',
  'CountyManager',
  'CulturalFacility',
  'Department',
  'DiplomaticEntity',
  'District',
  'FinancialAgency',
  'HealthcareFacility',
  'HigherEducation',
  'LawEnforcementAgency',
  'LegislativeBody',
  'MilitaryOrganization',
  'NonProfitOrganization',
  'PrivateCompany',
  'PublicWorksAgency',
  'RegulatoryAgency',
  'School',
  'SchoolDistrict',
  'SpecialDistrict',
  'State',
  'StateAgency',
  'StateAttorney',
  'StateClerk',
  'StateEngineer',
  'TransportationAgency',
  'UncategorizedAgency',
  'UncategorizedClerk',
  'UncategorizedDistrict',
  'PoliceDepartment',
  'FireDepartment',
  'Library',
  'IndigenousGovernment',
  'Federal',
  'Other',
] as const;
export type BuyerType = (typeof BUYER_TYPES)[number];

export const BRIDGE_STATUSES = ['Initializing', 'Matching', 'Draft', 'Open', 'Failed', 'Deleting'] as const;

export const BRIDGE_SORT_FIELDS = [
  'Name',
  'RowsCount',
  'Type',
  'CreatedBy',
  'CreditUsage',
  'SharedWith',
  'LastUpdatedByUser',
  'CreatedAt',
] as const;
export type BridgeSortField = (typeof BRIDGE_SORT_FIELDS)[number];

export const COLUMN_TYPES = [
  'AiAnalysis',
  'DataAttribute',
  'AiAnalysisTemplate',
  'WebAgentTemplate',
  'Input',
  'Link',
  'CrmLookup',
  'CrmSync',
  'LinkToCell',
  'CompetitorsPresence',
  'EmailTemplate',
  'PhoneCallTemplate',
  'Webhook',
  'MultiLink',
  'AccountScoring',
] as const;

export const FIELD_BASE_FORMATS = [
  'text',
  'date',
  'url',
  'number',
  'enumeration',
  'list',
  'obj',
  'json',
  'phone',
  'email',
  'boolean',
  'currencyUnit',
] as const;
export type FieldBaseFormat = (typeof FIELD_BASE_FORMATS)[number];
