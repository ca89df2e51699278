// The sandbox's bridges: a dozen configured signal feeds over RFPs, meetings, purchase orders,
// conferences, job changes, contacts, budget signals and target buyers, each with typed columns.
import type { BridgeFilterType, COLUMN_TYPES, FieldBaseFormat } from '../../../src/buyer-intel/enums.ts';
import type { BuyerRecord } from './buyers.ts';
import { type BuyerKind, K12_KINDS, KIND_GROUPS, PUBLIC_SAFETY_KINDS } from './kinds.ts';
import { createRng, uuidFromKey } from './rng.ts';
import type { SandboxBridge, SandboxColumn } from './types.ts';

type ColumnType = (typeof COLUMN_TYPES)[number];

export interface ColumnSpec {
  name: string;
  type: ColumnType;
  base: FieldBaseFormat;
  prompt: string;
  description?: string;
  enumValues?: readonly string[];
  listElement?: FieldBaseFormat;
  outputFields?: { name: string; type: FieldBaseFormat; description: string | null }[];
}

export type BridgeKey =
  | 'rfp-public-safety'
  | 'rfp-cyber'
  | 'meeting-cyber'
  | 'meeting-edtech'
  | 'purchase-it'
  | 'purchase-fleet'
  | 'conference'
  | 'job-change'
  | 'contacts'
  | 'signals-smart-city'
  | 'target-accounts'
  | 'rfp-higher-ed';

export interface BridgeSpec {
  key: BridgeKey;
  name: (year: number) => string;
  filterType: BridgeFilterType;
  status: SandboxBridge['status'];
  sharedWithAll: boolean;
  createdBy: string;
  /** Rows at the default buyer count. */
  rows: number;
  eligible: (record: BuyerRecord) => boolean;
  columns: readonly ColumnSpec[];
}

const is =
  (...kinds: BuyerKind[]) =>
  (r: BuyerRecord) =>
    kinds.includes(r.kind);
const LOCAL = KIND_GROUPS.localGovernment;
const EDUCATION = K12_KINDS;
const COLLEGE = KIND_GROUPS.college;
const SAFETY = PUBLIC_SAFETY_KINDS;

export const CONTRACT_STATUSES = ['Open', 'Closing Soon', 'Awarded', 'Cancelled'] as const;

const summary = (prompt: string): ColumnSpec => ({
  name: 'Summary',
  type: 'AiAnalysis',
  base: 'text',
  prompt,
});
const sourceUrl: ColumnSpec = {
  name: 'Source URL',
  type: 'DataAttribute',
  base: 'url',
  prompt: 'Link to the source document.',
  description: 'Where the signal was found',
};
const matchScore: ColumnSpec = {
  name: 'Match Score',
  type: 'AiAnalysis',
  base: 'number',
  prompt: 'Score from 0 to 100 how well this opportunity fits our products, 100 being a perfect fit.',
  description: '0-100',
};
const contractStatus: ColumnSpec = {
  name: 'Contract Status',
  type: 'AiAnalysis',
  base: 'enumeration',
  prompt: 'Classify the solicitation as Open, Closing Soon (due within 14 days), Awarded or Cancelled.',
  enumValues: CONTRACT_STATUSES,
};
const dueDate: ColumnSpec = {
  name: 'Due Date',
  type: 'DataAttribute',
  base: 'date',
  prompt: 'Response due date of the solicitation.',
};
const estimatedValue: ColumnSpec = {
  name: 'Estimated Value',
  type: 'AiAnalysis',
  base: 'currencyUnit',
  prompt: 'Estimate the total contract value in US dollars from the scope, term and any budget figures.',
};

export const BRIDGE_SPECS: readonly BridgeSpec[] = [
  {
    key: 'rfp-public-safety',
    name: () => 'RFPs — Public Safety Software',
    filterType: 'RFP',
    status: 'Open',
    sharedWithAll: true,
    createdBy: 'Dana Whitfield',
    rows: 2400,
    eligible: (r) => is(...LOCAL, ...SAFETY)(r) || (r.kind === 'stateAgency' && r.sector === 'Public Safety'),
    columns: [
      summary(
        'Summarize the scope of this solicitation in two sentences, naming the systems to be replaced.',
      ),
      dueDate,
      estimatedValue,
      sourceUrl,
      contractStatus,
      {
        name: 'Categories',
        type: 'AiAnalysis',
        base: 'list',
        listElement: 'text',
        prompt: 'List the product categories the solicitation asks for.',
      },
      matchScore,
    ],
  },
  {
    key: 'rfp-cyber',
    name: () => 'RFPs — Cybersecurity & Network Infrastructure',
    filterType: 'RFP',
    status: 'Open',
    sharedWithAll: true,
    createdBy: 'Dana Whitfield',
    rows: 2200,
    eligible: (r) => !is('publicSchool', 'charterSchool', 'privateSchool', 'library')(r),
    columns: [
      summary('Summarize the security or network scope in two sentences.'),
      {
        name: 'Solicitation Number',
        type: 'DataAttribute',
        base: 'text',
        prompt: "The buyer's solicitation number.",
      },
      dueDate,
      estimatedValue,
      sourceUrl,
      contractStatus,
      matchScore,
    ],
  },
  {
    key: 'meeting-cyber',
    name: () => 'Council Meeting Mentions — Cybersecurity',
    filterType: 'Meeting',
    status: 'Open',
    sharedWithAll: true,
    createdBy: 'Marcus Chen',
    rows: 2600,
    eligible: is(...LOCAL, 'specialDistrict', 'tribal'),
    columns: [
      summary('Summarize what the body said or decided about cybersecurity, with any dollar amounts.'),
      { name: 'Meeting Date', type: 'DataAttribute', base: 'date', prompt: 'Date of the meeting.' },
      {
        name: 'Meeting Body',
        type: 'DataAttribute',
        base: 'text',
        prompt: 'Which board, council or court met.',
      },
      { name: 'Agenda URL', type: 'DataAttribute', base: 'url', prompt: 'Link to the agenda or minutes.' },
      {
        name: 'Sentiment',
        type: 'AiAnalysis',
        base: 'enumeration',
        prompt: 'Is the body supportive of new security spending, neutral, or concerned about cost?',
        enumValues: ['Supportive', 'Neutral', 'Concerned'],
      },
      {
        name: 'Topics',
        type: 'AiAnalysis',
        base: 'list',
        listElement: 'text',
        prompt: 'List the security topics discussed.',
      },
      {
        name: 'Relevance Score',
        type: 'AiAnalysis',
        base: 'number',
        prompt: 'Score from 0 to 100 how relevant the discussion is to a cybersecurity vendor.',
      },
    ],
  },
  {
    key: 'meeting-edtech',
    name: () => 'Board Meeting Mentions — EdTech & Curriculum',
    filterType: 'Meeting',
    status: 'Open',
    sharedWithAll: true,
    createdBy: 'Priya Natarajan',
    rows: 1800,
    eligible: is(...EDUCATION, ...COLLEGE),
    columns: [
      summary('Summarize the education technology or curriculum item and what the board decided.'),
      { name: 'Meeting Date', type: 'DataAttribute', base: 'date', prompt: 'Date of the board meeting.' },
      { name: 'Board', type: 'DataAttribute', base: 'text', prompt: 'Which board met.' },
      {
        name: 'Minutes URL',
        type: 'DataAttribute',
        base: 'url',
        prompt: 'Link to the minutes or board packet.',
      },
      {
        name: 'Decision',
        type: 'AiAnalysis',
        base: 'enumeration',
        prompt: 'What did the board do with the item?',
        enumValues: ['Approved', 'Discussed', 'Tabled', 'Rejected'],
      },
      {
        name: 'Products Mentioned',
        type: 'AiAnalysis',
        base: 'list',
        listElement: 'text',
        prompt: 'List the products or vendors named in the item.',
      },
      {
        name: 'Relevance Score',
        type: 'AiAnalysis',
        base: 'number',
        prompt: 'Score from 0 to 100 how relevant the item is to an EdTech vendor.',
      },
    ],
  },
  {
    key: 'purchase-it',
    name: () => 'Purchase Orders — IT Services',
    filterType: 'Purchase',
    status: 'Open',
    sharedWithAll: true,
    createdBy: 'Marcus Chen',
    rows: 2600,
    eligible: (r) => !is('publicSchool', 'charterSchool', 'privateSchool')(r),
    columns: [
      { name: 'Vendor Name', type: 'DataAttribute', base: 'text', prompt: 'Vendor on the purchase order.' },
      {
        name: 'PO Amount',
        type: 'DataAttribute',
        base: 'currencyUnit',
        prompt: 'Total amount of the purchase order.',
      },
      { name: 'PO Date', type: 'DataAttribute', base: 'date', prompt: 'Date the purchase order was issued.' },
      { name: 'Description', type: 'DataAttribute', base: 'text', prompt: 'Line item description.' },
      {
        name: 'Category',
        type: 'AiAnalysis',
        base: 'enumeration',
        prompt: 'Classify the purchase.',
        enumValues: ['Software', 'Hardware', 'Professional Services', 'Telecommunications', 'Cloud Services'],
      },
      sourceUrl,
    ],
  },
  {
    key: 'purchase-fleet',
    name: () => 'Purchase Orders — Fleet & Public Works Equipment',
    filterType: 'Purchase',
    status: 'Draft',
    sharedWithAll: false,
    createdBy: 'Jordan Alvarez',
    rows: 1200,
    eligible: (r) =>
      is(...LOCAL, ...SAFETY, 'specialDistrict')(r) ||
      (r.kind === 'stateAgency' && r.sector === 'Transportation & Infrastructure'),
    columns: [
      { name: 'Vendor Name', type: 'DataAttribute', base: 'text', prompt: 'Vendor on the purchase order.' },
      {
        name: 'PO Amount',
        type: 'DataAttribute',
        base: 'currencyUnit',
        prompt: 'Total amount of the purchase order.',
      },
      { name: 'PO Date', type: 'DataAttribute', base: 'date', prompt: 'Date the purchase order was issued.' },
      { name: 'Item', type: 'DataAttribute', base: 'text', prompt: 'Equipment purchased.' },
      { name: 'Quantity', type: 'DataAttribute', base: 'number', prompt: 'Number of units.' },
      sourceUrl,
    ],
  },
  {
    key: 'conference',
    name: (year) => `GovTech Conferences ${year}`,
    filterType: 'Conference',
    status: 'Open',
    sharedWithAll: true,
    createdBy: 'Priya Natarajan',
    rows: 1100,
    eligible: () => true,
    columns: [
      { name: 'Conference', type: 'DataAttribute', base: 'text', prompt: 'Name of the conference.' },
      { name: 'Event Date', type: 'DataAttribute', base: 'date', prompt: 'First day of the conference.' },
      { name: 'Location', type: 'DataAttribute', base: 'text', prompt: 'Host city.' },
      { name: 'Event URL', type: 'DataAttribute', base: 'url', prompt: "Link to the conference's page." },
      {
        name: 'Participation',
        type: 'AiAnalysis',
        base: 'enumeration',
        prompt: 'How does the buyer take part: attending, speaking, exhibiting or sponsoring?',
        enumValues: ['Attendee', 'Speaker', 'Exhibitor', 'Sponsor'],
      },
      {
        name: 'Session Title',
        type: 'AiAnalysis',
        base: 'text',
        prompt: 'Title of the session the buyer presents, if any.',
      },
      {
        name: 'Estimated Attendance',
        type: 'DataAttribute',
        base: 'number',
        prompt: 'Expected attendance of the conference.',
      },
    ],
  },
  {
    key: 'job-change',
    name: () => 'Job Changes — CIOs & IT Directors',
    filterType: 'JobChange',
    status: 'Open',
    sharedWithAll: true,
    createdBy: 'Dana Whitfield',
    rows: 1300,
    eligible: (r) => !is('publicSchool', 'charterSchool', 'privateSchool', 'library')(r),
    columns: [
      { name: 'Contact Name', type: 'DataAttribute', base: 'text', prompt: 'Full name of the person.' },
      { name: 'New Title', type: 'DataAttribute', base: 'text', prompt: 'Title in the new role.' },
      {
        name: 'Previous Organization',
        type: 'DataAttribute',
        base: 'text',
        prompt: 'Employer before the move.',
      },
      { name: 'Start Date', type: 'DataAttribute', base: 'date', prompt: 'Start date in the new role.' },
      { name: 'LinkedIn URL', type: 'DataAttribute', base: 'url', prompt: "The person's LinkedIn profile." },
      {
        name: 'Seniority',
        type: 'AiAnalysis',
        base: 'enumeration',
        prompt: 'Seniority of the new role.',
        enumValues: ['C-Level', 'VP / Director', 'Manager'],
      },
      {
        name: 'Contact Details',
        type: 'WebAgentTemplate',
        base: 'obj',
        prompt: 'Find the work email, phone and office location of the person.',
        outputFields: [
          { name: 'email', type: 'email', description: 'Work email' },
          { name: 'phone', type: 'phone', description: 'Direct or main line' },
          { name: 'office', type: 'text', description: 'Office location' },
        ],
      },
    ],
  },
  {
    key: 'contacts',
    name: () => 'Procurement Contacts — Purchasing Managers',
    filterType: 'Contact',
    status: 'Open',
    sharedWithAll: false,
    createdBy: 'Jordan Alvarez',
    rows: 1400,
    eligible: (r) => !is('publicSchool', 'charterSchool', 'privateSchool')(r),
    columns: [
      { name: 'Contact Name', type: 'DataAttribute', base: 'text', prompt: 'Full name of the contact.' },
      { name: 'Title', type: 'DataAttribute', base: 'text', prompt: 'Job title.' },
      { name: 'Email', type: 'DataAttribute', base: 'email', prompt: 'Work email.' },
      { name: 'Phone', type: 'DataAttribute', base: 'phone', prompt: 'Work phone.' },
      {
        name: 'Profile URL',
        type: 'DataAttribute',
        base: 'url',
        prompt: 'Staff directory or LinkedIn page.',
      },
      {
        name: 'Last Verified',
        type: 'DataAttribute',
        base: 'date',
        prompt: 'When the contact was last verified.',
      },
      {
        name: 'Department',
        type: 'DataAttribute',
        base: 'enumeration',
        prompt: 'Department of the contact.',
        enumValues: ['Purchasing', 'Finance', 'IT', 'Operations'],
      },
    ],
  },
  {
    key: 'signals-smart-city',
    name: () => 'Budget & Grant Signals — Smart City',
    filterType: 'Signal',
    status: 'Open',
    sharedWithAll: true,
    createdBy: 'Marcus Chen',
    rows: 1900,
    eligible: is(...LOCAL, 'specialDistrict', 'stateAgency', 'federal', 'tribal'),
    columns: [
      summary('Summarize the budget, grant or plan and what it funds.'),
      {
        name: 'Signal Type',
        type: 'AiAnalysis',
        base: 'enumeration',
        prompt: 'Classify the signal.',
        enumValues: ['Budget Increase', 'Grant Award', 'Strategic Plan', 'News'],
      },
      { name: 'Amount', type: 'AiAnalysis', base: 'currencyUnit', prompt: 'Dollar amount involved, if any.' },
      { name: 'Announced', type: 'DataAttribute', base: 'date', prompt: 'Date of the announcement.' },
      sourceUrl,
      {
        name: 'Keywords',
        type: 'AiAnalysis',
        base: 'list',
        listElement: 'text',
        prompt: 'Keywords of the signal.',
      },
    ],
  },
  {
    key: 'target-accounts',
    name: () => 'Target Accounts — Large Cities & Counties',
    filterType: 'Buyer',
    status: 'Open',
    sharedWithAll: true,
    createdBy: 'Dana Whitfield',
    rows: 700,
    eligible: is('city', 'county'),
    columns: [
      { name: 'Population', type: 'DataAttribute', base: 'number', prompt: 'Population' },
      { name: 'Operating Budget', type: 'DataAttribute', base: 'currencyUnit', prompt: 'BudgetAmount' },
      {
        name: 'Propensity to Spend',
        type: 'DataAttribute',
        base: 'enumeration',
        prompt: 'PropensityToSpend',
        enumValues: ['Aggressive Spender', 'Open to Spend', 'Selective', 'Highly Cautious'],
      },
      { name: 'AI Adoption Score', type: 'DataAttribute', base: 'number', prompt: 'AiAdoptionScore' },
      { name: 'Homepage', type: 'DataAttribute', base: 'url', prompt: 'Url' },
      { name: 'Fiscal Year Start', type: 'DataAttribute', base: 'date', prompt: 'FiscalYearStartDate' },
      {
        name: 'Is Customer',
        type: 'Input',
        base: 'boolean',
        prompt: 'Whether the account is already a customer.',
      },
      {
        name: 'Fit Summary',
        type: 'AiAnalysis',
        base: 'text',
        prompt:
          'In two sentences, explain why this buyer is or is not a good fit for our public safety software.',
      },
    ],
  },
  {
    key: 'rfp-higher-ed',
    name: () => 'RFPs — Higher Ed LMS & SIS Replacement',
    filterType: 'RFP',
    status: 'Matching',
    sharedWithAll: true,
    createdBy: 'Priya Natarajan',
    rows: 700,
    eligible: is(...COLLEGE),
    columns: [
      summary('Summarize the system the institution wants to replace and its timeline.'),
      dueDate,
      estimatedValue,
      {
        name: 'Incumbent System',
        type: 'AiAnalysis',
        base: 'text',
        prompt: 'Which system is in place today?',
      },
      sourceUrl,
      contractStatus,
      matchScore,
    ],
  },
];

/** snake_case key of a column name: `Due Date` -> `due_date`. */
export const columnKey = (name: string) =>
  name
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '');

const DAY = 86_400_000;

export function buildBridges(seed: number, now: Date): SandboxBridge[] {
  const rng = createRng(`${seed}|bridges`);
  const owners = new Map<string, string>();
  return BRIDGE_SPECS.map((spec) => {
    const bridgeId = uuidFromKey(`${seed}|bridge|${spec.key}`);
    const userId = owners.get(spec.createdBy) ?? uuidFromKey(`${seed}|user|${spec.createdBy}`);
    owners.set(spec.createdBy, userId);
    const created = now.getTime() - rng.int(820, 980) * DAY - rng.int(0, 86_399) * 1000;
    const updated = created + rng.int(30, 700) * DAY + rng.int(0, 86_399) * 1000;
    const columns: SandboxColumn[] = spec.columns.map((c, index) => ({
      columnId: uuidFromKey(`${seed}|column|${spec.key}|${c.name}`),
      bridgeId,
      name: c.name,
      prompt: c.prompt,
      type: c.type,
      fieldFormat: {
        baseFormat: c.base,
        description: c.description ?? null,
        enumerationValues: c.enumValues ? c.enumValues.map((v) => ({ value: v, label: v })) : null,
        currency: c.base === 'currencyUnit' ? 'USD' : null,
        listElementBaseFormat: c.listElement ?? null,
        outputFields: c.outputFields ? c.outputFields.map((f) => ({ ...f })) : null,
      },
      index,
      key: columnKey(c.name),
    }));
    return {
      bridgeId,
      name: spec.name(now.getUTCFullYear()),
      userId,
      createdBy: spec.createdBy,
      filterType: spec.filterType,
      status: spec.status,
      createdAt: new Date(created).toISOString(),
      updatedAt: new Date(Math.min(updated, now.getTime() - DAY)).toISOString(),
      sharedWithAll: spec.sharedWithAll,
      creditUsage: spec.rows * spec.columns.filter((c) => c.type !== 'DataAttribute').length * rng.int(1, 3),
      columns,
    };
  });
}
