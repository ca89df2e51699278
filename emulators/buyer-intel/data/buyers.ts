// The sandbox's buyers: cities, counties, school districts and schools, colleges, police and fire
// departments, libraries, special districts, state agencies, federal agencies and a few tribal
// governments, all placed in real US cities and counties. Large places are always in; smaller ones are
// drawn with the seed. The resolver's hard cases (every Springfield, the Austins, Portland, Columbus,
// Kansas City) are in whatever the seed.
import type { BuyerType } from '../../../src/buyer-intel/enums.ts';
import {
  COLLEGES,
  FEDERAL_AGENCIES,
  SPECIAL_DISTRICTS,
  STATE_AGENCY_TEMPLATES,
  TEXAS_AGENCIES,
  TEXAS_SERVICE_CENTERS,
  TRIBAL_GOVERNMENTS,
  URL_OVERRIDES,
} from './curated.ts';
import type { BuyerKind } from './kinds.ts';
import { type LongTailBuyer, RENAMES } from './long-tail.ts';
import { LONG_TAIL } from './long-tail-buyers.ts';
import { compact, MASCOTS, SCHOOL_NAMES, slugify, urlHost, urlOrigin } from './names.ts';
import { type CityPlace, type CountyPlace, loadPlaces, type Places } from './places.ts';
import { createRng, hash32, type Rng, uuidFromKey, weightedSample } from './rng.ts';
import { COUNTY_SCHOOL_STATES, type StateFacts, stateFacts, US_STATES } from './state-facts.ts';
import type { SandboxBuyer } from './types.ts';

/** Finer kind of a buyer than its type; drives names, attributes and signal templates. */
export type { BuyerKind } from './kinds.ts';

/** A buyer plus what the generator knows about it (never sent as is). */
export interface BuyerRecord {
  buyer: SandboxBuyer;
  kind: BuyerKind;
  /** Scheme and host of the buyer's URL: `https://www.austintexas.gov`. */
  site: string | null;
  state: StateFacts;
  commonName: string | null;
  /** Population served (real for cities), null where it does not apply. */
  population: number | null;
  /** Relative size, for weighting signals towards larger buyers. */
  size: number;
  lat: number;
  lon: number;
  zip: string | null;
  /** The real street address where the data knows it (the long tail); null: Street1 is drawn. */
  street: string | null;
  /** One of the resolver's hard cases: always present, always with recent signals. */
  hard: boolean;
  /** State agency sector, special district subentity. */
  sector: string | null;
  agencyCode: string | null;
  mascot: string | null;
  control: 'Public' | 'Private' | null;
  schoolLevel: 'Elementary' | 'Middle' | 'High School' | null;
  /** Charter operator or religious affiliation of a school. */
  operator: string | null;
  religion: string | null;
  /** The regional education service agency of a school district. */
  serviceAgency: BuyerRecord | null;
}

interface NewBuyer {
  name: string;
  type: BuyerType;
  kind: BuyerKind;
  state: string;
  city: string | null;
  county: string | null;
  lat: number;
  lon: number;
  zip: string | null;
  street?: string | null;
  /** Full URLs in order of preference; the first whose host is free is used. */
  urls: string[];
  /** A URL shared with the parent (a department's page on its city's site). */
  sharedUrl?: string;
  extraEmailDomains?: string[];
  /** Mail domains when they are not the URL's (a school uses its district's). */
  emailDomains?: string[];
  parent?: BuyerRecord | null;
  population: number | null;
  size: number;
  commonName?: string | null;
  hard?: boolean;
  sector?: string | null;
  agencyCode?: string | null;
  mascot?: string | null;
  control?: 'Public' | 'Private' | null;
  schoolLevel?: BuyerRecord['schoolLevel'];
  operator?: string | null;
  religion?: string | null;
}

const TAGS: Partial<Record<BuyerType, string[]>> = {
  City: ['Local Government', 'Municipality'],
  County: ['Local Government', 'County Government'],
  SchoolDistrict: ['K-12', 'Education'],
  School: ['K-12', 'Education'],
  HigherEducation: ['Higher Education', 'Education'],
  PoliceDepartment: ['Public Safety', 'Law Enforcement'],
  FireDepartment: ['Public Safety', 'Fire & EMS'],
  StateAgency: ['State Government'],
  SpecialDistrict: ['Special District', 'Local Government'],
  Federal: ['Federal Government'],
  Library: ['Library', 'Local Government'],
  IndigenousGovernment: ['Tribal Government'],
  TransportationAgency: ['Transportation', 'Special District'],
  District: ['Special District', 'Local Government'],
  LegislativeBody: ['Legislature'],
  CountyClerk: ['Local Government', 'County Government'],
  CityClerk: ['Local Government', 'Municipality'],
};
const ACCOUNT_TAGS = ['Target Account', 'Customer', 'Open Opportunity', 'Renewal 2027', 'Strategic'];

const cityLabel = (city: CityPlace) => (city.name === 'New York City' ? 'New York' : city.name);

class Registry {
  readonly records: BuyerRecord[] = [];
  private readonly names = new Set<string>();
  private readonly hosts = new Set<string>();
  private readonly slugs = new Set<string>();
  readonly byKey = new Map<string, BuyerRecord>();
  private readonly seed: number;
  private readonly rng: Rng;

  constructor(seed: number, rng: Rng) {
    this.seed = seed;
    this.rng = rng;
  }

  has(name: string, state: string): boolean {
    return this.names.has(`${name}|${state}`);
  }

  get(name: string, state: string): BuyerRecord | undefined {
    return this.byKey.get(`${name}|${state}`);
  }

  remove(records: ReadonlySet<BuyerRecord>): void {
    for (const record of records) {
      const key = `${record.buyer.name}|${record.buyer.stateCode}`;
      this.names.delete(key);
      this.byKey.delete(key);
    }
    const kept = this.records.filter((r) => !records.has(r));
    this.records.length = 0;
    this.records.push(...kept);
  }

  /** The provider's real name for a generated buyer: the id stays the one of the generated name. */
  rename(key: string, name: string, commonName: string): void {
    const record = this.byKey.get(key);
    if (!record) return;
    const renamed = `${name}|${record.buyer.stateCode}`;
    if (this.names.has(renamed)) throw new Error(`rename: ${renamed} is taken`);
    this.names.add(renamed);
    this.byKey.set(renamed, record);
    record.buyer.name = name;
    record.commonName = commonName;
  }

  private claimUrl(candidates: readonly string[]): string | null {
    for (const url of candidates) {
      const host = urlHost(url);
      if (this.hosts.has(host)) continue;
      this.hosts.add(host);
      return url;
    }
    return null;
  }

  add(spec: NewBuyer): BuyerRecord | null {
    const key = `${spec.name}|${spec.state}`;
    if (this.names.has(key)) return null;
    this.names.add(key);
    const facts = stateFacts(spec.state);
    const id = uuidFromKey(`${this.seed}|buyer|${key}`);
    const override = URL_OVERRIDES[key];
    if (override) this.hosts.add(urlHost(override));
    const url = override ?? spec.sharedUrl ?? this.claimUrl(spec.urls);
    const host = url ? urlHost(url) : null;
    const emailDomains = spec.emailDomains ?? (host ? [host, ...(spec.extraEmailDomains ?? [])] : []);

    let linkedinSlug: string | null = null;
    if (this.rng.chance(spec.hard ? 1 : 0.7)) {
      const base = slugify(spec.name);
      for (const candidate of [base, `${base}-${spec.state.toLowerCase()}`]) {
        if (this.slugs.has(candidate)) continue;
        this.slugs.add(candidate);
        linkedinSlug = candidate;
        break;
      }
    }
    const tags = [...(TAGS[spec.type] ?? [])];
    if (spec.population !== null && spec.population >= 250_000) tags.push('Large Jurisdiction');
    if (this.rng.chance(0.12)) tags.push(this.rng.pick(ACCOUNT_TAGS));

    const buyer: SandboxBuyer = {
      id,
      name: spec.name,
      type: spec.type,
      countryCode: 'US',
      stateCode: spec.state,
      stateName: facts.name,
      city: spec.city,
      county: spec.county,
      url,
      emailDomains,
      linkedinSlug,
      logoPath: this.rng.chance(0.65) ? `/buyer-logos/${id}.png` : null,
      tags,
      fromSourceFile: this.rng.chance(0.1),
      parentBuyerId: spec.parent?.buyer.id ?? null,
    };
    const record: BuyerRecord = {
      buyer,
      kind: spec.kind,
      site: url ? urlOrigin(url) : null,
      state: facts,
      commonName: spec.commonName ?? null,
      population: spec.population,
      size: Math.max(1, spec.size),
      lat: spec.lat,
      lon: spec.lon,
      zip: spec.zip,
      street: spec.street ?? null,
      hard: spec.hard ?? false,
      sector: spec.sector ?? null,
      agencyCode: spec.agencyCode ?? null,
      mascot: spec.mascot ?? null,
      control: spec.control ?? null,
      schoolLevel: spec.schoolLevel ?? null,
      operator: spec.operator ?? null,
      religion: spec.religion ?? null,
      serviceAgency: null,
    };
    this.records.push(record);
    this.byKey.set(key, record);
    return record;
  }
}

/** How many of each kind for a given total (6,000 by default). */
function quotas(buyerCount: number) {
  const s = buyerCount / 6000;
  return {
    counties: Math.round(840 * s),
    schoolDistricts: Math.round(1230 * s),
    schools: Math.round(120 * s),
    libraries: Math.round(80 * s),
    colleges: Math.round(330 * s),
    police: Math.round(330 * s),
    fire: Math.round(290 * s),
    specialDistricts: Math.round(300 * s),
    agenciesPerState: Math.min(STATE_AGENCY_TEMPLATES.length, Math.round(7 * s)),
    headCities: Math.round(1150 * s),
    federal: Math.max(4, Math.round(FEDERAL_AGENCIES.length * s * 2)),
    tribal: Math.max(1, Math.round(TRIBAL_GOVERNMENTS.length * s * 2)),
  };
}

/** The hard cases of name resolution, by (name, state). */
export const HARD_CASES: readonly { name: string; state: string; type: BuyerType }[] = [
  { name: 'City of Austin', state: 'TX', type: 'City' },
  { name: 'City of Austin', state: 'MN', type: 'City' },
  { name: 'Austin County', state: 'TX', type: 'County' },
  { name: 'Travis County', state: 'TX', type: 'County' },
  { name: 'Austin Independent School District', state: 'TX', type: 'SchoolDistrict' },
  { name: 'The University of Texas at Austin', state: 'TX', type: 'HigherEducation' },
  { name: 'Austin Community College', state: 'TX', type: 'HigherEducation' },
  { name: 'Austin Police Department', state: 'TX', type: 'PoliceDepartment' },
  { name: 'Austin Fire Department', state: 'TX', type: 'FireDepartment' },
  { name: 'Springfield Public Schools', state: 'MA', type: 'SchoolDistrict' },
  { name: 'Springfield Public Schools', state: 'MO', type: 'SchoolDistrict' },
  { name: 'Springfield School District', state: 'OR', type: 'SchoolDistrict' },
  { name: 'Springfield Public School District 186', state: 'IL', type: 'SchoolDistrict' },
  { name: 'City of Portland', state: 'OR', type: 'City' },
  { name: 'City of Portland', state: 'ME', type: 'City' },
  { name: 'City of Columbus', state: 'OH', type: 'City' },
  { name: 'City of Columbus', state: 'GA', type: 'City' },
  { name: 'City of Kansas City', state: 'MO', type: 'City' },
  { name: 'City of Kansas City', state: 'KS', type: 'City' },
];
const HARD_CITIES: readonly [string, string][] = [
  ['Austin', 'TX'],
  ['Austin', 'MN'],
  ['Portland', 'OR'],
  ['Portland', 'ME'],
  ['Columbus', 'OH'],
  ['Columbus', 'GA'],
  ['Kansas City', 'MO'],
  ['Kansas City', 'KS'],
];

function cityGovernmentName(city: CityPlace, hard: boolean): { name: string; kind: BuyerKind } {
  if (city.state === 'DC') return { name: 'Government of the District of Columbia', kind: 'city' };
  if (city.name === 'New York City') return { name: 'City of New York', kind: 'city' };
  if (!hard) {
    const township = /^(.*) Township$/.exec(city.name)?.[1];
    if (township) {
      return {
        name: city.state === 'MI' ? `Charter Township of ${township}` : `Township of ${township}`,
        kind: 'town',
      };
    }
    if (['MA', 'CT', 'ME', 'NH', 'VT', 'RI'].includes(city.state) && city.population < 20_000) {
      return { name: `Town of ${city.name}`, kind: 'town' };
    }
    if (['NY', 'IL', 'OH', 'WI', 'MI'].includes(city.state) && city.population < 8_000) {
      return { name: `Village of ${city.name}`, kind: 'village' };
    }
  }
  return { name: `City of ${city.name}`, kind: 'city' };
}

function cityUrls(city: CityPlace, kind: BuyerKind): string[] {
  const slug = compact(cityLabel(city));
  const st = city.state.toLowerCase();
  const stateSlug = compact(stateFacts(city.state).name);
  if (city.state === 'DC') return ['https://dc.gov'];
  if (kind === 'town')
    return [`https://www.townof${slug}.org`, `https://www.${slug}-${st}.gov`, `https://www.${slug}${st}.gov`];
  if (kind === 'village')
    return [
      `https://www.villageof${slug}.org`,
      `https://www.${slug}${st}.gov`,
      `https://www.villageof${slug}${st}.org`,
    ];
  const variants = [
    `https://www.${slug}${st}.gov`,
    `https://www.cityof${slug}.org`,
    `https://www.${slug}${stateSlug}.gov`,
  ];
  const first = hash32(`${city.name}|${city.state}`) % variants.length;
  return [...variants.slice(first), ...variants.slice(0, first), `https://www.cityof${slug}${st}.gov`];
}

function countyUrls(county: CountyPlace): string[] {
  const slug = compact(county.shortName);
  const st = county.state.toLowerCase();
  const word = county.suffix === 'City and Borough' ? 'cbj' : county.suffix.toLowerCase();
  return [
    `https://www.${slug}${word}${st}.gov`,
    `https://www.${slug}${word}.org`,
    `https://www.co.${slug}.${st}.us`,
  ];
}

function schoolDistrictName(place: CityPlace | CountyPlace, rng: Rng): string {
  if ('shortName' in place) {
    const short = place.shortName;
    switch (place.state) {
      case 'FL':
        return hash32(short) % 2 ? `${short} County Public Schools` : `School District of ${short} County`;
      case 'MD':
      case 'VA':
        return `${short} County Public Schools`;
      case 'LA':
        return `${short} Parish School Board`;
      case 'NV':
      case 'UT':
        return `${short} County School District`;
      default:
        return place.suffix === 'County' ? `${short} County Schools` : `${place.displayName} School District`;
    }
  }
  const city = cityLabel(place);
  switch (place.state) {
    case 'TX':
      return `${city} Independent School District`;
    case 'CA':
    case 'AZ':
      return place.population > 40_000
        ? `${city} Unified School District`
        : `${city} Elementary School District`;
    case 'NY':
      return `${city} City School District`;
    case 'OH':
      return `${city} City Schools`;
    case 'PA':
      return `${city} Area School District`;
    case 'IA':
      return `${city} Community School District`;
    case 'IL':
      return `${city} School District ${rng.int(2, 230)}`;
    case 'NJ':
    case 'MI':
    case 'MN':
    case 'MA':
    case 'OK':
    case 'CT':
      return `${city} Public Schools`;
    case 'WA':
    case 'OR':
    case 'WI':
      return `${city} School District`;
    default:
      return hash32(city + place.state) % 2 ? `${city} Public Schools` : `${city} School District`;
  }
}

function schoolDistrictUrls(name: string, city: string, state: string): string[] {
  const slug = compact(city);
  const st = state.toLowerCase();
  if (name.endsWith('Independent School District'))
    return [`https://www.${slug}isd.org`, `https://www.${slug}isd.net`];
  if (name.endsWith('Unified School District'))
    return [`https://www.${slug}usd.org`, `https://www.${slug}usd.net`];
  if (name.includes(' County ') || name.includes(' Parish ') || name.startsWith('School District of')) {
    return [
      `https://www.${slug}.k12.${st}.us`,
      `https://www.${slug}schools.org`,
      `https://www.${slug}${st}schools.org`,
    ];
  }
  return [
    `https://www.${slug}schools.org`,
    `https://www.${slug}.k12.${st}.us`,
    `https://www.${slug}${st}schools.org`,
  ];
}

interface Context {
  places: Places;
  reg: Registry;
  rng: Rng;
  q: ReturnType<typeof quotas>;
}

function seatOf(places: Places, cityName: string, state: string): CityPlace {
  const city =
    places.city(cityName, state) ??
    places.cities.find((c) => c.state === state && c.trusted) ??
    places.cities.find((c) => c.state === state);
  if (!city) throw new Error(`no city in ${state}`);
  return city;
}

function addCity(ctx: Context, city: CityPlace, hard: boolean): BuyerRecord | null {
  const { name, kind } = cityGovernmentName(city, hard);
  return ctx.reg.add({
    name,
    type: 'City',
    kind,
    state: city.state,
    city: cityLabel(city),
    county: city.county,
    lat: city.lat,
    lon: city.lon,
    zip: city.zip,
    urls: cityUrls(city, kind),
    extraEmailDomains: ctx.rng.chance(0.15)
      ? [`ci.${compact(city.name)}.${city.state.toLowerCase()}.us`]
      : [],
    population: city.population,
    size: city.population,
    hard,
    commonName: kind === 'city' ? cityLabel(city) : null,
  });
}

function addCounty(ctx: Context, county: CountyPlace, hard: boolean): BuyerRecord | null {
  return ctx.reg.add({
    name: county.displayName,
    type: 'County',
    kind: 'county',
    state: county.state,
    city: county.largestCity ? cityLabel(county.largestCity) : county.postalCity,
    county: county.name,
    lat: county.lat,
    lon: county.lon,
    zip: county.zip,
    urls: countyUrls(county),
    extraEmailDomains: ctx.rng.chance(0.15)
      ? [`co.${compact(county.shortName)}.${county.state.toLowerCase()}.us`]
      : [],
    population: county.population,
    size: county.population,
    hard,
    commonName: county.shortName,
  });
}

export function buildBuyers(seed: number, buyerCount: number): BuyerRecord[] {
  const places = loadPlaces();
  const rng = createRng(`${seed}|buyers`);
  const reg = new Registry(seed, rng);
  const q = quotas(buyerCount);
  const ctx: Context = { places, reg, rng, q };
  const trusted = places.cities.filter((c) => c.trusted);

  // Federal agencies (departments before their sub-agencies).
  for (const agency of FEDERAL_AGENCIES.slice(0, q.federal)) {
    const city = seatOf(places, agency.city, agency.state);
    reg.add({
      name: agency.name,
      type: 'Federal',
      kind: 'federal',
      state: agency.state,
      city: cityLabel(city),
      county: city.county,
      lat: city.lat,
      lon: city.lon,
      zip: city.zip,
      urls: [`https://www.${agency.domain}`],
      extraEmailDomains: agency.extraEmailDomain ? [agency.extraEmailDomain] : [],
      parent: agency.parent ? (reg.records.find((r) => r.buyer.name === agency.parent) ?? null) : null,
      population: null,
      size: 6_000_000,
      commonName: agency.commonName,
      agencyCode: agency.agencyCode,
    });
  }

  // Cities: the hard cases, capitals, each state's largest, then the largest of the rest.
  const headCities: CityPlace[] = [];
  const cityRecords = new Map<CityPlace, BuyerRecord>();
  const takeCity = (city: CityPlace | undefined, hard: boolean) => {
    if (!city || cityRecords.has(city)) return;
    const record = addCity(ctx, city, hard);
    if (record) {
      cityRecords.set(city, record);
      headCities.push(city);
    }
  };
  for (const city of places.cities) if (city.name === 'Springfield') takeCity(city, true);
  for (const [name, state] of HARD_CITIES) takeCity(places.city(name, state), true);
  if (q.headCities >= 2 * US_STATES.length) {
    for (const s of US_STATES) takeCity(places.city(s.capital, s.code), false);
    for (const s of US_STATES)
      takeCity(
        trusted.find((c) => c.state === s.code),
        false,
      );
  }
  for (const city of trusted) {
    if (headCities.length >= q.headCities) break;
    takeCity(city, false);
  }
  const bigCities = [...headCities].sort((a, b) => b.population - a.population);

  // Counties: the hard cases and the hard cities' counties, the largest, then a seeded draw.
  const countyRecords = new Map<CountyPlace, BuyerRecord>();
  const takeCounty = (county: CountyPlace | undefined, hard: boolean) => {
    if (!county || countyRecords.has(county) || countyRecords.size >= Math.max(q.counties, 4)) return;
    const record = addCounty(ctx, county, hard);
    if (record) countyRecords.set(county, record);
  };
  takeCounty(places.county('Travis County', 'TX'), true);
  takeCounty(places.county('Austin County', 'TX'), true);
  for (const city of headCities.slice(0, 30)) {
    if (cityRecords.get(city)?.hard && city.county) takeCounty(places.county(city.county, city.state), false);
  }
  const topCounties = Math.round(q.counties * 0.55);
  for (const county of places.counties.slice(0, topCounties)) takeCounty(county, false);
  const restCounties = places.counties.filter((c) => !countyRecords.has(c));
  for (const county of weightedSample(rng, restCounties, (c) => Math.sqrt(c.population), q.counties)) {
    takeCounty(county, false);
  }
  const bigCounties = [...countyRecords.keys()].sort((a, b) => b.population - a.population);

  // State agencies, at the state capital.
  for (const s of US_STATES) {
    const city = seatOf(places, s.capital, s.code);
    // At least the Texas Department of Transportation, however small the data set.
    const count = s.code === 'TX' ? Math.max(1, q.agenciesPerState) : q.agenciesPerState;
    for (let i = 0; i < count; i++) {
      const template = STATE_AGENCY_TEMPLATES[i];
      if (!template) break;
      const texas = s.code === 'TX' ? TEXAS_AGENCIES[i] : undefined;
      const name =
        texas?.name ?? template.name.replace('{state}', s.code === 'DC' ? 'District of Columbia' : s.name);
      reg.add({
        name,
        type: 'StateAgency',
        kind: 'stateAgency',
        state: s.code,
        city: cityLabel(city),
        county: city.county,
        lat: city.lat,
        lon: city.lon,
        zip: city.zip,
        urls: texas
          ? [`https://www.${texas.domain}`]
          : [
              `https://${template.host}.${s.code.toLowerCase()}.gov`,
              `https://www.${template.host}.state.${s.code.toLowerCase()}.us`,
            ],
        population: s.population,
        size: s.population / 3,
        commonName: texas?.commonName ?? `${s.code} ${template.host.toUpperCase()}`,
        sector: template.sector,
        agencyCode: `${s.code}-${String(100 + ((hash32(name) % 800) + i)).padStart(3, '0')}`,
      });
    }
  }

  // Tribal governments.
  for (const tribe of TRIBAL_GOVERNMENTS.slice(0, q.tribal)) {
    const city = places.city(tribe.city, tribe.state);
    if (!city) continue;
    reg.add({
      name: tribe.name,
      type: 'IndigenousGovernment',
      kind: 'tribal',
      state: tribe.state,
      city: city.name,
      county: city.county,
      lat: city.lat,
      lon: city.lon,
      zip: city.zip,
      urls: [`https://www.${tribe.domain}`],
      population: rng.int(8_000, 180_000),
      size: 120_000,
    });
  }

  addSchoolDistricts(ctx, cityRecords, bigCounties);
  addSchools(ctx);
  addColleges(ctx, trusted);
  addDepartments(ctx, bigCities, cityRecords, bigCounties, countyRecords);
  addSpecialDistricts(ctx, bigCities, bigCounties);

  // Fill up with a seeded draw of smaller cities.
  const missing = buyerCount - reg.records.length;
  const filled: BuyerRecord[] = [];
  if (missing > 0) {
    const rest = trusted.filter((c) => !cityRecords.has(c));
    for (const city of weightedSample(rng, rest, (c) => c.population ** 0.6, missing * 2)) {
      if (reg.records.length >= buyerCount) break;
      takeCity(city, false);
      const record = cityRecords.get(city);
      if (record) filled.push(record);
    }
  }
  // The long tail takes the place of the last cities of that draw, so that every other buyer stays as
  // it was (same id, same draws). Towns, villages and townships stay (their name forms are rarer), and
  // so do namesakes of another state's city (the hard cases of a name).
  const longTail = buyerCount >= LONG_TAIL_FROM ? LONG_TAIL : [];
  if (longTail.length) {
    const namesakes = new Map<string, number>();
    for (const r of reg.records) namesakes.set(r.buyer.name, (namesakes.get(r.buyer.name) ?? 0) + 1);
    const last = filled
      .filter((r) => r.kind === 'city' && namesakes.get(r.buyer.name) === 1)
      .slice(-longTail.length);
    reg.remove(new Set(last));
    for (const [key, to] of Object.entries(RENAMES)) reg.rename(key, to.name, to.common);
    addLongTail(ctx, longTail);
  }
  return reg.records;
}

/** The long tail needs its parents (large counties and cities): only in a data set of full size. */
const LONG_TAIL_FROM = 5000;

function addLongTail(ctx: Context, entries: readonly LongTailBuyer[]): void {
  const { places, reg } = ctx;
  for (const e of entries) {
    const parent = e.parent ? reg.get(...(e.parent.split('|') as [string, string])) : null;
    if (e.parent && !parent) throw new Error(`long tail: ${e.name} names no buyer ${e.parent}`);
    const place = places.city(e.city === 'New York' ? 'New York City' : e.city, e.state);
    const county = e.county ?? place?.county ?? null;
    if (!county)
      throw new Error(`long tail: ${e.name}: no ${e.city}, ${e.state} in the place data; give its county`);
    const anchor = place ?? places.county(county, e.state) ?? seatOf(places, e.city, e.state);
    const onParent = e.url?.startsWith('/') ?? false;
    const parentUrl = parent?.buyer.url?.replace(/\/$/, '') ?? null;
    if (onParent && !parentUrl) throw new Error(`long tail: ${e.name}: its parent has no site for ${e.url}`);
    const url = onParent ? `${parentUrl}${e.url}` : e.url;
    const shared = onParent || e.portal === true;
    const population =
      e.population ?? (e.kind === 'federal' || e.kind === 'office' ? null : (place?.population ?? null));
    reg.add({
      name: e.name,
      type: e.type,
      kind: e.kind,
      state: e.state,
      city: e.city,
      county,
      lat: anchor.lat,
      lon: anchor.lon,
      zip: e.zip,
      street: e.street,
      urls: url && !shared ? [url] : [],
      ...(url && shared ? { sharedUrl: url } : {}),
      ...(e.email
        ? { emailDomains: e.email }
        : onParent && parent
          ? { emailDomains: parent.buyer.emailDomains.slice(0, 1) }
          : {}),
      parent,
      population,
      size: Math.max(population ?? 0, 50_000),
      commonName: e.common ?? null,
      sector: e.sector ?? SECTORS[e.type] ?? null,
    });
  }
}

const SECTORS: Partial<Record<BuyerType, string>> = {
  TransportationAgency: 'Transportation',
  District: 'Emergency Communications',
  CountyClerk: 'Clerk & Recorder',
  CityClerk: 'Clerk',
  CountyAttorney: 'Legal',
  UncategorizedAgency: 'Courts',
  LegislativeBody: 'Legislature',
  PublicWorksAgency: 'Public Works',
  RegulatoryAgency: 'Regulation',
  AdministrativeAgency: 'Regional Planning',
  UncategorizedDistrict: 'Natural Resources',
};

function addSchoolDistricts(
  ctx: Context,
  cityRecords: Map<CityPlace, BuyerRecord>,
  bigCounties: CountyPlace[],
): void {
  const { places, reg, rng, q } = ctx;
  const start = reg.records.length;
  const count = () => reg.records.length - start;
  const district = (place: CityPlace | CountyPlace, name: string, hard = false, kind?: BuyerKind) => {
    const isCounty = 'shortName' in place;
    const cityName = isCounty
      ? place.largestCity
        ? cityLabel(place.largestCity)
        : place.postalCity
      : cityLabel(place);
    const urlStem = isCounty ? place.shortName : cityLabel(place);
    return reg.add({
      name,
      type: 'SchoolDistrict',
      kind: kind ?? (isCounty ? 'countyDistrict' : 'cityDistrict'),
      state: place.state,
      city: cityName,
      county: isCounty ? place.name : place.county,
      lat: place.lat,
      lon: place.lon,
      zip: place.zip,
      urls: schoolDistrictUrls(name, urlStem, place.state),
      population: Math.round(place.population * (isCounty ? 1 : rng.float(0.85, 1.15))),
      size: place.population * 0.8,
      hard,
      commonName: name
        .replace('Independent School District', 'ISD')
        .replace('Unified School District', 'USD'),
    });
  };
  const city = (name: string, state: string) => {
    const place = places.city(name, state);
    if (!place) throw new Error(`no ${name}, ${state} in the place data`);
    return place;
  };
  district(city('Austin', 'TX'), 'Austin Independent School District', true);
  district(city('Springfield', 'MA'), 'Springfield Public Schools', true);
  district(city('Springfield', 'MO'), 'Springfield Public Schools', true);
  district(city('Springfield', 'OR'), 'Springfield School District', true);
  district(city('Springfield', 'IL'), 'Springfield Public School District 186', true);

  // Regional service agencies: Texas' Education Service Centers, California's county offices.
  const serviceCenters: BuyerRecord[] = [];
  if (q.schoolDistricts >= 200) {
    TEXAS_SERVICE_CENTERS.forEach((host, i) => {
      const place = places.city(host, 'TX');
      if (!place) return;
      const record = district(place, `Education Service Center Region ${i + 1}`, false, 'serviceCenter');
      if (record) serviceCenters.push(record);
    });
    for (const county of bigCounties.filter((c) => c.state === 'CA').slice(0, 12)) {
      const record = district(
        county,
        `${county.shortName} County Office of Education`,
        false,
        'countyOffice',
      );
      if (record) serviceCenters.push(record);
    }
  }

  // Ordinary districts: county-wide where the state organizes them so, by city elsewhere.
  type Candidate = CityPlace | CountyPlace;
  const candidates: Candidate[] = [
    ...places.cities.filter((c) => c.trusted && !COUNTY_SCHOOL_STATES.has(c.state) && c.state !== 'DC'),
    ...places.counties.filter((c) => COUNTY_SCHOOL_STATES.has(c.state)),
  ].sort((a, b) => b.population - a.population);
  const top = Math.round(q.schoolDistricts * 0.5);
  for (const place of candidates.slice(0, top)) {
    if (count() >= q.schoolDistricts) break;
    district(place, schoolDistrictName(place, rng));
  }
  const rest = candidates.slice(top);
  for (const place of weightedSample(rng, rest, (p) => Math.sqrt(p.population), q.schoolDistricts * 2)) {
    if (count() >= q.schoolDistricts) break;
    district(place, schoolDistrictName(place, rng));
  }
  if (cityRecords.size && q.schoolDistricts > 0) {
    const dc = [...cityRecords.keys()].find((c) => c.state === 'DC');
    if (dc) district(dc, 'District of Columbia Public Schools');
  }

  // Link districts to the nearest service agency of their state.
  for (const record of reg.records.slice(start)) {
    if (record.kind !== 'cityDistrict' && record.kind !== 'countyDistrict') continue;
    let best: BuyerRecord | null = null;
    let bestD = Number.POSITIVE_INFINITY;
    for (const center of serviceCenters) {
      if (center.buyer.stateCode !== record.buyer.stateCode) continue;
      const d = (center.lat - record.lat) ** 2 + (center.lon - record.lon) ** 2;
      if (d < bestD) {
        bestD = d;
        best = center;
      }
    }
    record.serviceAgency = best;
  }
}

/** Charter operators by state: [operator, brand used in school names]. */
const CHARTER_OPERATORS: Record<string, [string, string][]> = {
  TX: [
    ['IDEA Public Schools', 'IDEA'],
    ['KIPP Texas Public Schools', 'KIPP'],
    ['Harmony Public Schools', 'Harmony'],
  ],
  AZ: [
    ['Great Hearts Academies', 'Great Hearts'],
    ['BASIS Charter Schools', 'BASIS'],
  ],
  NY: [
    ['Success Academy Charter Schools', 'Success Academy'],
    ['Uncommon Schools', 'Uncommon'],
  ],
  CA: [
    ['Alliance College-Ready Public Schools', 'Alliance'],
    ['KIPP SoCal Public Schools', 'KIPP'],
  ],
  default: [
    ['KIPP Foundation', 'KIPP'],
    ['Uncommon Schools', 'Uncommon'],
    ['Achievement First', 'Achievement First'],
  ],
};
const PRIVATE_SCHOOLS: readonly [string, string][] = [
  ["St. Mary's Catholic School", 'Roman Catholic'],
  ['Holy Cross High School', 'Roman Catholic'],
  ['Trinity Lutheran School', 'Lutheran'],
  ['First Baptist Academy', 'Baptist'],
  ['St. Paul Episcopal School', 'Episcopal'],
  ['Hebrew Academy', 'Jewish'],
  ['Friends School', 'Quaker'],
  ['Covenant Christian Academy', 'Nondenominational Christian'],
];

function addSchools(ctx: Context): void {
  const { reg, rng, q } = ctx;
  const districts = reg.records
    .filter((r) => r.kind === 'cityDistrict' || r.kind === 'countyDistrict')
    .sort((a, b) => b.size - a.size);
  const start = reg.records.length;
  const levels = ['High School', 'Middle', 'Elementary'] as const;
  for (let i = 0; reg.records.length - start < q.schools && i < districts.length * 3; i++) {
    const district = districts[i % Math.max(1, Math.ceil(q.schools / 2))];
    if (!district) break;
    const b = district.buyer;
    const cityName = b.city ?? b.name;
    const level = levels[i % 3] ?? 'Elementary';
    const roll = rng.next();
    const base = {
      type: 'School' as const,
      state: b.stateCode,
      city: b.city,
      county: b.county,
      lat: district.lat + rng.float(-0.03, 0.03, 5),
      lon: district.lon + rng.float(-0.03, 0.03, 5),
      zip: district.zip,
      population: null,
      size: 4000,
      schoolLevel: level,
    };
    if (roll < 0.15) {
      const [operator, prefix] = rng.pick(CHARTER_OPERATORS[b.stateCode] ?? CHARTER_OPERATORS.default ?? []);
      const name = `${prefix} ${cityName} ${level === 'High School' ? 'College Prep' : level === 'Middle' ? 'Middle Academy' : 'Elementary Academy'}`;
      reg.add({
        ...base,
        name,
        kind: 'charterSchool',
        urls: [`https://www.${compact(prefix)}${compact(cityName)}.org`, `https://${compact(name)}.org`],
        operator,
        control: 'Public',
      });
    } else if (roll < 0.25) {
      const [name, religion] = rng.pick(PRIVATE_SCHOOLS);
      reg.add({
        ...base,
        name: `${name} of ${cityName}`,
        kind: 'privateSchool',
        urls: [`https://www.${compact(name)}${compact(cityName)}.org`],
        religion,
        control: 'Private',
        schoolLevel: name.includes('High') ? 'High School' : level,
      });
    } else {
      const hometown = level === 'High School' && i % 2 === 0 && (district.population ?? 0) < 300_000;
      const stem = hometown ? cityName : rng.pick(SCHOOL_NAMES);
      const name = `${stem} ${level === 'Middle' ? 'Middle School' : level === 'Elementary' ? 'Elementary School' : 'High School'}`;
      const host = district.buyer.url ? urlHost(district.buyer.url) : `${compact(cityName)}.org`;
      reg.add({
        ...base,
        name,
        kind: 'publicSchool',
        urls: [
          `https://${slugify(stem)}-${level === 'High School' ? 'hs' : level === 'Middle' ? 'ms' : 'es'}.${host}`,
        ],
        parent: district,
        emailDomains: district.buyer.emailDomains.slice(0, 1),
        control: 'Public',
      });
    }
  }
}

function addColleges(ctx: Context, trusted: CityPlace[]): void {
  const { places, reg, rng, q } = ctx;
  const start = reg.records.length;
  const size = {
    research: 500_000,
    regional: 200_000,
    community: 150_000,
    system: 800_000,
    communitySystem: 300_000,
    private: 250_000,
    technical: 80_000,
  };
  // Named colleges first (the UT System, UT Austin and ACC lead the list), as many as the quota allows.
  for (const c of COLLEGES.slice(0, Math.max(3, q.colleges))) {
    const city = places.city(c.city, c.state);
    if (!city) continue;
    const hard = c.name === 'The University of Texas at Austin' || c.name === 'Austin Community College';
    reg.add({
      name: c.name,
      type: 'HigherEducation',
      kind: c.kind,
      state: c.state,
      city: cityLabel(city),
      county: city.county,
      lat: city.lat,
      lon: city.lon,
      zip: city.zip,
      urls: [`https://www.${c.domain}`],
      extraEmailDomains: c.name === 'The University of Texas at Austin' ? ['austin.utexas.edu'] : [],
      parent: c.system ? reg.get(c.system, c.state) : null,
      population: null,
      size: size[c.kind],
      hard,
      commonName: c.commonName ?? null,
      mascot: c.mascot,
      control: c.control,
    });
  }
  const full = () => reg.records.length - start >= q.colleges;

  // A state university per state, in its second city (or its capital).
  for (const s of US_STATES) {
    if (full()) break;
    if (s.code === 'DC') continue;
    const name = `${s.name} State University`;
    if (COLLEGES.some((c) => c.name.includes(name))) continue;
    const inState = trusted.filter((c) => c.state === s.code);
    const city = inState[1] ?? inState[0];
    if (!city) continue;
    reg.add({
      name,
      type: 'HigherEducation',
      kind: 'regional',
      state: s.code,
      city: cityLabel(city),
      county: city.county,
      lat: city.lat,
      lon: city.lon,
      zip: city.zip,
      urls: [`https://www.${compact(s.name)}state.edu`, `https://www.${s.code.toLowerCase()}su.edu`],
      population: null,
      size: size.regional,
      commonName: `${s.code}SU`,
      mascot: rng.pick(MASCOTS),
      control: 'Public',
    });
  }

  // Community and technical colleges and city universities, largest cities first.
  for (let i = 0; i < trusted.length && !full(); i++) {
    const city = trusted[i] as CityPlace;
    if (city.state === 'DC') continue;
    const label = cityLabel(city);
    const slug = compact(label);
    const variant = (hash32(`${city.name}|${city.state}`) + i) % 4;
    const spec =
      variant === 0 && city.population >= 150_000
        ? {
            name: `University of ${label}`,
            kind: 'regional' as const,
            urls: [`https://www.u${slug}.edu`, `https://www.${slug}.edu`],
          }
        : variant === 1
          ? {
              name: `${label} Technical College`,
              kind: 'technical' as const,
              urls: [`https://www.${slug}tech.edu`, `https://www.${slug}tc.edu`],
            }
          : {
              name: `${label} Community College`,
              kind: 'community' as const,
              urls: [`https://www.${slug}cc.edu`, `https://www.${slug}${city.state.toLowerCase()}cc.edu`],
            };
    reg.add({
      ...spec,
      type: 'HigherEducation',
      state: city.state,
      city: label,
      county: city.county,
      lat: city.lat,
      lon: city.lon,
      zip: city.zip,
      population: null,
      size: size[spec.kind],
      mascot: rng.pick(MASCOTS),
      control: 'Public',
      commonName: spec.kind === 'community' ? `${label} CC` : null,
    });
  }
}

function addDepartments(
  ctx: Context,
  bigCities: CityPlace[],
  cityRecords: Map<CityPlace, BuyerRecord>,
  bigCounties: CountyPlace[],
  countyRecords: Map<CountyPlace, BuyerRecord>,
): void {
  const { reg, rng, q } = ctx;
  const department = (
    kind: 'police' | 'fire' | 'sheriff' | 'countyFire',
    name: string,
    parent: BuyerRecord,
    place: { lat: number; lon: number; zip: string | null; state: string; county: string | null },
    hard: boolean,
  ) => {
    const parentUrl = parent.buyer.url;
    const own = kind === 'police' ? 'pd' : kind === 'sheriff' ? 'sheriff' : 'fire';
    const stem = compact(parent.commonName ?? parent.buyer.city ?? parent.buyer.name);
    const shareSite = parentUrl !== null && rng.chance(0.5);
    const path = kind === 'police' ? 'police' : kind === 'sheriff' ? 'sheriff' : 'fire';
    return reg.add({
      name,
      type: kind === 'police' || kind === 'sheriff' ? 'PoliceDepartment' : 'FireDepartment',
      kind,
      state: place.state,
      city: parent.buyer.city,
      county: place.county,
      lat: place.lat,
      lon: place.lon,
      zip: place.zip,
      urls: [
        `https://www.${stem}${own}.org`,
        `https://www.${stem}${own}${place.state.toLowerCase()}.org`,
        `https://www.${stem}${own}.gov`,
      ],
      ...(shareSite && parentUrl ? { sharedUrl: `${parentUrl.replace(/\/$/, '')}/departments/${path}` } : {}),
      parent,
      population: parent.population,
      size: (parent.population ?? 10_000) * 0.6,
      hard,
      commonName:
        kind === 'police'
          ? `${parent.commonName ?? ''} PD`.trim()
          : kind === 'fire'
            ? `${parent.commonName ?? ''} FD`.trim()
            : null,
    });
  };

  // Police: Austin first, then the largest cities; a fifth are county sheriffs.
  const austin = [...cityRecords.entries()].find(([c]) => c.name === 'Austin' && c.state === 'TX');
  if (austin) {
    const [place, record] = austin;
    department('police', 'Austin Police Department', record, place, true);
    department('fire', 'Austin Fire Department', record, place, true);
  }
  let police = reg.records.filter((r) => r.kind === 'police').length;
  const sheriffs = Math.round(q.police * 0.2);
  for (const city of bigCities) {
    if (police >= q.police - sheriffs) break;
    const record = cityRecords.get(city);
    if (!record || city.state === 'DC') continue;
    if (department('police', `${cityLabel(city)} Police Department`, record, city, false)) police++;
  }
  for (const county of bigCounties) {
    if (police >= q.police) break;
    const record = countyRecords.get(county);
    if (!record || county.suffix === 'Municipality' || county.suffix === 'City and Borough') continue;
    const place = { ...county, county: county.name };
    if (department('sheriff', `${county.displayName} Sheriff's Office`, record, place, false)) police++;
  }

  // Fire: the largest cities, and county fire services in a tenth of the quota.
  let fire = reg.records.filter((r) => r.kind === 'fire').length;
  const countyFire = Math.round(q.fire * 0.1);
  for (const city of bigCities) {
    if (fire >= q.fire - countyFire) break;
    const record = cityRecords.get(city);
    if (!record || city.state === 'DC') continue;
    const name =
      city.state === 'FL' ? `${cityLabel(city)} Fire Rescue` : `${cityLabel(city)} Fire Department`;
    if (department('fire', name, record, city, false)) fire++;
  }
  for (const county of bigCounties.slice(20)) {
    if (fire >= q.fire) break;
    const record = countyRecords.get(county);
    if (!record || county.suffix !== 'County') continue;
    const name =
      county.state === 'FL' ? `${county.displayName} Fire Rescue` : `${county.displayName} Fire Department`;
    if (department('countyFire', name, record, { ...county, county: county.name }, false)) fire++;
  }

  // Libraries of the largest cities.
  let libraries = 0;
  for (const city of bigCities.slice(3)) {
    if (libraries >= q.libraries) break;
    const record = cityRecords.get(city);
    if (!record || city.state === 'DC') continue;
    const label = cityLabel(city);
    const added = reg.add({
      name: `${label} Public Library`,
      type: 'Library',
      kind: 'library',
      state: city.state,
      city: label,
      county: city.county,
      lat: city.lat,
      lon: city.lon,
      zip: city.zip,
      urls: [
        `https://www.${compact(label)}library.org`,
        `https://www.${compact(label)}publiclibrary.org`,
        `https://www.${compact(label)}${city.state.toLowerCase()}library.org`,
      ],
      parent: record,
      population: city.population,
      size: city.population * 0.3,
    });
    if (added) libraries++;
  }
}

const DISTRICT_TEMPLATES: readonly {
  name: string;
  subentity: string;
  on: 'city' | 'county';
  states?: string[];
}[] = [
  { name: '{city} Housing Authority', subentity: 'Housing & Community Development', on: 'city' },
  {
    name: '{county} County Water District',
    subentity: 'Water Supply',
    on: 'county',
    states: ['CA', 'WA', 'ID', 'OR', 'KY', 'NV'],
  },
  {
    name: '{county} County Hospital District',
    subentity: 'Hospital',
    on: 'county',
    states: ['TX', 'WA', 'CA', 'FL'],
  },
  { name: '{city} Airport Authority', subentity: 'Airports', on: 'city' },
  { name: '{county} County Library District', subentity: 'Library', on: 'county' },
  { name: '{county} Soil and Water Conservation District', subentity: 'Natural Resources', on: 'county' },
  {
    name: '{county} County Fire Protection District',
    subentity: 'Fire Protection',
    on: 'county',
    states: ['CA', 'CO', 'IL', 'MO', 'OR', 'WA', 'AZ'],
  },
  { name: '{city} Regional Transit Authority', subentity: 'Transit', on: 'city' },
  {
    name: '{county} County Mosquito Control District',
    subentity: 'Health',
    on: 'county',
    states: ['FL', 'LA', 'TX'],
  },
  {
    name: '{city} Parks and Recreation District',
    subentity: 'Parks & Recreation',
    on: 'city',
    states: ['IL', 'OR', 'CO', 'WA', 'ND'],
  },
  { name: '{city} Municipal Utility District', subentity: 'Utilities', on: 'city', states: ['TX', 'CA'] },
];

function addSpecialDistricts(ctx: Context, bigCities: CityPlace[], bigCounties: CountyPlace[]): void {
  const { places, reg, rng, q } = ctx;
  const start = reg.records.length;
  for (const d of SPECIAL_DISTRICTS.slice(0, Math.max(2, q.specialDistricts))) {
    const city = places.city(d.city, d.state);
    if (!city) continue;
    reg.add({
      name: d.name,
      type: 'SpecialDistrict',
      kind: 'specialDistrict',
      state: d.state,
      city: cityLabel(city),
      county: city.county,
      lat: city.lat,
      lon: city.lon,
      zip: city.zip,
      urls: [`https://www.${d.domain}`],
      population: Math.round(city.population * rng.float(1.2, 2.5)),
      size: city.population * 1.5,
      commonName: d.commonName ?? null,
      sector: d.subentity,
    });
  }
  const cities = bigCities.filter((c) => c.state !== 'DC');
  for (let i = 0; reg.records.length - start < q.specialDistricts && i < 20 * q.specialDistricts; i++) {
    const template = DISTRICT_TEMPLATES[i % DISTRICT_TEMPLATES.length];
    if (!template) break;
    const round = Math.floor(i / DISTRICT_TEMPLATES.length);
    const place: CityPlace | CountyPlace | undefined =
      template.on === 'city'
        ? cities[(round * 7 + i) % Math.max(1, cities.length)]
        : bigCounties[(round * 5 + i) % Math.max(1, bigCounties.length)];
    if (!place) continue;
    if (template.states && !template.states.includes(place.state)) continue;
    const isCounty = 'shortName' in place;
    const label = isCounty ? place.shortName : cityLabel(place);
    if (isCounty && place.suffix !== 'County' && template.name.includes('County')) continue;
    const name = template.name.replace('{city}', label).replace('{county}', label);
    reg.add({
      name,
      type: 'SpecialDistrict',
      kind: 'specialDistrict',
      state: place.state,
      city: isCounty ? (place.largestCity ? cityLabel(place.largestCity) : place.postalCity) : label,
      county: isCounty ? place.name : place.county,
      lat: place.lat,
      lon: place.lon,
      zip: place.zip,
      urls: [
        `https://www.${slugify(name)
          .replace(/-(county|district|authority|and)/g, '')
          .replace(/-/g, '')}.org`,
        `https://www.${compact(name)}.org`,
      ],
      population: Math.round(place.population * rng.float(0.2, 0.9)),
      size: place.population * 0.4,
      sector: template.subentity,
    });
  }
}

/** The body whose meetings decide for the buyer: `City Council`, `Commissioners Court`, `Board of Trustees`. */
export function governingBody(record: BuyerRecord): string {
  const st = record.buyer.stateCode;
  switch (record.kind) {
    case 'city':
      return 'City Council';
    case 'town':
      if (record.buyer.name.includes('Township')) return 'Township Board';
      return ['MA', 'CT', 'ME', 'NH', 'VT', 'RI'].includes(st) ? 'Select Board' : 'Town Council';
    case 'village':
      return 'Village Board';
    case 'county':
    case 'sheriff':
    case 'countyFire':
      if (st === 'TX') return 'Commissioners Court';
      if (st === 'LA') return 'Parish Council';
      if (st === 'CA' || st === 'AZ' || st === 'IA') return 'Board of Supervisors';
      return 'Board of Commissioners';
    case 'police':
    case 'fire':
      return 'City Council';
    case 'cityDistrict':
    case 'countyDistrict':
      return st === 'TX' ? 'Board of Trustees' : 'Board of Education';
    case 'serviceCenter':
    case 'countyOffice':
      return 'Board of Directors';
    case 'publicSchool':
    case 'charterSchool':
    case 'privateSchool':
      return 'School Board';
    case 'research':
    case 'regional':
    case 'system':
      return 'Board of Regents';
    case 'community':
    case 'technical':
    case 'communitySystem':
    case 'private':
      return 'Board of Trustees';
    case 'library':
      return 'Library Board';
    case 'stateAgency':
      return 'Legislature';
    case 'federal':
      return 'Congress';
    case 'tribal':
      return 'Tribal Council';
    case 'specialDistrict':
      return 'Board of Directors';
    case 'office':
      return record.buyer.type === 'LegislativeBody' ? 'Legislature' : 'Board of Commissioners';
  }
}
