// The mapping used when no mapping file is given: the attributes a public-sector sales team segments,
// scores and prioritises accounts by. Every CRM field is prefixed `buyer_intel_`.
//
// Policies: identifiers and our scores are `overwrite` (they are ours and always current); most fields
// are `ours` (kept current unless somebody changes them); a few a person often knows better (the phone
// number, the student-information system, the LMS) are `fill-empty`.
import { BUYER_TYPES } from '../buyer-intel/enums.ts';
import { loadMapping } from './load-mapping.ts';
import { type Mapping, mappingSchema } from './mapping-schema.ts';

/** "SchoolDistrict" → "School District" (the form the API's Type values also come in). */
function spaced(code: string): string {
  return code.replace(/([a-z])([A-Z])/g, '$1 $2');
}

/** Buyer type codes → labels; a value that already is a label ("School District") is written as is. */
const BUYER_TYPE_LABELS: Record<string, string> = Object.fromEntries(BUYER_TYPES.map((t) => [t, spaced(t)]));

const POPULATION_TRENDS = [
  'Very Strongly Decreasing',
  'Strongly Decreasing',
  'Moderately Decreasing',
  'Stable / Flat',
  'Moderately Increasing',
  'Strongly Increasing',
  'Very Strongly Increasing',
];

const PROPENSITIES = ['Highly Cautious', 'Selective', 'Open to Spend', 'Aggressive Spender'];

/** Values that are already labels: the field becomes a dropdown with exactly these options. */
function identityLabels(values: readonly string[]): Record<string, string> {
  return Object.fromEntries(values.map((v) => [v, v]));
}

const fields: Mapping['fields'] = [
  // Identity
  /** City, County, School District, Higher Education...: the first cut of every territory plan. */
  {
    attribute: 'Type',
    property: 'buyer_intel_type',
    transform: 'enum',
    policy: 'ours',
    enumLabels: BUYER_TYPE_LABELS,
  },
  /** Sub-classifications of the buyer (e.g. K-12, Public, Municipal). */
  {
    attribute: 'Classifications',
    property: 'buyer_intel_classifications',
    transform: 'list',
    policy: 'ours',
  },
  /** The parent buyer (the city of a police department, the state of an agency): roll-ups and hierarchy. */
  { attribute: 'ParentName', property: 'buyer_intel_parent_name', transform: 'text', policy: 'ours' },
  /** The parent's buyer id: an identifier, always ours. */
  {
    attribute: 'ParentBuyerId',
    property: 'buyer_intel_parent_buyer_id',
    transform: 'text',
    policy: 'overwrite',
  },
  /** The buyer's homepage. */
  { attribute: 'Url', property: 'buyer_intel_url', transform: 'url', policy: 'ours' },
  /** The main switchboard number; a rep's direct line is better, so only an empty field is filled. */
  {
    attribute: 'MainPhoneNumber',
    property: 'buyer_intel_main_phone',
    transform: 'text',
    policy: 'fill-empty',
  },
  /** The buyer's email domains: matching contacts to the account. */
  { attribute: 'EmailDomains', property: 'buyer_intel_email_domains', transform: 'list', policy: 'ours' },
  /** The county: territories are often drawn by county. */
  { attribute: 'County', property: 'buyer_intel_county', transform: 'text', policy: 'ours' },

  // Size
  /** Population served: the usual proxy for deal size. */
  { attribute: 'Population', property: 'buyer_intel_population', transform: 'integer', policy: 'ours' },
  /** Growing or shrinking over five years (Very Strongly Decreasing ... Very Strongly Increasing). */
  {
    attribute: 'PopulationTrend',
    property: 'buyer_intel_population_trend',
    transform: 'enum',
    policy: 'ours',
    enumLabels: identityLabels(POPULATION_TRENDS),
  },
  /** Students enrolled (districts, schools, colleges). */
  {
    attribute: 'TotalEnrollment',
    property: 'buyer_intel_total_enrollment',
    transform: 'integer',
    policy: 'ours',
  },
  /** Full-time-equivalent enrollment of a college or university. */
  {
    attribute: 'HigherEdFullTimeEnrollment',
    property: 'buyer_intel_higher_ed_fte_enrollment',
    transform: 'integer',
    policy: 'ours',
  },
  /** Employees (full-time equivalents): seat-based pricing. */
  { attribute: 'EmployeeFte', property: 'buyer_intel_employee_fte', transform: 'number', policy: 'ours' },

  // Budget
  /** Operating budget in whole US dollars: account scoring. */
  { attribute: 'BudgetAmount', property: 'buyer_intel_budget_amount', transform: 'currency', policy: 'ours' },
  /** The fiscal year the budget amount is from. */
  {
    attribute: 'BudgetLatestYear',
    property: 'buyer_intel_budget_latest_year',
    transform: 'integer',
    policy: 'ours',
  },
  /** The budget document itself. */
  { attribute: 'BudgetUrl', property: 'buyer_intel_budget_url', transform: 'url', policy: 'ours' },
  /** When the fiscal year starts: when budgets are decided, and when money must be spent. */
  {
    attribute: 'FiscalYearStartDate',
    property: 'buyer_intel_fiscal_year_start_date',
    transform: 'date',
    policy: 'ours',
  },

  // Scores (ours, recomputed by the provider: always overwritten)
  /** 1..100: evidence the buyer is adopting AI. */
  {
    attribute: 'AiAdoptionScore',
    property: 'buyer_intel_ai_adoption_score',
    transform: 'integer',
    policy: 'overwrite',
  },
  /** 1..100: how painful buying from this buyer is. */
  {
    attribute: 'ProcurementHellScore',
    property: 'buyer_intel_procurement_hell_score',
    transform: 'integer',
    policy: 'overwrite',
  },
  /** 1..100: how willing the buyer is to spend. */
  {
    attribute: 'PropensityToSpendScore',
    property: 'buyer_intel_propensity_to_spend_score',
    transform: 'integer',
    policy: 'overwrite',
  },
  /** The score's band: Highly Cautious, Selective, Open to Spend, Aggressive Spender. */
  {
    attribute: 'PropensityToSpend',
    property: 'buyer_intel_propensity_to_spend',
    transform: 'enum',
    policy: 'overwrite',
    enumLabels: identityLabels(PROPENSITIES),
  },
  /** 1..100: how often the buyer adopts early or champions startups. */
  {
    attribute: 'StartupFriendlinessScore',
    property: 'buyer_intel_startup_friendliness_score',
    transform: 'integer',
    policy: 'overwrite',
  },

  // Education
  /** The district's or school's NCES id (text: leading zeros matter). */
  { attribute: 'NcesId', property: 'buyer_intel_nces_id', transform: 'text', policy: 'overwrite' },
  /** The college's IPEDS unit id. */
  { attribute: 'IpedsIdNumeric', property: 'buyer_intel_ipeds_id', transform: 'text', policy: 'overwrite' },
  /** Share of students eligible for free or reduced-price lunch, in percent: Title I and need. */
  {
    attribute: 'FreeOrReducedLunchEligiblePercentage',
    property: 'buyer_intel_free_reduced_lunch_pct',
    transform: 'percent',
    policy: 'ours',
  },
  /** Learning-management systems in use; reps learn the real picture, so only an empty field is filled. */
  { attribute: 'LmsArray', property: 'buyer_intel_lms', transform: 'list', policy: 'fill-empty' },
  /** The student-information system; as for the LMS, a person's answer wins. */
  { attribute: 'Sis', property: 'buyer_intel_sis', transform: 'text', policy: 'fill-empty' },
];

/** The built-in mapping (27 fields), validated when this module loads. */
export const DEFAULT_MAPPING: Mapping = mappingSchema.parse({ version: 1, fields });

/** The mapping in `path`, or the built-in one when no path is given. Throws MappingError. */
export async function mappingFromFile(path: string | undefined): Promise<Mapping> {
  return path === undefined || path.trim() === '' ? DEFAULT_MAPPING : loadMapping(path);
}
