// The long tail of public buyers (issue 25): real US bodies that a vendor's CRM holds and that are
// neither a city, a county nor a plain school district — authorities and ports that span states,
// consolidated and renamed governments, numbered districts known by their number, offices inside a
// government, courts, 911 districts, legislatures, library and park districts, tribal nations,
// education service agencies and federal field offices. Names, places and streets are the real ones;
// registry ids are drawn like every other buyer's.
import type { BuyerType } from '../../../src/buyer-intel/enums.ts';
import type { BuyerKind } from './kinds.ts';

/**
 * Generated buyers the provider knows by their real legal name. The id stays the one of the
 * generated name (ids are stable across a rename); `common` is the name people use.
 */
export const RENAMES: Readonly<Record<string, { name: string; common: string }>> = {
  'City of Louisville|KY': {
    name: 'Louisville/Jefferson County Metro Government',
    common: 'Louisville Metro',
  },
  'City of Nashville|TN': {
    name: 'Metropolitan Government of Nashville and Davidson County',
    common: 'Metro Nashville',
  },
  'City of Honolulu|HI': { name: 'City and County of Honolulu', common: 'Honolulu' },
  'City of Lafayette|LA': {
    name: 'Lafayette City-Parish Consolidated Government',
    common: 'Lafayette Consolidated Government',
  },
  'City of Athens|GA': { name: 'Unified Government of Athens-Clarke County', common: 'Athens-Clarke County' },
  'City of Augusta|GA': { name: 'Augusta-Richmond County Consolidated Government', common: 'Augusta' },
  'City of Macon|GA': { name: 'Macon-Bibb County Government', common: 'Macon-Bibb County' },
  'City of Lexington|KY': { name: 'Lexington-Fayette Urban County Government', common: 'LFUCG' },
  'City of Baton Rouge|LA': {
    name: 'City of Baton Rouge and Parish of East Baton Rouge',
    common: 'Baton Rouge City-Parish',
  },
  'City of San Francisco|CA': { name: 'City and County of San Francisco', common: 'San Francisco' },
  'City of Broomfield|CO': { name: 'City and County of Broomfield', common: 'Broomfield' },
  'City of Juneau|AK': { name: 'City and Borough of Juneau', common: 'CBJ' },
  'City of Carson City|NV': { name: 'Consolidated Municipality of Carson City', common: 'Carson City' },
  'City of State College|PA': { name: 'Borough of State College', common: 'State College' },
  'City of Fort Lee|NJ': { name: 'Borough of Fort Lee', common: 'Fort Lee' },
  'City of Princeton|NJ': { name: 'Municipality of Princeton', common: 'Princeton' },
  'Chicago School District 28|IL': { name: 'Chicago Public Schools District 299', common: 'CPS' },
  'Evanston School District 65|IL': {
    name: 'Evanston/Skokie Community Consolidated School District 65',
    common: 'District 65',
  },
  'Palatine School District 134|IL': { name: 'Community Consolidated School District 15', common: 'CCSD 15' },
  'Naperville School District 125|IL': {
    name: 'Naperville Community Unit School District 203',
    common: 'Naperville 203',
  },
  'Wheaton School District 197|IL': { name: 'Community Unit School District 200', common: 'CUSD 200' },
  'Aurora School District 66|IL': { name: 'East Aurora School District 131', common: 'East Aurora 131' },
  'Elgin School District 205|IL': { name: 'School District U-46', common: 'U-46' },
  'Arlington Heights School District 173|IL': {
    name: 'Township High School District 214',
    common: 'District 214',
  },
  'Schaumburg School District 32|IL': {
    name: 'Schaumburg Community Consolidated School District 54',
    common: 'District 54',
  },
  'Rockford School District 173|IL': { name: 'Rockford Public Schools District 205', common: 'RPS 205' },
  'Saint Paul Public Schools|MN': {
    name: 'Independent School District 625',
    common: 'Saint Paul Public Schools',
  },
  'Duluth Public Schools|MN': { name: 'Independent School District 709', common: 'Duluth Public Schools' },
  'Rochester Public Schools|MN': {
    name: 'Independent School District 535',
    common: 'Rochester Public Schools',
  },
  'Andover Public Schools|MN': {
    name: 'Anoka-Hennepin Independent School District 11',
    common: 'Anoka-Hennepin Schools',
  },
  'Wichita School District|KS': { name: 'Unified School District 259', common: 'Wichita Public Schools' },
  'Olathe Public Schools|KS': { name: 'Olathe Unified School District 233', common: 'Olathe Public Schools' },
  'Topeka School District|KS': {
    name: 'Topeka Unified School District 501',
    common: 'Topeka Public Schools',
  },
  'Lawrence School District|KS': {
    name: 'Lawrence Unified School District 497',
    common: 'Lawrence Public Schools',
  },
  'Overland Park Public Schools|KS': {
    name: 'Blue Valley Unified School District 229',
    common: 'Blue Valley Schools',
  },
  'Gardner School District|KS': { name: 'Gardner Edgerton Unified School District 231', common: 'USD 231' },
  'Valley Center School District|KS': {
    name: 'Valley Center Unified School District 262',
    common: 'USD 262',
  },
  'Leavenworth School District|KS': { name: 'Leavenworth Unified School District 453', common: 'USD 453' },
  'Hesston School District|KS': { name: 'Hesston Unified School District 460', common: 'USD 460' },
  'Concordia Public Schools|KS': { name: 'Concordia Unified School District 333', common: 'USD 333' },
};

export interface LongTailBuyer {
  name: string;
  type: BuyerType;
  kind: BuyerKind;
  state: string;
  city: string;
  zip: string;
  street: string;
  /** Needed when the place data lacks the city. */
  county?: string;
  /** The buyer's own site; a path (`/clerk`) is a page on its parent's site. */
  url: string | null;
  /** A page on a portal shared with other buyers (a state's `nj.gov/mvc`): the host is nobody's own. */
  portal?: boolean;
  /** Default: the host of the URL (of the parent's for a page on the parent's site). */
  email?: string[];
  common?: string;
  /** `Name|ST` of the government the office belongs to, as the data set names it. */
  parent?: string;
  sector?: string;
  population?: number;
}

type Spec = Omit<LongTailBuyer, 'name' | 'type' | 'kind' | 'state'>;
const make =
  (type: BuyerType, kind: BuyerKind) =>
  (name: string, state: string, spec: Spec): LongTailBuyer => ({ name, type, kind, state, ...spec });

const transport = make('TransportationAgency', 'specialDistrict');
const special = make('SpecialDistrict', 'specialDistrict');
const district = make('District', 'specialDistrict');
const clerk = make('CountyClerk', 'office');
const court = make('UncategorizedAgency', 'office');
const department = make('Department', 'office');
const legislature = make('LegislativeBody', 'office');
const library = make('Library', 'library');
const tribe = make('IndigenousGovernment', 'tribal');
const federal = make('Federal', 'federal');
const agency = make('StateAgency', 'stateAgency');
const schools = make('SchoolDistrict', 'cityDistrict');
const esa = make('District', 'serviceCenter');
const college = make('HigherEducation', 'regional');

export const BUILDERS = {
  transport,
  special,
  district,
  clerk,
  court,
  department,
  legislature,
  library,
  tribe,
  federal,
  agency,
  schools,
  esa,
  college,
  cityClerk: make('CityClerk', 'office'),
  attorney: make('CountyAttorney', 'office'),
  publicWorks: make('PublicWorksAgency', 'office'),
  regulator: make('RegulatoryAgency', 'specialDistrict'),
  administrative: make('AdministrativeAgency', 'specialDistrict'),
  other: make('UncategorizedDistrict', 'specialDistrict'),
  community: make('HigherEducation', 'community'),
} as const;
