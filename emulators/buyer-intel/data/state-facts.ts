// Public facts per state used to make the seeded buyers plausible: capital, 2020 census population,
// FIPS code, a main telephone area code, the regional accreditor of its colleges, and the month the
// state government's fiscal year starts.
import { STATES } from '../../../src/buyer-intel/states.ts';

export interface StateFacts {
  code: string;
  name: string;
  capital: string;
  population: number;
  fips: string;
  areaCode: string;
  accreditor: string;
  /** Month (1-12) the state government's fiscal year starts. */
  fiscalYearStartMonth: number;
}

const SACSCOC = 'Southern Association of Colleges and Schools Commission on Colleges';
const HLC = 'Higher Learning Commission';
const MSCHE = 'Middle States Commission on Higher Education';
const NECHE = 'New England Commission of Higher Education';
const NWCCU = 'Northwest Commission on Colleges and Universities';
const WSCUC = 'WASC Senior College and University Commission';

// code: [capital, population (2020 census), FIPS, area code, accreditor, fiscal year start month]
const FACTS: Record<string, [string, number, string, string, string, number]> = {
  AL: ['Montgomery', 5024279, '01', '334', SACSCOC, 10],
  AK: ['Juneau', 733391, '02', '907', NWCCU, 7],
  AZ: ['Phoenix', 7151502, '04', '602', HLC, 7],
  AR: ['Little Rock', 3011524, '05', '501', HLC, 7],
  CA: ['Sacramento', 39538223, '06', '916', WSCUC, 7],
  CO: ['Denver', 5773714, '08', '303', HLC, 7],
  CT: ['Hartford', 3605944, '09', '860', NECHE, 7],
  DE: ['Dover', 989948, '10', '302', MSCHE, 7],
  DC: ['Washington', 689545, '11', '202', MSCHE, 10],
  FL: ['Tallahassee', 21538187, '12', '850', SACSCOC, 7],
  GA: ['Atlanta', 10711908, '13', '404', SACSCOC, 7],
  HI: ['Honolulu', 1455271, '15', '808', WSCUC, 7],
  ID: ['Boise', 1839106, '16', '208', NWCCU, 7],
  IL: ['Springfield', 12812508, '17', '217', HLC, 7],
  IN: ['Indianapolis', 6785528, '18', '317', HLC, 7],
  IA: ['Des Moines', 3190369, '19', '515', HLC, 7],
  KS: ['Topeka', 2937880, '20', '785', HLC, 7],
  KY: ['Frankfort', 4505836, '21', '502', SACSCOC, 7],
  LA: ['Baton Rouge', 4657757, '22', '225', SACSCOC, 7],
  ME: ['Augusta', 1362359, '23', '207', NECHE, 7],
  MD: ['Annapolis', 6177224, '24', '410', MSCHE, 7],
  MA: ['Boston', 7029917, '25', '617', NECHE, 7],
  MI: ['Lansing', 10077331, '26', '517', HLC, 10],
  MN: ['Saint Paul', 5706494, '27', '651', HLC, 7],
  MS: ['Jackson', 2961279, '28', '601', SACSCOC, 7],
  MO: ['Jefferson City', 6154913, '29', '573', HLC, 7],
  MT: ['Helena', 1084225, '30', '406', NWCCU, 7],
  NE: ['Lincoln', 1961504, '31', '402', HLC, 7],
  NV: ['Carson City', 3104614, '32', '775', NWCCU, 7],
  NH: ['Concord', 1377529, '33', '603', NECHE, 7],
  NJ: ['Trenton', 9288994, '34', '609', MSCHE, 7],
  NM: ['Santa Fe', 2117522, '35', '505', HLC, 7],
  NY: ['Albany', 20201249, '36', '518', MSCHE, 4],
  NC: ['Raleigh', 10439388, '37', '919', SACSCOC, 7],
  ND: ['Bismarck', 779094, '38', '701', HLC, 7],
  OH: ['Columbus', 11799448, '39', '614', HLC, 7],
  OK: ['Oklahoma City', 3959353, '40', '405', HLC, 7],
  OR: ['Salem', 4237256, '41', '503', NWCCU, 7],
  PA: ['Harrisburg', 13002700, '42', '717', MSCHE, 7],
  RI: ['Providence', 1097379, '44', '401', NECHE, 7],
  SC: ['Columbia', 5118425, '45', '803', SACSCOC, 7],
  SD: ['Pierre', 886667, '46', '605', HLC, 7],
  TN: ['Nashville', 6910840, '47', '615', SACSCOC, 7],
  TX: ['Austin', 29145505, '48', '512', SACSCOC, 9],
  UT: ['Salt Lake City', 3271616, '49', '801', NWCCU, 7],
  VT: ['Montpelier', 643077, '50', '802', NECHE, 7],
  VA: ['Richmond', 8631393, '51', '804', SACSCOC, 7],
  WA: ['Olympia', 7705281, '53', '360', NWCCU, 7],
  WV: ['Charleston', 1793716, '54', '304', HLC, 7],
  WI: ['Madison', 5893718, '55', '608', HLC, 7],
  WY: ['Cheyenne', 576851, '56', '307', HLC, 10],
};

/** The 50 states and DC, in the order of the STATES table. */
export const US_STATES: readonly StateFacts[] = STATES.filter((s) => s.country === 'US' && FACTS[s.code]).map(
  (s) => {
    const [capital, population, fips, areaCode, accreditor, fiscalYearStartMonth] = FACTS[s.code] as [
      string,
      number,
      string,
      string,
      string,
      number,
    ];
    return {
      code: s.code,
      name: s.name,
      capital,
      population,
      fips,
      areaCode,
      accreditor,
      fiscalYearStartMonth,
    };
  },
);

const byCode = new Map(US_STATES.map((s) => [s.code, s]));

export function stateFacts(code: string): StateFacts {
  const facts = byCode.get(code);
  if (!facts) throw new RangeError(`no facts for state ${code}`);
  return facts;
}

export function isSupportedState(code: string): boolean {
  return byCode.has(code);
}

/** States whose public schools are organized mostly in county-wide districts. */
export const COUNTY_SCHOOL_STATES: ReadonlySet<string> = new Set([
  'AL',
  'FL',
  'GA',
  'KY',
  'LA',
  'MD',
  'NC',
  'NV',
  'SC',
  'TN',
  'UT',
  'VA',
  'WV',
]);

/** States without county governments (or whose counties are not buyers). */
export const NO_COUNTY_GOVERNMENT: ReadonlySet<string> = new Set(['CT', 'RI', 'DC']);
