// The 179 BuyerField values of one sandbox buyer, computed from its record with a stream seeded by the
// data set's seed and the buyer's id, so the values do not depend on the order buyers are asked for.
// Keys that do not apply to a buyer's type are null; about a tenth of the applicable ones are null too.
import { BUYER_FIELDS, type BuyerField } from '../../../src/buyer-intel/fields.ts';
import { type BuyerRecord, governingBody } from './buyers.ts';
import { type BuyerKind, KIND_GROUPS } from './kinds.ts';
import { CAMPUS_STREETS, CIVIC_STREETS, SCHOOL_STREETS } from './names.ts';
import { createRng, type Rng } from './rng.ts';

export interface AttributeContext {
  seed: number;
  now: Date;
  records: ReadonlyMap<string, BuyerRecord>;
  /** Attributes of another buyer (a department copies its city's population figures). */
  attributesOf?: (buyerId: string) => Readonly<Record<BuyerField, unknown>> | undefined;
}

type Attributes = Record<BuyerField, unknown>;

const TYPE_LABELS: Record<string, string> = {
  City: 'City',
  County: 'County',
  SchoolDistrict: 'School District',
  School: 'School',
  HigherEducation: 'Higher Education',
  PoliceDepartment: 'Police Department',
  FireDepartment: 'Fire Department',
  StateAgency: 'State Agency',
  SpecialDistrict: 'Special District',
  Federal: 'Federal',
  Library: 'Library',
  IndigenousGovernment: 'Indigenous Government',
};

/** The reference's classification of a five-year population change. */
export function populationTrendFor(pct: number): string {
  if (pct <= -10) return 'Very Strongly Decreasing';
  if (pct < -5) return 'Strongly Decreasing';
  if (pct < -2) return 'Moderately Decreasing';
  if (pct <= 2) return 'Stable / Flat';
  if (pct < 5) return 'Moderately Increasing';
  if (pct < 10) return 'Strongly Increasing';
  return 'Very Strongly Increasing';
}

export function enrollmentTrendFor(pct: number | null): string {
  if (pct === null) return 'Not Available';
  if (pct <= -5) return 'Strongly Decreasing';
  if (pct < -2) return 'Moderately Decreasing';
  if (pct <= 2) return 'Stable / Flat';
  if (pct < 5) return 'Moderately Increasing';
  return 'Strongly Increasing';
}

export function propensityFor(score: number): string {
  if (score >= 75) return 'Aggressive Spender';
  if (score >= 50) return 'Open to Spend';
  if (score >= 25) return 'Selective';
  return 'Highly Cautious';
}

const GOVERNMENTS = new Set<BuyerKind>(KIND_GROUPS.localGovernment);
const DISTRICTS = new Set<BuyerKind>(KIND_GROUPS.schoolDistrict);
const SERVICE_AGENCIES = new Set<BuyerKind>(KIND_GROUPS.educationServiceAgency);
const SCHOOLS = new Set<BuyerKind>(KIND_GROUPS.school);
const COLLEGES = new Set<BuyerKind>(KIND_GROUPS.college);
const POLICE = new Set<BuyerKind>(KIND_GROUPS.police);
const FIRE = new Set<BuyerKind>(KIND_GROUPS.fire);
const BUDGETED = new Set<BuyerKind>([
  ...GOVERNMENTS,
  ...POLICE,
  ...FIRE,
  'stateAgency',
  'specialDistrict',
  'library',
  'federal',
  'tribal',
  'office',
]);
const CENSUS_UNITS: Partial<Record<BuyerKind, string>> = {
  county: '1',
  city: '2',
  town: '3',
  village: '2',
  specialDistrict: '4',
  cityDistrict: '5',
  countyDistrict: '5',
};

/** Never blanked at random: identity, location, and values other keys are derived from. */
const KEPT = new Set<BuyerField>([
  'Id',
  'Name',
  'CommonName',
  'ParentName',
  'ParentBuyerId',
  'Type',
  'Classifications',
  'Url',
  'LinkedinSlug',
  'Zip',
  'CountryCode',
  'StateCode',
  'StateName',
  'City',
  'County',
  'EmailDomains',
  'BuyerLocationLatitude',
  'BuyerLocationLongitude',
  'Population',
  'PopulationTrend',
  'PropensityToSpend',
  'EnrollmentTrend',
  'TotalEnrollment',
  'HigherEdSystem',
  'CommunityCollegeSystem',
]);

const PHONE_OVERRIDES: Record<string, string> = {
  'City of Austin|TX': '(512) 974-2000',
  'Travis County|TX': '(512) 854-9020',
  'Austin Independent School District|TX': '(512) 414-1700',
  'The University of Texas at Austin|TX': '(512) 471-3434',
};

const isoDate = (d: Date) => d.toISOString().slice(0, 10);
const round1 = (n: number) => Math.round(n * 10) / 10;
const round2 = (n: number) => Math.round(n * 100) / 100;
const thousands = (n: number) => Math.round(n / 1000) * 1000;
const money = (n: number) => `$${n >= 1e6 ? `${round1(n / 1e6)}M` : `${Math.round(n / 1000)}K`}`;

function fiscalYearStart(month: number, now: Date): string {
  const year = now.getUTCMonth() + 1 >= month ? now.getUTCFullYear() : now.getUTCFullYear() - 1;
  return `${year}-${String(month).padStart(2, '0')}-01`;
}

function fiscalStartMonth(r: BuyerRecord): number {
  const st = r.buyer.stateCode;
  if (r.kind === 'federal') return 10;
  if (r.kind === 'stateAgency') return r.state.fiscalYearStartMonth;
  if (COLLEGES.has(r.kind)) return st === 'TX' ? 9 : 7;
  if (DISTRICTS.has(r.kind) || SCHOOLS.has(r.kind) || SERVICE_AGENCIES.has(r.kind))
    return st === 'TX' ? 9 : 7;
  if (['TX', 'FL', 'AL', 'MS', 'CO'].includes(st)) return 10;
  if (['OH', 'IN', 'IL', 'NY', 'WI', 'NJ', 'PA', 'LA', 'MO'].includes(st)) return 1;
  return 7;
}

function phone(rng: Rng, areaCode: string): string {
  let exchange = rng.int(201, 989);
  if (exchange === 555) exchange = 556;
  return `(${areaCode}) ${exchange}-${String(rng.int(0, 9999)).padStart(4, '0')}`;
}

const AI_USES: Record<string, string[]> = {
  government: ['311 request triage', 'permit plan review', 'traffic signal timing', 'meeting transcription'],
  school: ['lesson planning assistants', 'tutoring chatbots', 'attendance early-warning models'],
  college: ['advising chatbots', 'research computing', 'admissions application triage'],
  police: ['real-time crime center analytics', 'report writing assistance', 'body-camera video redaction'],
  fire: ['dispatch call triage', 'wildfire risk modeling', 'inspection scheduling'],
  state: ['benefits eligibility screening', 'fraud detection', 'document intake processing'],
};
const OTHER_TOPICS = [
  'road resurfacing',
  'staffing and pay plans',
  'capital projects',
  'facility maintenance',
  'the annual audit',
];
const STARTUP_PROGRAMS = [
  'a startup-in-residence program',
  'an open innovation challenge',
  'a pilot-friendly procurement pathway',
];
const PORTALS = ['its e-procurement portal', 'BidNet Direct', 'DemandStar', 'Bonfire', 'OpenGov Procurement'];
const GRANT_PROGRAMS = [
  'Title I',
  'Child Nutrition Cluster',
  'COVID-19 ESSER',
  'Highway Planning and Construction',
  'Community Development Block Grant',
  'Coronavirus State and Local Fiscal Recovery Funds',
  'Federal Transit Formula Grants',
  'Student Financial Assistance',
];
const SIS_K12 = ['PowerSchool SIS', 'Infinite Campus', 'Skyward', 'Tyler SIS', 'Aeries', 'Synergy'];
const SIS_HE = [
  'Ellucian Banner',
  'Ellucian Colleague',
  'Workday Student',
  'Oracle PeopleSoft Campus Solutions',
  'Jenzabar',
];
const LMS_K12 = ['Canvas', 'Schoology', 'Google Classroom', 'Seesaw'];
const LMS_HE = ['Canvas', 'Blackboard Learn', 'D2L Brightspace', 'Moodle'];
const CRMS = ['Slate', 'Salesforce Education Cloud', 'Ellucian CRM Recruit', 'Element451', 'TargetX'];
const CURRICULA = [
  'Advanced Placement',
  'International Baccalaureate',
  'STEM',
  'Dual Language',
  'Career and Technical Education',
  'Early College',
  'Montessori',
];
const SIS_STATUS = ['Legacy On-Premise', 'Planning Migration', 'Migration In Progress', 'Modern Cloud SIS'];
const PROGRAM_ACCREDITORS = ['ABET', 'AACSB International', 'CCNE', 'LCME', 'ABA', 'NASM', 'CAEP'];

function aiGroup(kind: BuyerKind): keyof typeof AI_USES {
  if (DISTRICTS.has(kind) || SCHOOLS.has(kind) || SERVICE_AGENCIES.has(kind)) return 'school';
  if (COLLEGES.has(kind)) return 'college';
  if (POLICE.has(kind)) return 'police';
  if (FIRE.has(kind)) return 'fire';
  if (kind === 'stateAgency' || kind === 'federal') return 'state';
  return 'government';
}

function locale(population: number, rng: Rng): string {
  if (population >= 250_000) return 'City: Large';
  if (population >= 100_000) return rng.chance(0.7) ? 'City: Midsize' : 'Suburb: Large';
  if (population >= 50_000) return rng.pick(['City: Small', 'Suburb: Large', 'Suburb: Midsize']);
  if (population >= 20_000) return rng.pick(['Suburb: Midsize', 'Suburb: Small', 'Town: Fringe']);
  if (population >= 8_000) return rng.pick(['Town: Fringe', 'Town: Distant', 'Rural: Fringe']);
  return rng.pick(['Town: Remote', 'Rural: Fringe', 'Rural: Distant', 'Rural: Remote']);
}

const HIGH_LATINO = new Set(['TX', 'CA', 'NM', 'AZ', 'NV', 'FL', 'CO', 'IL', 'NJ', 'NY']);
const HIGH_BLACK = new Set(['GA', 'MS', 'LA', 'AL', 'MD', 'SC', 'NC', 'DC', 'VA', 'TN', 'DE']);

function demographics(rng: Rng, state: string) {
  const latino = rng.float(HIGH_LATINO.has(state) ? 18 : 3, HIGH_LATINO.has(state) ? 70 : 22, 1);
  const black = rng.float(HIGH_BLACK.has(state) ? 15 : 1, HIGH_BLACK.has(state) ? 60 : 18, 1);
  const white = round1(Math.max(2, (100 - latino - black) * rng.float(0.6, 0.92)));
  const scale = latino + black + white > 97 ? 97 / (latino + black + white) : 1;
  return {
    latino: round1(latino * scale),
    black: round1(black * scale),
    white: round1(white * scale),
    englishLearners: round1(Math.min(60, latino * rng.float(0.15, 0.45) + rng.float(0.5, 4))),
  };
}

export function computeAttributes(record: BuyerRecord, ctx: AttributeContext): Attributes {
  const b = record.buyer;
  const kind = record.kind;
  const rng = createRng(`${ctx.seed}|attributes|${b.id}`);
  const now = ctx.now;
  const year = now.getUTCFullYear();
  const a = {} as Attributes;
  for (const key of BUYER_FIELDS) a[key] = null;
  const parent = b.parentBuyerId ? ctx.records.get(b.parentBuyerId) : undefined;
  const body = governingBody(record);
  const name = b.name;
  const host = record.site;

  // Identity and location.
  a.Id = b.id;
  a.Name = name;
  a.CommonName = record.commonName;
  a.ParentName = parent?.buyer.name ?? null;
  a.ParentBuyerId = b.parentBuyerId;
  a.Type = TYPE_LABELS[b.type] ?? b.type.replace(/([a-z])([A-Z])/g, '$1 $2');
  a.Classifications = classifications(record);
  a.Url = b.url;
  a.LinkedinSlug = b.linkedinSlug;
  a.Zip = record.zip;
  a.CountryCode = b.countryCode;
  a.StateCode = b.stateCode;
  a.StateName = b.stateName;
  a.City = b.city;
  a.County = b.county;
  const street = COLLEGES.has(kind)
    ? rng.pick(CAMPUS_STREETS)
    : SCHOOLS.has(kind) || DISTRICTS.has(kind)
      ? rng.pick(SCHOOL_STREETS)
      : rng.pick(CIVIC_STREETS);
  // Drawn even when the record has its real street, so that the stream stays the same for the rest.
  const drawn = `${rng.int(1, 40) * (rng.chance(0.5) ? 10 : 25) + rng.int(0, 9)} ${street}`;
  const street1 = record.street ?? drawn;
  a.Street1 = street1;
  a.Street2 = rng.chance(0.25)
    ? rng.pick([`Suite ${rng.int(1, 9)}00`, `Room ${rng.int(100, 450)}`, `Floor ${rng.int(2, 12)}`])
    : null;
  a.Address = `${street1}${a.Street2 ? `, ${a.Street2}` : ''}, ${b.city ?? b.stateName}, ${b.stateCode}${record.zip ? ` ${record.zip}` : ''}`;
  a.MainPhoneNumber = PHONE_OVERRIDES[`${name}|${b.stateCode}`] ?? phone(rng, record.state.areaCode);
  a.EmailDomains = b.emailDomains.length ? [...b.emailDomains] : null;
  a.BuyerLocationLatitude = Math.round(record.lat * 1e5) / 1e5;
  a.BuyerLocationLongitude = Math.round(record.lon * 1e5) / 1e5;
  if (host && (GOVERNMENTS.has(kind) || kind === 'specialDistrict' || kind === 'tribal')) {
    a.ServiceUrl = rng.chance(0.5) ? `${host}/services` : `${host}/311`;
  }

  // Population.
  const pop = record.population;
  a.Population = pop;
  const inheritsPopulation = (POLICE.has(kind) || FIRE.has(kind) || kind === 'library') && parent;
  const parentAttributes = inheritsPopulation ? ctx.attributesOf?.(parent.buyer.id) : undefined;
  if (parentAttributes) {
    a.PopulationFiveYearChangePercentage = parentAttributes.PopulationFiveYearChangePercentage;
    a.PopulationTrend = parentAttributes.PopulationTrend;
    a.PopulationOneYearChangePercentage = parentAttributes.PopulationOneYearChangePercentage;
    a.PopulationDensityPerSquareMile = parentAttributes.PopulationDensityPerSquareMile;
  } else if (pop !== null && kind !== 'federal') {
    const five = round1(rng.normal(3.2, 5.5, -18, 32));
    a.PopulationFiveYearChangePercentage = five;
    a.PopulationTrend = populationTrendFor(five);
    a.PopulationOneYearChangePercentage = round2(five / 5 + rng.float(-0.6, 0.6, 2));
    a.PopulationDensityPerSquareMile =
      kind === 'county'
        ? round1(pop / rng.float(350, 1600))
        : kind === 'stateAgency' || kind === 'tribal'
          ? null
          : round1(
              pop >= 1_000_000
                ? rng.float(3000, 12000)
                : pop >= 100_000
                  ? rng.float(1200, 6000)
                  : rng.float(300, 3500),
            );
  }
  if (kind === 'county' && pop !== null) {
    a.CountyHudAssistedHousingUnitCount = Math.round(pop * rng.float(0.008, 0.03, 4));
    a.CountyMedicareAdvantageEnrollmentCount = Math.round(pop * rng.float(0.06, 0.12, 4));
    a.CountyMedicareAdvantagePenetrationPercentage = rng.float(28, 62, 1);
    a.CountyMedicareMedicaidEnrolleeCount = Math.round(pop * rng.float(0.015, 0.04, 4));
    a.CountyOriginalMedicareEnrollmentCount = Math.round(pop * rng.float(0.07, 0.12, 4));
  }
  if (GOVERNMENTS.has(kind)) a.HudAreaMedianFamilyIncome = rng.int(560, 1500) * 100;

  // Disaster declarations (county-level history; state-wide for state agencies).
  if (GOVERNMENTS.has(kind) || kind === 'stateAgency' || kind === 'tribal') {
    const f = kind === 'stateAgency' ? 5 : 1;
    const west = ['CA', 'OR', 'WA', 'AZ', 'NM', 'CO', 'ID', 'MT', 'NV', 'UT', 'WY', 'TX', 'OK'].includes(
      b.stateCode,
    );
    const north = [
      'MN',
      'WI',
      'MI',
      'NY',
      'ME',
      'VT',
      'NH',
      'MA',
      'ND',
      'SD',
      'IA',
      'PA',
      'OH',
      'IL',
      'IN',
      'AK',
    ].includes(b.stateCode);
    const fire = rng.int(0, west ? 8 : 1) * f;
    const flood = rng.int(1, 14) * f;
    const storm = rng.int(2, 24) * f;
    const winter = rng.int(0, north ? 9 : 2) * f;
    a.FemaFireDisasterDeclarationCount = fire;
    a.FemaFloodDisasterDeclarationCount = flood;
    a.FemaSevereStormDisasterDeclarationCount = storm;
    a.FemaWinterStormDisasterDeclarationCount = winter;
    a.FemaDisasterDeclarationCount = fire + flood + storm + winter + rng.int(0, 6) * f;
  }

  // Budget.
  let budget: number | null = null;
  if (BUDGETED.has(kind)) {
    const p = pop ?? 50_000;
    const perCapita: Partial<Record<BuyerKind, [number, number]>> = {
      city: [900, 2200],
      town: [1100, 2600],
      village: [800, 1800],
      county: [450, 1400],
      police: [260, 460],
      sheriff: [90, 220],
      fire: [120, 260],
      countyFire: [40, 110],
      library: [30, 75],
      specialDistrict: [150, 900],
      office: [4, 40],
      tribal: [2500, 9000],
      stateAgency: [40, 900],
    };
    const range = perCapita[kind];
    budget =
      kind === 'federal'
        ? rng.int(8, 400) * 1_000_000_000
        : thousands(p * rng.float(range?.[0] ?? 200, range?.[1] ?? 800));
    const confidence = rng.chance(0.68) ? 'verified' : 'inferred';
    const fy = year + (now.getUTCMonth() + 1 >= fiscalStartMonth(record) ? 1 : 0);
    a.BudgetAmount = budget;
    a.BudgetSbita = thousands(budget * rng.float(0.004, 0.022, 4));
    a.BudgetConfidence = confidence;
    a.BudgetLatestYear = confidence === 'verified' ? fy - rng.int(0, 1) : fy - 1;
    if (host && confidence === 'verified') {
      const budgetUrl = `${host}/budget/fy${a.BudgetLatestYear}-adopted-budget.pdf`;
      a.BudgetUrl = budgetUrl;
      a.BudgetChangeAnalysisSourceUrls = [
        budgetUrl,
        `${host}/budget/fy${Number(a.BudgetLatestYear) - 1}-adopted-budget.pdf`,
      ];
    }
  }
  a.FiscalYearStartDate = fiscalYearStart(fiscalStartMonth(record), now);

  // Agency.
  if (kind === 'federal' || kind === 'stateAgency') {
    a.DepartmentName = kind === 'federal' && parent ? parent.buyer.name : name;
    a.DepartmentCode = record.agencyCode;
    a.AgencyName = name;
    a.AgencyCode = record.agencyCode;
    if (kind === 'federal' && record.agencyCode) {
      const code = record.agencyCode.slice(1);
      a.OfficeCodeArray = Array.from({ length: rng.int(2, 4) }, () => `${code}C${rng.int(100, 999)}`);
    }
    if (kind === 'stateAgency') a.StateAgencySector = record.sector;
  } else if (POLICE.has(kind) || FIRE.has(kind)) {
    a.DepartmentName =
      kind === 'sheriff' ? "Sheriff's Office" : POLICE.has(kind) ? 'Police Department' : 'Fire Department';
    a.AgencyName = name;
  } else if (kind === 'library') {
    a.DepartmentName = 'Public Library';
  }

  // Scores and summaries.
  const sizeBoost = Math.log10(Math.max(10, record.size) / 100_000) * 8;
  const ai = Math.round(rng.normal(42 + sizeBoost, 16, 1, 100));
  const startup = Math.round(rng.normal(44 + sizeBoost / 2, 18, 1, 100));
  const hell = Math.round(rng.normal(kind === 'federal' ? 78 : kind === 'stateAgency' ? 66 : 52, 15, 1, 100));
  const propensity = Math.round(rng.normal(50 + sizeBoost / 2, 19, 1, 100));
  const use = rng.pick(AI_USES[aiGroup(kind)] ?? []);
  a.AiAdoptionScore = ai;
  a.AiAdoptionSummary =
    ai >= 70
      ? `${name} is an early AI adopter: the ${body} approved ${use} in ${year - rng.int(0, 1)} and staff published a generative AI use policy.`
      : ai >= 40
        ? `${name} is piloting ${use}; ${body} minutes show evaluations but no enterprise-wide AI contract yet.`
        : `Little public evidence of AI adoption at ${name}; recent ${body} agendas focus on ${rng.pick(OTHER_TOPICS)}.`;
  a.StartupFriendlinessScore = startup;
  a.StartupFriendlinessSummary =
    startup >= 65
      ? `${name} runs ${rng.pick(STARTUP_PROGRAMS)} and has awarded paid pilots to early-stage vendors.`
      : startup >= 35
        ? `${name} occasionally pilots products from young companies, usually under its informal quote threshold.`
        : `${name} favors established vendors with long references; startups usually reach it through resellers or cooperative contracts.`;
  a.ProcurementHellScore = hell;
  const limit =
    kind === 'federal' ? 250_000 : kind === 'stateAgency' || COLLEGES.has(kind) ? 100_000 : 50_000;
  const coops =
    kind === 'federal'
      ? 'GSA Multiple Award Schedules'
      : COLLEGES.has(kind)
        ? 'E&I Cooperative Services'
        : b.stateCode === 'TX'
          ? 'BuyBoard and TIPS'
          : rng.pick(['Sourcewell and OMNIA Partners', 'NASPO ValuePoint', 'Sourcewell']);
  a.AngelProcurementSummary = `Purchases under ${money(limit / 10)} need only a quote; above ${money(limit)} ${name} issues formal solicitations through ${kind === 'federal' ? 'SAM.gov' : rng.pick(PORTALS)}. It buys from cooperative contracts such as ${coops}, and sole-source awards need ${body} approval.`;
  a.PropensityToSpendScore = propensity;
  a.PropensityToSpend = propensityFor(propensity);
  const budgetGrowth = rng.float(-4, 12, 1);
  a.PropensityToSpendSummary =
    propensity >= 50
      ? `${propensityFor(propensity)}: operating spending grew ${Math.abs(budgetGrowth)}% year over year, and the ${body} approved new technology projects for FY${year + 1}.`
      : `${propensityFor(propensity)}: the ${body} held spending ${budgetGrowth < 0 ? `down ${Math.abs(budgetGrowth)}%` : 'flat'} and deferred new technology projects pending revenue forecasts.`;

  // Registry identifiers.
  const fips = record.state.fips;
  const censusType = CENSUS_UNITS[kind];
  if (censusType) {
    a.CensusIdPid6 = String(rng.int(100000, 999999));
    a.CensusIdGidId = `${fips}${censusType}${String(rng.int(1, 254)).padStart(3, '0')}${String(rng.int(1, 999)).padStart(3, '0')}00000`;
  }
  if (POLICE.has(kind))
    a.PoliceOri = `${b.stateCode}${String(rng.int(1, 254)).padStart(3, '0')}${String(rng.int(0, 99)).padStart(2, '0')}00`;
  if (FIRE.has(kind)) a.FdId = String(rng.int(1, 99999)).padStart(5, '0');

  if (COLLEGES.has(kind)) collegeAttributes(a, record, rng, now);
  if (DISTRICTS.has(kind) || SERVICE_AGENCIES.has(kind)) districtAttributes(a, record, rng, now, fips);
  if (SCHOOLS.has(kind)) schoolAttributes(a, record, rng, now, fips, parent);
  if (POLICE.has(kind)) {
    const p = pop ?? 20_000;
    a.PoliceOfficerCt = Math.max(
      6,
      Math.round((p / 1000) * (kind === 'sheriff' ? rng.float(0.5, 1.4) : rng.float(1.5, 3.2))),
    );
    a.PoliceDepartmentType = kind === 'sheriff' ? "Sheriff's Office" : 'Local Police Department';
    a.Psap = rng.chance(kind === 'sheriff' ? 0.8 : 0.65);
  }
  if (FIRE.has(kind)) fireAttributes(a, record, rng);
  if (GOVERNMENTS.has(kind)) a.Psap = rng.chance(kind === 'county' ? 0.4 : 0.15);
  if (kind === 'city' && pop !== null && rng.chance(0.7))
    a.WaterSystemPopulationServed = Math.round(pop * rng.float(1, 1.3));
  if (kind === 'specialDistrict') {
    a.Subentity = record.sector;
    a.SpecialDistrictResidentPopulationEstimate = pop;
    if (record.sector === 'Water Supply' || record.sector === 'Utilities')
      a.WaterSystemPopulationServed = pop;
  }
  if (GOVERNMENTS.has(kind) && pop !== null)
    a.MotorCarrierPowerUnits = Math.max(4, Math.round((pop / 1000) * rng.float(1.5, 6)));
  if (kind === 'stateAgency' && record.sector === 'Transportation & Infrastructure')
    a.MotorCarrierPowerUnits = rng.int(800, 9000);
  if (kind === 'specialDistrict' && record.sector === 'Transit') a.MotorCarrierPowerUnits = rng.int(80, 3000);
  if (DISTRICTS.has(kind) && typeof a.TotalEnrollment === 'number')
    a.MotorCarrierPowerUnits = Math.max(2, Math.round(a.TotalEnrollment / rng.int(50, 90)));
  if (kind === 'tribal') {
    a.IhbgFinalAllocationAmount = rng.int(900, 95_000) * 1000;
    a.TribalTransportationProgramShare = rng.int(400, 60_000) * 1000;
  }
  if (
    GOVERNMENTS.has(kind) ||
    DISTRICTS.has(kind) ||
    COLLEGES.has(kind) ||
    kind === 'specialDistrict' ||
    kind === 'tribal'
  ) {
    complianceAttributes(a, rng, year, name);
  }
  if (kind === 'library') a.ErateFunding = rng.int(10, 400) * 1000;
  a.EmployeeFte = employeeFte(record, a, rng);

  // Blank about a tenth of what is set, keeping paired values consistent.
  for (const key of BUYER_FIELDS) {
    if (KEPT.has(key) || a[key] === null || !rng.chance(0.1)) continue;
    a[key] = null;
    if (key === 'PopulationFiveYearChangePercentage') a.PopulationTrend = null;
    if (key === 'PropensityToSpendScore') a.PropensityToSpend = null;
    if (key === 'YoyChangeInEnrollment') a.EnrollmentTrend = 'Not Available';
    if (key === 'BudgetAmount') a.BudgetSbita = null;
  }
  return a;
}

function classifications(r: BuyerRecord): string[] {
  const pop = r.population ?? 0;
  switch (r.kind) {
    case 'city':
      return [
        'Municipal Government',
        pop >= 250_000 ? 'Large City' : pop >= 50_000 ? 'Mid-Size City' : 'Small City',
      ];
    case 'town':
      return ['Municipal Government', 'Town'];
    case 'village':
      return ['Municipal Government', 'Village'];
    case 'county':
      return [
        'County Government',
        pop >= 500_000 ? 'Metropolitan County' : pop >= 60_000 ? 'Suburban County' : 'Rural County',
      ];
    case 'federal':
      return ['Federal Government', r.buyer.parentBuyerId ? 'Sub-Agency' : 'Executive Department'];
    case 'stateAgency':
      return ['State Government', r.sector ?? 'State Agency'];
    case 'tribal':
      return ['Tribal Government', 'Federally Recognized Tribe'];
    case 'cityDistrict':
    case 'countyDistrict':
      return ['Public School District', 'K-12'];
    case 'serviceCenter':
    case 'countyOffice':
      return ['Regional Education Service Agency'];
    case 'publicSchool':
      return ['Public School', r.schoolLevel ?? 'School'];
    case 'charterSchool':
      return ['Charter School', r.schoolLevel ?? 'School'];
    case 'privateSchool':
      return ['Private School', r.schoolLevel ?? 'School'];
    case 'research':
      return [r.control === 'Private' ? 'Private' : 'Public', 'Four-Year', 'Research University'];
    case 'regional':
      return ['Public', 'Four-Year', 'Regional University'];
    case 'community':
      return ['Public', 'Two-Year', 'Community College'];
    case 'technical':
      return ['Public', 'Two-Year', 'Technical College'];
    case 'system':
      return ['Public', 'University System'];
    case 'communitySystem':
      return ['Public', 'Two-Year', 'Community College District'];
    case 'private':
      return ['Private', 'Four-Year', 'Nonprofit'];
    case 'police':
      return ['Law Enforcement', 'Municipal Police'];
    case 'sheriff':
      return ['Law Enforcement', "Sheriff's Office"];
    case 'fire':
    case 'countyFire':
      return ['Fire & EMS'];
    case 'library':
      return ['Public Library'];
    case 'specialDistrict':
      return ['Special District', r.sector ?? 'Special Purpose'];
    case 'office':
      return ['Government Office', r.sector ?? 'Office'];
  }
}

function collegeAttributes(a: Attributes, r: BuyerRecord, rng: Rng, now: Date): void {
  const kind = r.kind;
  const ranges: Partial<Record<BuyerKind, [number, number]>> = {
    research: [22_000, 62_000],
    regional: [7_000, 36_000],
    community: [5_000, 45_000],
    technical: [1_500, 9_000],
    system: [150_000, 600_000],
    communitySystem: [40_000, 160_000],
    private: [4_000, 25_000],
  };
  const [lo, hi] = ranges[kind] ?? [5_000, 20_000];
  const total = rng.int(lo, hi);
  const twoYear = kind === 'community' || kind === 'technical' || kind === 'communitySystem';
  const undergradShare = twoYear
    ? 1
    : kind === 'private'
      ? rng.float(0.35, 0.7)
      : kind === 'research'
        ? rng.float(0.65, 0.8)
        : rng.float(0.78, 0.92);
  const undergrad = Math.round(total * undergradShare);
  a.IpedsIdNumeric = rng.int(100_654, 499_999);
  a.DapipId = rng.int(100_000, 299_999);
  a.TotalEnrollment = total;
  a.HigherEdUndergradEnrollment = undergrad;
  a.HigherEdGraduationEnrollment = total - undergrad;
  a.HigherEdFullTimeEnrollment = Math.round(total * (twoYear ? rng.float(0.4, 0.6) : rng.float(0.82, 0.95)));
  a.HigherEdOnlineOnlyEnrollment = Math.round(total * rng.float(0.02, twoYear ? 0.3 : 0.18, 3));
  const institutionTypes: Partial<Record<BuyerKind, string>> = {
    research: r.control === 'Private' ? 'Private Research University' : 'Large Research University',
    regional: 'Undergraduate University',
    community: 'Community College',
    technical: 'Technical College',
    system: 'University System',
    communitySystem: 'Community College District',
    private: 'Private Research University',
  };
  a.HigherEdInstitutionType = institutionTypes[kind] ?? null;
  a.HigherEdGraduationRate = twoYear
    ? rng.float(14, 42, 1)
    : kind === 'private'
      ? rng.float(82, 98, 1)
      : kind === 'research'
        ? rng.float(68, 94, 1)
        : rng.float(40, 72, 1);
  a.HigherEdRetentionRate = twoYear ? rng.float(48, 72, 1) : rng.float(70, 97, 1);
  a.HigherEdAcceptanceRate = twoYear ? 100 : kind === 'private' ? rng.float(4, 30, 1) : rng.float(25, 92, 1);
  a.HigherEdYieldRate = twoYear ? null : rng.float(12, 62, 1);
  a.HigherEdControlOfInstitution = r.control ?? 'Public';
  a.HigherEdForProfitStatus = false;
  a.HigherEdLevelOfInstitution = twoYear ? 'At least 2 but less than 4 years' : 'Four or more years';
  a.HigherEdRecruitmentAdmissionsCrmArray = rng.sample(CRMS, rng.int(1, 2));
  const endowment =
    kind === 'private'
      ? rng.int(4_000, 50_000) * 1_000_000
      : kind === 'research' || kind === 'system'
        ? rng.int(800, 20_000) * 1_000_000
        : twoYear
          ? rng.int(5, 120) * 1_000_000
          : rng.int(40, 800) * 1_000_000;
  a.HigherEdEndowment = endowment;
  a.HigherEdTotalExpenses = thousands(total * rng.float(twoYear ? 9_000 : 25_000, twoYear ? 16_000 : 70_000));
  a.HigherEdMascot = r.mascot;
  a.HigherEdNumberOfOnCampusResidents = twoYear
    ? rng.chance(0.3)
      ? rng.int(100, 900)
      : 0
    : Math.round(total * rng.float(0.1, 0.35));
  a.HigherEdNumberOfFullTimeEmployees = Math.round(
    total * rng.float(twoYear ? 0.06 : 0.15, twoYear ? 0.12 : 0.4),
  );
  a.HigherEdSisModernizationStatus = rng.pick(SIS_STATUS);
  const accreditor =
    r.buyer.stateCode === 'CA' && twoYear
      ? 'Accrediting Commission for Community and Junior Colleges'
      : r.state.accreditor;
  const nextReview = new Date(Date.UTC(now.getUTCFullYear() + rng.int(1, 9), rng.int(0, 11), 1));
  a.HigherEdPrimaryRegionalAccreditor = accreditor;
  a.HigherEdAccreditationStatus = rng.weighted(
    ['Accredited', 'Accredited - Warning', 'Accredited - Probation'],
    [92, 6, 2],
  );
  a.HigherEdNextAccreditationReviewDate = isoDate(nextReview);
  a.HigherEdAccreditationSummary = twoYear
    ? `Institutionally accredited by the ${accreditor} through ${nextReview.getUTCFullYear()}; nursing and allied health programs hold separate program accreditation.`
    : `Institutionally accredited by the ${accreditor} through ${nextReview.getUTCFullYear()}; program accreditations include ${rng.sample(PROGRAM_ACCREDITORS, 2).join(' and ')}.`;
  a.HigherEdSystem = kind === 'system';
  a.CommunityCollegeSystem = kind === 'communitySystem';
  a.HigherEdContinuingProfessionalEducationOffered = rng.chance(0.8);
  a.Sis = rng.pick(SIS_HE);
  a.LmsArray = rng.sample(LMS_HE, rng.chance(0.8) ? 1 : 2);
  a.HasCampusPolice = rng.chance(twoYear ? 0.4 : 0.85);
  a.StudentGenderComposition = 'Coeducational';
  const yoy = rng.float(-6, 6, 1);
  a.YoyChangeInEnrollment = yoy;
  a.EnrollmentTrend = enrollmentTrendFor(yoy);
  a.EnrollmentTrendBasedOnFte = true;
}

function schoolYear(rng: Rng, now: Date): [string, string] {
  const start = now.getUTCMonth() >= 6 ? now.getUTCFullYear() : now.getUTCFullYear() - 1;
  return [
    `${start}-08-${String(rng.int(8, 26)).padStart(2, '0')}`,
    `${start + 1}-${rng.chance(0.5) ? '05' : '06'}-${String(rng.int(15, 28)).padStart(2, '0')}`,
  ];
}

function k12Common(a: Attributes, r: BuyerRecord, rng: Rng, enrollment: number): void {
  const d = demographics(rng, r.buyer.stateCode);
  a.TotalEnrollment = enrollment;
  a.EnglishLearners = d.englishLearners;
  a.LatinoPercentage = d.latino;
  a.BlackPercentage = d.black;
  a.WhitePercentage = d.white;
  a.StudentTeacherRatio = rng.float(11.5, 19.5, 1);
  a.FreeOrReducedLunchEligiblePercentage = rng.float(12, 88, 1);
  const sped = rng.float(0.1, 0.18, 4);
  a.SpecialEducationEnrollment = Math.round(enrollment * sped);
  a.SpecialEducationEnrollmentPercentage = round1(sped * 100);
  a.PerPupilExpenditure = rng.int(
    9_500,
    ['NY', 'NJ', 'CT', 'MA', 'VT', 'DC', 'AK'].includes(r.buyer.stateCode) ? 30_000 : 18_000,
  );
  a.MathProficiencyPercentage = rng.float(18, 78, 1);
  a.ElaProficiencyPercentage = rng.float(22, 80, 1);
  a.ChronicAbsenteeismPercentage = rng.float(7, 38, 1);
  a.MathProficiencyStatePercentile = rng.int(1, 99);
  a.ElaProficiencyStatePercentile = rng.int(1, 99);
  a.SchoolCurriculumProgramArray = rng.sample(CURRICULA, rng.int(1, 3));
  const yoy = rng.float(-6, 5, 1);
  a.YoyChangeInEnrollment = yoy;
  a.EnrollmentTrend = enrollmentTrendFor(yoy);
  a.EnrollmentTrendBasedOnFte = false;
  a.Sis = rng.pick(SIS_K12);
  a.LmsArray = rng.sample(LMS_K12, rng.int(1, 2));
}

function districtAttributes(a: Attributes, r: BuyerRecord, rng: Rng, now: Date, fips: string): void {
  a.NcesId = `${fips}${String(rng.int(0, 99999)).padStart(5, '0')}`;
  a.NcesStateDistrictId = `${r.buyer.stateCode}-${String(rng.int(1, 999999)).padStart(6, '0')}`;
  a.SchoolDistrictSector = 'Public';
  const [start, end] = schoolYear(rng, now);
  a.SchoolYearStartDate = start;
  a.SchoolYearEndDate = end;
  if (r.kind === 'serviceCenter' || r.kind === 'countyOffice') {
    a.SchoolDistrictType = 'Regional education service agency';
    a.SchoolDistrictTotalStaff = rng.int(120, 1400);
    return;
  }
  const pop = r.population ?? 20_000;
  const enrollment = Math.max(300, Math.round(pop * rng.float(0.07, 0.16, 3)));
  k12Common(a, r, rng, enrollment);
  const loc = locale(pop, rng);
  a.SchoolDistrictType =
    ['VT', 'NH', 'ME', 'MA'].includes(r.buyer.stateCode) && rng.chance(0.3)
      ? 'Local school district that is a component of a supervisory union'
      : 'Regular local school district';
  a.SchoolDistrictLocale = loc;
  const teachers = round1(enrollment / Number(a.StudentTeacherRatio));
  a.SchoolDistrictFullTimeEquivalentTeachers = teachers;
  a.LowestGradeOffered = rng.chance(0.7) ? -1 : 0;
  a.HighestGradeOffered = 12;
  const elementary = Math.max(1, Math.round(enrollment / rng.int(450, 650)));
  const middle = Math.max(1, Math.round(enrollment / rng.int(1000, 1400)));
  const high = Math.max(1, Math.round(enrollment / rng.int(1600, 2400)));
  a.SchoolDistrictElementarySchools = elementary;
  a.SchoolDistrictMiddleSchools = middle;
  a.SchoolDistrictHighSchools = high;
  a.SchoolDistrictNumberOfSchools = elementary + middle + high + rng.int(0, Math.ceil(elementary / 8));
  a.SchoolDistrictNewlyOpenedSchoolCount = rng.weighted([0, 1, 2, 3], [70, 20, 7, 3]);
  a.SchoolDistrictClosedSchoolCount = rng.weighted([0, 1, 2, 3], [72, 18, 7, 3]);
  a.SchoolDistrictTotalStaff = Math.round(teachers * rng.float(1.8, 2.3));
  a.SchoolDistrictMedianHouseholdIncome = Math.min(250_000, rng.int(36, 190) * 1000);
  if (r.serviceAgency) {
    a.RegionalEducationServiceAgencyName = r.serviceAgency.buyer.name;
    a.RegionalEducationServiceAgencyBuyerId = r.serviceAgency.buyer.id;
  }
  a.GraduationRatePercentage = rng.float(72, 97, 1);
  a.SchoolVirtualStatus = rng.weighted(
    ['No virtual instruction', 'Supplemental virtual', 'Virtual with face to face options'],
    [45, 45, 10],
  );
  const perPupil = Number(a.PerPupilExpenditure);
  const revenue = thousands(enrollment * perPupil * rng.float(1.05, 1.2));
  const federal = thousands(revenue * rng.float(0.06, 0.14));
  const state = thousands(revenue * rng.float(0.3, 0.55));
  a.SchoolDistrictTotalRevenue = revenue;
  a.SchoolDistrictFederalRevenue = federal;
  a.SchoolDistrictStateRevenue = state;
  a.SchoolDistrictLocalRevenue = revenue - federal - state;
  const frl = Number(a.FreeOrReducedLunchEligiblePercentage) / 100;
  a.TitleIFunding = thousands(enrollment * frl * rng.float(420, 700));
  a.TitleIiFunding = thousands(enrollment * rng.float(12, 26));
  a.TitleIiiFunding = thousands(enrollment * (Number(a.EnglishLearners) / 100) * rng.float(90, 160));
  a.TitleIvFunding = thousands(enrollment * rng.float(8, 18));
  a.TitleVFunding = loc.startsWith('Rural') || loc.startsWith('Town') ? rng.int(20, 90) * 1000 : null;
  a.ErateFunding = thousands(enrollment * rng.float(6, 40));
}

function schoolAttributes(
  a: Attributes,
  r: BuyerRecord,
  rng: Rng,
  now: Date,
  fips: string,
  parent: BuyerRecord | undefined,
): void {
  const level = r.schoolLevel ?? 'Elementary';
  const enrollment =
    level === 'High School'
      ? rng.int(700, 3200)
      : level === 'Middle'
        ? rng.int(450, 1300)
        : rng.int(220, 780);
  k12Common(a, r, rng, enrollment);
  a.NcesId =
    r.kind === 'privateSchool'
      ? `A${rng.int(1000000, 9999999)}`
      : `${fips}${String(rng.int(0, 9999999999)).padStart(10, '0')}`;
  if (r.kind !== 'privateSchool')
    a.NcesStateDistrictId = `${r.buyer.stateCode}-${String(rng.int(1, 999999)).padStart(6, '0')}-${String(rng.int(1, 999)).padStart(3, '0')}`;
  const [start, end] = schoolYear(rng, now);
  a.SchoolYearStartDate = start;
  a.SchoolYearEndDate = end;
  const grades: [number, number] =
    level === 'High School' ? [9, 12] : level === 'Middle' ? [6, 8] : [rng.chance(0.5) ? -1 : 0, 5];
  a.LowestGradeOffered = grades[0];
  a.HighestGradeOffered = grades[1];
  a.SchoolSector = r.kind === 'privateSchool' ? 'Private' : r.kind === 'charterSchool' ? 'Charter' : 'Public';
  a.SchoolLevel = level;
  a.AlternativeSchool = rng.chance(0.04);
  a.ReligiousAffiliation = r.religion;
  a.StudentGenderComposition =
    r.kind === 'privateSchool' && rng.chance(0.25) ? rng.pick(['All-Female', 'All-Male']) : 'Coeducational';
  a.SchoolVirtualStatus = rng.weighted(
    ['No virtual instruction', 'Supplemental virtual', 'Exclusively virtual'],
    [80, 17, 3],
  );
  if (r.kind === 'charterSchool') a.SchoolManagementOrganizationName = r.operator;
  if (level === 'High School') a.GraduationRatePercentage = rng.float(70, 99, 1);
  if (r.kind !== 'privateSchool') {
    a.AtsiDesignation = rng.chance(0.08);
    a.TsiDesignation = rng.chance(0.1);
    a.CsiDesignation = rng.chance(0.04);
    a.ErateFunding = rng.int(5, 120) * 1000;
  }
  if (parent?.serviceAgency) {
    a.RegionalEducationServiceAgencyName = parent.serviceAgency.buyer.name;
    a.RegionalEducationServiceAgencyBuyerId = parent.serviceAgency.buyer.id;
  }
}

function fireAttributes(a: Attributes, r: BuyerRecord, rng: Rng): void {
  const pop = r.population ?? 15_000;
  const type =
    pop >= 100_000
      ? 'Career'
      : pop >= 30_000
        ? rng.weighted(['Career', 'Combination'], [60, 40])
        : rng.weighted(['Combination', 'Volunteer'], [55, 45]);
  const stations = Math.max(1, Math.round(pop / rng.int(9_000, 16_000)));
  a.FireDepartmentType = type;
  a.FireDepartmentOrganizationType = 'Local';
  a.FireDepartmentPrimaryAgency = rng.chance(0.75);
  a.FireDepartmentNumberOfStations = stations;
  const career =
    type === 'Volunteer'
      ? 0
      : Math.round(stations * rng.int(type === 'Career' ? 14 : 4, type === 'Career' ? 22 : 10));
  const volunteer = type === 'Career' ? 0 : Math.round(stations * rng.int(12, 30));
  a.FireDepartmentActiveFirefightersCareer = career;
  a.FireDepartmentActiveFirefightersVolunteer = volunteer;
  a.FireDepartmentActiveFirefightersPaidPerCall = type === 'Career' ? 0 : rng.int(0, 25);
  a.FireDepartmentNonFirefightingCivilian = Math.round(career * rng.float(0.05, 0.2));
  a.FireDepartmentNonFirefightingVolunteer = type === 'Career' ? rng.int(0, 5) : rng.int(0, 20);
  a.Psap = rng.chance(0.3);
}

function complianceAttributes(a: Attributes, rng: Rng, year: number, name: string): void {
  const risk = rng.weighted(['High', 'Medium', 'None'], [10, 24, 66]);
  a.FederalGrantComplianceRisk = risk;
  if (risk === 'None') return;
  const program = rng.pick(GRANT_PROGRAMS);
  const auditYear = year - rng.int(1, 2);
  a.FederalGrantComplianceCapSummary =
    risk === 'High'
      ? `FY${auditYear} single audit of ${name} reported a material weakness in ${program} reporting; the corrective action plan moves grant reconciliation to the finance office by June ${auditYear + 2}.`
      : `FY${auditYear} single audit of ${name} noted a significant deficiency in ${program} procurement documentation; the corrective action plan adds a second review of vendor files.`;
}

function employeeFte(r: BuyerRecord, a: Attributes, rng: Rng): number {
  const pop = r.population ?? 0;
  const enrollment = typeof a.TotalEnrollment === 'number' ? a.TotalEnrollment : 0;
  switch (r.kind) {
    case 'city':
    case 'town':
    case 'village':
      return Math.max(8, Math.round(pop * rng.float(0.007, 0.014, 4)));
    case 'county':
      return Math.max(20, Math.round(pop * rng.float(0.003, 0.009, 4)));
    case 'police':
    case 'sheriff':
      return Math.round((Number(a.PoliceOfficerCt) || 20) * rng.float(1.2, 1.5));
    case 'fire':
    case 'countyFire':
      return Math.max(
        5,
        Math.round(((Number(a.FireDepartmentActiveFirefightersCareer) || 0) + 5) * rng.float(1.05, 1.2)),
      );
    case 'library':
      return Math.max(6, Math.round(pop * rng.float(0.0002, 0.0006, 5)));
    case 'stateAgency':
      return Math.round((pop / 1000) * rng.float(0.05, 1.2));
    case 'federal':
      return rng.int(3, 700) * 1000;
    case 'tribal':
      return rng.int(300, 12_000);
    case 'specialDistrict':
      return rng.int(25, 8_000);
    case 'office':
      return rng.int(12, 2_500);
    case 'serviceCenter':
    case 'countyOffice':
      return rng.int(120, 1_400);
    case 'cityDistrict':
    case 'countyDistrict':
      return Math.round(enrollment * rng.float(0.11, 0.16));
    case 'publicSchool':
    case 'charterSchool':
    case 'privateSchool':
      return Math.round(enrollment * rng.float(0.08, 0.12));
    default:
      return Math.round(enrollment * rng.float(0.15, 0.35));
  }
}
