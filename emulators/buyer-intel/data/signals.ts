// What one signal row says, per bridge: a title built from the buyer's real name, the entry it stands
// for, and a value for each column, typed as the column's field format says.
import type { BuyerField } from '../../../src/buyer-intel/fields.ts';
import type { BridgeKey } from './bridges.ts';
import { type BuyerRecord, governingBody } from './buyers.ts';
import { type BuyerKind, K12_KINDS, KIND_GROUPS } from './kinds.ts';
import { compact, personName, slugify } from './names.ts';
import { type Rng, uuidFromKey } from './rng.ts';

export interface SignalContext {
  seed: number;
  rng: Rng;
  record: BuyerRecord;
  signal: Date;
  now: Date;
  attributes: () => Readonly<Record<BuyerField, unknown>> | undefined;
  /** Name of some other buyer (a previous employer). */
  otherBuyer: () => string;
}

export interface SignalContent {
  rowName: string;
  entryName: string;
  entryUrl: string | null;
  /** Id of the underlying entity; a fresh one when absent. */
  entityId?: string;
  organizerId?: string;
  opportunity: boolean;
  /** Keyed by column name. */
  cells: Record<string, unknown>;
}

const DAY = 86_400_000;
const isoDate = (d: Date | number) => new Date(d).toISOString().slice(0, 10);
const money = (n: number) =>
  n >= 1_000_000 ? `$${Math.round(n / 100_000) / 10}M` : `$${Math.round(n / 1000)}K`;

function origin(record: BuyerRecord): string | null {
  return record.site;
}

function contractStatus(rng: Rng, due: number, now: Date): string {
  if (rng.chance(0.04)) return 'Cancelled';
  if (due < now.getTime()) return rng.chance(0.7) ? 'Awarded' : 'Open';
  return due - now.getTime() < 14 * DAY ? 'Closing Soon' : 'Open';
}

interface RfpTopic {
  title: string;
  categories: string[];
  value: [number, number];
}

const PUBLIC_SAFETY_RFPS: readonly RfpTopic[] = [
  {
    title: 'Body-Worn Camera Program',
    categories: ['Body-Worn Cameras', 'Digital Evidence'],
    value: [250_000, 6_000_000],
  },
  {
    title: 'Computer-Aided Dispatch (CAD) Replacement',
    categories: ['CAD', 'Dispatch'],
    value: [400_000, 9_000_000],
  },
  {
    title: 'Records Management System Upgrade',
    categories: ['RMS', 'Law Enforcement Software'],
    value: [200_000, 4_000_000],
  },
  {
    title: 'Next Generation 911 Call Handling',
    categories: ['NG911', 'Call Handling'],
    value: [300_000, 5_000_000],
  },
  {
    title: 'Automated License Plate Reader Services',
    categories: ['ALPR', 'Video Analytics'],
    value: [60_000, 900_000],
  },
  {
    title: 'Fire Station Alerting System',
    categories: ['Station Alerting', 'Fire & EMS'],
    value: [150_000, 2_500_000],
  },
  { title: 'Emergency Notification System', categories: ['Mass Notification'], value: [40_000, 600_000] },
  {
    title: 'Digital Evidence Management Software',
    categories: ['Digital Evidence', 'Cloud Storage'],
    value: [100_000, 2_000_000],
  },
  {
    title: 'Mobile Data Terminals for Patrol Vehicles',
    categories: ['Rugged Hardware', 'In-Car Systems'],
    value: [200_000, 3_000_000],
  },
  { title: 'Jail Management System', categories: ['Corrections Software'], value: [300_000, 4_500_000] },
  {
    title: 'Fire Inspection and Permitting Software',
    categories: ['Fire Prevention', 'Permitting'],
    value: [50_000, 700_000],
  },
  {
    title: 'Drone as First Responder Program',
    categories: ['Drones', 'Real-Time Crime Center'],
    value: [150_000, 2_000_000],
  },
];

const CYBER_RFPS: readonly string[] = [
  'Managed Detection and Response Services',
  'Network Infrastructure Refresh',
  'Next-Generation Firewall Replacement',
  'Security Awareness Training Platform',
  'Penetration Testing Services',
  'Identity and Access Management Platform',
  'Endpoint Protection Software',
  'SD-WAN Implementation',
  'Backup and Disaster Recovery Solution',
  'Wi-Fi Modernization',
  'Security Operations Center as a Service',
  'Email Security Gateway',
];

const HIGHER_ED_RFPS: readonly [string, string[]][] = [
  ['Learning Management System Replacement', ['Blackboard Learn', 'Moodle', 'D2L Brightspace']],
  [
    'Student Information System Modernization',
    ['Ellucian Banner', 'Ellucian Colleague', 'Oracle PeopleSoft Campus Solutions'],
  ],
  ['CRM for Admissions and Recruitment', ['Ellucian CRM Recruit', 'TargetX', 'an in-house system']],
  ['Degree Audit and Academic Planning Software', ['Ellucian Degree Works', 'an in-house system']],
  ['ERP and SIS Implementation Services', ['Jenzabar', 'Ellucian Colleague']],
  ['Course Scheduling Optimization Software', ['Ad Astra', 'an in-house system']],
];

function rfp(
  c: SignalContext,
  title: string,
  categories: string[],
  value: [number, number],
  summary: string,
) {
  const { rng, record, signal, now } = c;
  const due = signal.getTime() + rng.int(14, 45) * DAY;
  const number = `${record.buyer.stateCode}-${signal.getUTCFullYear() % 100}-${rng.int(100, 999)}`;
  const site = origin(record);
  const url = site ? `${site}/purchasing/solicitations/rfp-${number.toLowerCase()}` : null;
  return {
    rowName: `${record.buyer.name} — RFP: ${title}`,
    entryName: title,
    entryUrl: url,
    opportunity: true,
    number: `RFP ${number}`,
    cells: {
      Summary: summary,
      'Due Date': isoDate(due),
      'Estimated Value': rng.chance(0.12) ? null : Math.round(rng.int(value[0], value[1]) / 1000) * 1000,
      'Source URL': url,
      'Contract Status': contractStatus(rng, due, now),
      Categories: categories,
      'Match Score': rng.int(20, 99),
    },
  };
}

const CYBER_TOPICS = [
  'cybersecurity upgrade',
  'ransomware recovery plan',
  'managed security services contract',
  'multi-factor authentication rollout',
  'cyber insurance renewal',
  'IT security audit findings',
  'network segmentation for public safety systems',
  'security operations center staffing',
];
const EDTECH_TOPICS: readonly [string, string[]][] = [
  ['one-to-one Chromebook renewal', ['Chromebooks', 'Google Workspace for Education']],
  ['K-5 math curriculum adoption', ['i-Ready', 'Amplify']],
  ['AI tutoring pilot', ['Khanmigo']],
  ['student data privacy agreements', ['Clever', 'GoGuardian']],
  ['learning management system contract', ['Canvas', 'Schoology']],
  ['literacy intervention software', ['Amplify', 'i-Ready']],
  ['visitor management and student safety', ['Raptor Technologies']],
  ['classroom technology refresh', ['Chromebooks', 'Promethean panels']],
];
const IT_PURCHASES: readonly [string, string, string, [number, number]][] = [
  ['Microsoft 365 G3 licenses', 'Microsoft', 'Software', [40_000, 1_800_000]],
  ['Dell Latitude laptops', 'Dell Technologies', 'Hardware', [25_000, 900_000]],
  ['Cisco Meraki switches and access points', 'CDW Government', 'Hardware', [20_000, 700_000]],
  ['ServiceNow ITSM subscription', 'Carahsoft Technology', 'Software', [60_000, 1_200_000]],
  ['Esri ArcGIS enterprise agreement', 'Esri', 'Software', [30_000, 450_000]],
  ['CrowdStrike Falcon licenses', 'SHI International', 'Software', [15_000, 600_000]],
  ['ERP support and maintenance', 'Tyler Technologies', 'Professional Services', [50_000, 1_500_000]],
  ['AWS GovCloud hosting', 'Amazon Web Services', 'Cloud Services', [20_000, 2_000_000]],
  ['Zoom for Government licenses', 'Zoom Video Communications', 'Software', [5_000, 150_000]],
  ['Wireless voice and data service', 'Verizon', 'Telecommunications', [30_000, 900_000]],
  ['Palo Alto Networks firewalls', 'Presidio', 'Hardware', [40_000, 800_000]],
  ['Network cabling installation', 'Graybar Electric', 'Professional Services', [10_000, 300_000]],
  ['Fiber internet circuits', 'AT&T', 'Telecommunications', [20_000, 500_000]],
];
const FLEET_PURCHASES: readonly [string, string, [number, number], [number, number]][] = [
  ['Ford F-150 pickup trucks', 'Ford Pro', [42_000, 58_000], [2, 18]],
  ['Ford Police Interceptor Utility vehicles', 'Ford Pro', [48_000, 62_000], [2, 24]],
  ['Chevrolet Tahoe PPV', 'General Motors Fleet', [52_000, 66_000], [2, 12]],
  ['Tandem-axle dump trucks', 'International Trucks', [160_000, 210_000], [1, 4]],
  ['Backhoe loader', 'John Deere', [120_000, 170_000], [1, 2]],
  ['Pumper fire apparatus', 'Pierce Manufacturing', [750_000, 1_100_000], [1, 2]],
  ['Street sweeper', 'Elgin Sweeper Company', [280_000, 360_000], [1, 2]],
  ['Zero-turn mowers', 'The Toro Company', [12_000, 18_000], [2, 10]],
  ['Automated side-loader refuse truck', 'Freightliner Trucks', [330_000, 420_000], [1, 3]],
  ['Motor grader', 'Caterpillar', [280_000, 380_000], [1, 2]],
];

interface Conference {
  name: string;
  organizer: string;
  url: string;
  attendance: [number, number];
  fits: (r: BuyerRecord) => boolean;
}
const K12: readonly BuyerKind[] = K12_KINDS;
const HE: readonly BuyerKind[] = KIND_GROUPS.college;
const CONFERENCES: readonly Conference[] = [
  {
    name: 'Smart Cities Connect',
    organizer: 'Smart Cities Connect Media & Events',
    url: 'https://smartcitiesconnect.org',
    attendance: [1500, 3000],
    fits: (r) => ['city', 'town', 'specialDistrict'].includes(r.kind),
  },
  {
    name: 'NLC City Summit',
    organizer: 'National League of Cities',
    url: 'https://www.nlc.org/city-summit',
    attendance: [2500, 4000],
    fits: (r) => ['city', 'town', 'village'].includes(r.kind),
  },
  {
    name: 'ICMA Annual Conference',
    organizer: 'ICMA',
    url: 'https://icma.org/annual-conference',
    attendance: [3500, 5000],
    fits: (r) => ['city', 'town', 'village', 'county'].includes(r.kind),
  },
  {
    name: 'NACo Annual Conference',
    organizer: 'National Association of Counties',
    url: 'https://www.naco.org/annual',
    attendance: [3000, 4500],
    fits: (r) => ['county', 'sheriff', 'countyFire'].includes(r.kind),
  },
  {
    name: 'NASCIO Midyear Conference',
    organizer: 'NASCIO',
    url: 'https://www.nascio.org/events',
    attendance: [600, 1000],
    fits: (r) => ['stateAgency', 'federal'].includes(r.kind),
  },
  {
    name: 'EDUCAUSE Annual Conference',
    organizer: 'EDUCAUSE',
    url: 'https://events.educause.edu/annual-conference',
    attendance: [6000, 8000],
    fits: (r) => HE.includes(r.kind),
  },
  {
    name: 'ISTELive',
    organizer: 'ISTE',
    url: 'https://conference.iste.org',
    attendance: [14000, 18000],
    fits: (r) => K12.includes(r.kind),
  },
  {
    name: 'CoSN Annual Conference',
    organizer: 'CoSN',
    url: 'https://www.cosn.org/events',
    attendance: [1000, 1600],
    fits: (r) => K12.includes(r.kind),
  },
  {
    name: 'IACP Annual Conference',
    organizer: 'International Association of Chiefs of Police',
    url: 'https://www.theiacpconference.org',
    attendance: [14000, 16000],
    fits: (r) => ['police', 'sheriff'].includes(r.kind),
  },
  {
    name: 'Fire-Rescue International',
    organizer: 'International Association of Fire Chiefs',
    url: 'https://www.iafc.org/fri',
    attendance: [5000, 7000],
    fits: (r) => ['fire', 'countyFire'].includes(r.kind),
  },
  {
    name: 'APCO International Conference & Expo',
    organizer: 'APCO International',
    url: 'https://www.apcointl.org/conference',
    attendance: [4000, 5000],
    fits: (r) => ['police', 'sheriff', 'fire', 'county'].includes(r.kind),
  },
  {
    name: 'NIGP Annual Forum',
    organizer: 'NIGP: The Institute for Public Procurement',
    url: 'https://www.nigp.org/forum',
    attendance: [1200, 1800],
    fits: () => true,
  },
];
const PARTICIPATION_VERBS: Record<string, string> = {
  Attendee: 'attending',
  Speaker: 'speaking at',
  Exhibitor: 'exhibiting at',
  Sponsor: 'sponsoring',
};
const CONFERENCE_CITIES = [
  'Austin, TX',
  'Denver, CO',
  'San Antonio, TX',
  'Nashville, TN',
  'Orlando, FL',
  'Philadelphia, PA',
  'Chicago, IL',
  'Phoenix, AZ',
  'Columbus, OH',
  'Seattle, WA',
  'Kansas City, MO',
  'Portland, OR',
];
const SESSION_TOPICS = [
  'modernizing 911 dispatch',
  'a cloud-first IT strategy',
  'using data to cut permit times',
  'responsible AI policy',
  'cybersecurity on a small budget',
  'cooperative purchasing that works',
  'broadband for rural residents',
];

const IT_TITLES: readonly [string, string][] = [
  ['Chief Information Officer', 'C-Level'],
  ['Chief Information Security Officer', 'C-Level'],
  ['Chief Technology Officer', 'C-Level'],
  ['Deputy CIO', 'VP / Director'],
  ['IT Director', 'VP / Director'],
  ['Director of Technology', 'VP / Director'],
  ['Director of Innovation', 'VP / Director'],
  ['GIS Manager', 'Manager'],
  ['IT Infrastructure Manager', 'Manager'],
];
const PREVIOUS_COMPANIES = [
  'Deloitte',
  'Accenture',
  'Tyler Technologies',
  'Microsoft',
  'Dell Technologies',
  'Cisco',
];
const PROCUREMENT_TITLES: readonly [string, string][] = [
  ['Purchasing Manager', 'Purchasing'],
  ['Procurement Director', 'Purchasing'],
  ['Chief Procurement Officer', 'Purchasing'],
  ['Senior Buyer', 'Purchasing'],
  ['Contracts Administrator', 'Finance'],
  ['Finance Director', 'Finance'],
  ['IT Procurement Specialist', 'IT'],
  ['Fleet Operations Manager', 'Operations'],
];

const SMART_CITY: readonly [string, string, [number, number], string[]][] = [
  [
    'approves {amt} smart streetlight pilot',
    'Budget Increase',
    [200_000, 4_000_000],
    ['smart streetlights', 'LED conversion', 'IoT'],
  ],
  [
    'receives {amt} federal grant for broadband expansion',
    'Grant Award',
    [500_000, 25_000_000],
    ['broadband', 'digital equity', 'BEAD'],
  ],
  [
    'adopts {years} digital transformation strategic plan',
    'Strategic Plan',
    [0, 0],
    ['digital services', 'strategic plan', 'cloud'],
  ],
  [
    'budgets {amt} for traffic signal modernization',
    'Budget Increase',
    [300_000, 8_000_000],
    ['traffic signals', 'ITS', 'Vision Zero'],
  ],
  [
    'wins {amt} SMART grant for connected intersections',
    'Grant Award',
    [500_000, 2_000_000],
    ['SMART grant', 'connected vehicles', 'USDOT'],
  ],
  ['launches refreshed open data portal', 'News', [0, 0], ['open data', 'transparency', 'GIS']],
  [
    'expands public Wi-Fi in parks with {amt} allocation',
    'Budget Increase',
    [100_000, 1_500_000],
    ['public Wi-Fi', 'digital equity', 'parks'],
  ],
  [
    'awarded {amt} for EV charging infrastructure',
    'Grant Award',
    [250_000, 6_000_000],
    ['EV charging', 'fleet electrification', 'NEVI'],
  ],
];

export const SIGNALS: Readonly<Record<BridgeKey, (c: SignalContext) => SignalContent>> = {
  'rfp-public-safety': (c) => {
    const topic = c.rng.pick(PUBLIC_SAFETY_RFPS);
    const summary = `${c.record.buyer.name} seeks proposals for a ${topic.title.toLowerCase()}, including implementation, training and ${c.rng.int(3, 7)} years of support.`;
    const { number: _number, ...r } = rfp(c, topic.title, topic.categories, topic.value, summary);
    return r;
  },
  'rfp-cyber': (c) => {
    const title = c.rng.pick(CYBER_RFPS);
    const summary = `${c.record.buyer.name} requests proposals for ${title.toLowerCase()} covering ${c.rng.int(2, 60)} sites and about ${c.rng.int(1, 40) * 100} users.`;
    const { number, ...r } = rfp(c, title, ['Cybersecurity'], [50_000, 3_000_000], summary);
    const { Categories: _unused, ...cells } = r.cells;
    return { ...r, cells: { ...cells, 'Solicitation Number': number } };
  },
  'rfp-higher-ed': (c) => {
    const [title, incumbents] = c.rng.pick(HIGHER_ED_RFPS);
    const incumbent = c.rng.pick(incumbents);
    const summary = `${c.record.buyer.name} plans to replace ${incumbent} with a cloud platform, with go-live targeted for fall ${c.signal.getUTCFullYear() + c.rng.int(1, 2)}.`;
    const { number: _number, ...r } = rfp(
      c,
      title,
      ['Higher Education Software'],
      [300_000, 8_000_000],
      summary,
    );
    const { Categories: _unused, ...cells } = r.cells;
    return { ...r, cells: { ...cells, 'Incumbent System': incumbent } };
  },
  'meeting-cyber': (c) => {
    const { rng, record, signal } = c;
    const body = governingBody(record);
    const topic = rng.pick(CYBER_TOPICS);
    const date = isoDate(signal);
    const site = origin(record);
    const url = site ? `${site}/meetings/${date}/agenda` : null;
    const amount = rng.int(5, 250) * 10_000;
    return {
      rowName: `${record.buyer.name} ${body} discusses ${topic}`,
      entryName: `${body} Regular Meeting — ${date}`,
      entryUrl: url,
      opportunity: false,
      cells: {
        Summary: `The ${body} discussed a ${topic} with an estimated cost of ${money(amount)}; staff will return with a recommendation${rng.chance(0.5) ? ' next quarter' : ' before the budget vote'}.`,
        'Meeting Date': date,
        'Meeting Body': `${record.buyer.name} ${body}`,
        'Agenda URL': url,
        Sentiment: rng.weighted(['Supportive', 'Neutral', 'Concerned'], [50, 30, 20]),
        Topics: rng.sample(CYBER_TOPICS, rng.int(1, 3)),
        'Relevance Score': rng.int(15, 99),
      },
    };
  },
  'meeting-edtech': (c) => {
    const { rng, record, signal } = c;
    const body = governingBody(record);
    const [topic, products] = rng.pick(EDTECH_TOPICS);
    const date = isoDate(signal);
    const site = origin(record);
    const url = site ? `${site}/board/meetings/${date}/minutes` : null;
    const decision = rng.weighted(['Approved', 'Discussed', 'Tabled', 'Rejected'], [45, 35, 12, 8]);
    return {
      rowName: `${record.buyer.name} ${body} reviews ${topic}`,
      entryName: `${body} Meeting — ${date}`,
      entryUrl: url,
      opportunity: false,
      cells: {
        Summary: `The ${body} ${decision === 'Discussed' ? 'discussed' : decision.toLowerCase()} the ${topic}, estimated at ${money(rng.int(2, 120) * 10_000)} over ${rng.int(1, 5)} years.`,
        'Meeting Date': date,
        Board: `${record.buyer.name} ${body}`,
        'Minutes URL': url,
        Decision: decision,
        'Products Mentioned': products,
        'Relevance Score': rng.int(15, 99),
      },
    };
  },
  'purchase-it': (c) => {
    const { rng, record, signal } = c;
    const [item, vendor, category, range] = rng.pick(IT_PURCHASES);
    const po = `PO-${signal.getUTCFullYear()}-${String(rng.int(1, 99999)).padStart(5, '0')}`;
    const amount = Math.round(rng.int(range[0], range[1]) / 100) * 100;
    const site = origin(record);
    const url = site ? `${site}/transparency/purchase-orders/${po.toLowerCase()}` : null;
    return {
      rowName: `${record.buyer.name} — PO: ${item} (${vendor})`,
      entryName: po,
      entryUrl: url,
      opportunity: false,
      cells: {
        'Vendor Name': vendor,
        'PO Amount': amount,
        'PO Date': isoDate(signal),
        Description: item,
        Category: category,
        'Source URL': url,
      },
    };
  },
  'purchase-fleet': (c) => {
    const { rng, record, signal } = c;
    const [item, vendor, unit, quantity] = rng.pick(FLEET_PURCHASES);
    const count = rng.int(quantity[0], quantity[1]);
    const po = `PO-${signal.getUTCFullYear()}-${String(rng.int(1, 99999)).padStart(5, '0')}`;
    const site = origin(record);
    const url = site ? `${site}/transparency/purchase-orders/${po.toLowerCase()}` : null;
    return {
      rowName: `${record.buyer.name} — PO: ${count} × ${item} (${vendor})`,
      entryName: po,
      entryUrl: url,
      opportunity: false,
      cells: {
        'Vendor Name': vendor,
        'PO Amount': count * Math.round(rng.int(unit[0], unit[1]) / 100) * 100,
        'PO Date': isoDate(signal),
        Item: item,
        Quantity: count,
        'Source URL': url,
      },
    };
  },
  conference: (c) => {
    const { rng, record, signal, seed } = c;
    const fitting = CONFERENCES.filter((k) => k.fits(record));
    const conference = rng.pick(fitting.length ? fitting : CONFERENCES);
    const event = new Date(signal.getTime() + rng.int(20, 200) * DAY);
    const name = `${conference.name} ${event.getUTCFullYear()}`;
    const participation = rng.weighted(['Attendee', 'Speaker', 'Exhibitor', 'Sponsor'], [55, 25, 8, 12]);
    const verb = PARTICIPATION_VERBS[participation] ?? 'attending';
    const location =
      CONFERENCE_CITIES[
        (seed + conference.name.length + event.getUTCFullYear()) % CONFERENCE_CITIES.length
      ] ?? 'Austin, TX';
    return {
      rowName: `${record.buyer.name} ${verb} ${name}`,
      entryName: name,
      entryUrl: conference.url,
      entityId: uuidFromKey(`${seed}|conference|${name}`),
      organizerId: uuidFromKey(`${seed}|organizer|${conference.organizer}`),
      opportunity: false,
      cells: {
        Conference: name,
        'Event Date': isoDate(event),
        Location: location,
        'Event URL': conference.url,
        Participation: participation,
        'Session Title':
          participation === 'Speaker'
            ? `How ${record.buyer.name} approached ${rng.pick(SESSION_TOPICS)}`
            : null,
        'Estimated Attendance': rng.int(conference.attendance[0], conference.attendance[1]),
      },
    };
  },
  'job-change': (c) => {
    const { rng, record, signal } = c;
    const person = personName(rng.pick);
    const [title, seniority] = rng.pick(IT_TITLES);
    const previous = rng.chance(0.7) ? c.otherBuyer() : rng.pick(PREVIOUS_COMPANIES);
    const linkedin = `https://www.linkedin.com/in/${slugify(person.full)}-${rng.int(4096, 65535).toString(16)}`;
    const domain = record.buyer.emailDomains[0];
    return {
      rowName: `${person.full} joins ${record.buyer.name} as ${title}`,
      entryName: `${person.full} — ${title}`,
      entryUrl: linkedin,
      opportunity: false,
      cells: {
        'Contact Name': person.full,
        'New Title': title,
        'Previous Organization': previous,
        'Start Date': isoDate(signal.getTime() - rng.int(0, 20) * DAY),
        'LinkedIn URL': linkedin,
        Seniority: seniority,
        'Contact Details': {
          email: domain ? `${compact(person.first)}.${compact(person.last)}@${domain}` : null,
          phone: `(${record.state.areaCode}) ${rng.int(201, 989)}-${String(rng.int(0, 9999)).padStart(4, '0')}`,
          office: `${record.buyer.city ?? record.buyer.stateName}, ${record.buyer.stateCode}`,
        },
      },
    };
  },
  contacts: (c) => {
    const { rng, record, signal } = c;
    const person = personName(rng.pick);
    const [title, department] = rng.pick(PROCUREMENT_TITLES);
    const domain = record.buyer.emailDomains[0];
    const site = origin(record);
    const profile =
      site && rng.chance(0.6)
        ? `${site}/directory/${slugify(person.full)}`
        : `https://www.linkedin.com/in/${slugify(person.full)}-${rng.int(4096, 65535).toString(16)}`;
    return {
      rowName: `${person.full}, ${title} — ${record.buyer.name}`,
      entryName: person.full,
      entryUrl: profile,
      opportunity: false,
      cells: {
        'Contact Name': person.full,
        Title: title,
        Email: domain ? `${compact(person.first)}.${compact(person.last)}@${domain}` : null,
        Phone: `(${record.state.areaCode}) ${rng.int(201, 989)}-${String(rng.int(0, 9999)).padStart(4, '0')}`,
        'Profile URL': profile,
        'Last Verified': isoDate(signal),
        Department: department,
      },
    };
  },
  'signals-smart-city': (c) => {
    const { rng, record, signal } = c;
    const [template, type, range, keywords] = rng.pick(SMART_CITY);
    const amount = range[1] ? Math.round(rng.int(range[0], range[1]) / 1000) * 1000 : null;
    const y = signal.getUTCFullYear();
    const headline = template
      .replace('{amt}', amount ? money(amount) : '')
      .replace('{years}', `${y}–${y + 2}`);
    const site = origin(record);
    const url = site ? `${site}/news/${isoDate(signal)}-${slugify(headline).slice(0, 48)}` : null;
    return {
      rowName: `${record.buyer.name} ${headline}`,
      entryName: `${record.buyer.name} ${headline}`,
      entryUrl: url,
      opportunity: false,
      cells: {
        Summary: `${record.buyer.name} ${headline}; the ${governingBody(record)} expects procurement to start within ${rng.int(2, 12)} months.`,
        'Signal Type': type,
        Amount: amount,
        Announced: isoDate(signal),
        'Source URL': url,
        Keywords: keywords,
      },
    };
  },
  'target-accounts': (c) => {
    const { rng, record } = c;
    const a = c.attributes();
    const propensity = a?.PropensityToSpend ?? null;
    return {
      rowName: record.buyer.name,
      entryName: record.buyer.name,
      entryUrl: record.buyer.url,
      entityId: record.buyer.id,
      opportunity: false,
      cells: {
        Population: a?.Population ?? null,
        'Operating Budget': a?.BudgetAmount ?? null,
        'Propensity to Spend': propensity,
        'AI Adoption Score': a?.AiAdoptionScore ?? null,
        Homepage: record.buyer.url,
        'Fiscal Year Start': a?.FiscalYearStartDate ?? null,
        'Is Customer': rng.chance(0.15),
        'Fit Summary': `${record.buyer.name} serves ${Number(a?.Population ?? record.population ?? 0).toLocaleString('en-US')} residents${propensity ? ` and is rated ${String(propensity).toLowerCase()}` : ''}; ${rng.chance(0.5) ? 'its public safety systems are due for replacement within three years' : 'recent council minutes mention interest in consolidating dispatch software'}.`,
      },
    };
  },
};
