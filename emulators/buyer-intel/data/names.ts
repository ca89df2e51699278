// Text helpers and short word lists for names, addresses and people. Person names come from the most
// common US given names and surnames; nothing here is filler text.

/** ASCII lower-case letters and digits only: `Coeur d'Alene` -> `coeurdalene`. */
export function compact(text: string): string {
  return text
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/&/g, 'and')
    .replace(/[^a-z0-9]/g, '');
}

/** Hyphenated slug: `City of Austin` -> `city-of-austin`. */
export function slugify(text: string): string {
  return text
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/&/g, 'and')
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
}

const MINOR = new Set(['of', 'and', 'the', 'at', 'for', 'in', 'on', '&', 'de']);

/** Initials of the significant words: `Texas Department of Transportation` -> `TDT`. */
export function acronym(text: string): string {
  return text
    .replace(/[^A-Za-z0-9 &-]/g, '')
    .split(/[\s-]+/)
    .filter((w) => w && !MINOR.has(w.toLowerCase()))
    .map((w) => (w[0] ?? '').toUpperCase())
    .join('');
}

export const FIRST_NAMES = [
  'James',
  'Mary',
  'Robert',
  'Patricia',
  'John',
  'Jennifer',
  'Michael',
  'Linda',
  'David',
  'Elizabeth',
  'William',
  'Barbara',
  'Richard',
  'Susan',
  'Joseph',
  'Jessica',
  'Thomas',
  'Sarah',
  'Christopher',
  'Karen',
  'Daniel',
  'Lisa',
  'Matthew',
  'Nancy',
  'Anthony',
  'Sandra',
  'Mark',
  'Ashley',
  'Steven',
  'Kimberly',
  'Andrew',
  'Michelle',
  'Kevin',
  'Emily',
  'Brian',
  'Amanda',
  'Jason',
  'Melissa',
  'Ryan',
  'Stephanie',
  'Jacob',
  'Rebecca',
  'Eric',
  'Laura',
  'Luis',
  'Maria',
  'Carlos',
  'Ana',
  'Wei',
  'Priya',
  'Andre',
  'Keisha',
  'Marcus',
  'Tamika',
  'Hector',
  'Rosa',
  'Minh',
  'Aisha',
] as const;

export const LAST_NAMES = [
  'Smith',
  'Johnson',
  'Williams',
  'Brown',
  'Jones',
  'Garcia',
  'Miller',
  'Davis',
  'Rodriguez',
  'Martinez',
  'Hernandez',
  'Lopez',
  'Gonzalez',
  'Wilson',
  'Anderson',
  'Thomas',
  'Taylor',
  'Moore',
  'Jackson',
  'Martin',
  'Lee',
  'Perez',
  'Thompson',
  'White',
  'Harris',
  'Sanchez',
  'Clark',
  'Ramirez',
  'Lewis',
  'Robinson',
  'Walker',
  'Young',
  'Allen',
  'King',
  'Wright',
  'Scott',
  'Torres',
  'Nguyen',
  'Hill',
  'Flores',
  'Green',
  'Adams',
  'Nelson',
  'Baker',
  'Hall',
  'Rivera',
  'Campbell',
  'Mitchell',
  'Carter',
  'Roberts',
  'Patel',
  'Kim',
  'Chen',
  'Washington',
  'Okafor',
  'Brooks',
  'Reyes',
  'Murphy',
] as const;

export const CIVIC_STREETS = [
  'Main Street',
  'Government Center Drive',
  'Civic Center Plaza',
  'Court Street',
  'Broadway',
  'Market Street',
  'Washington Avenue',
  'Commerce Street',
  'First Street',
  'Second Street',
  'Municipal Drive',
  'Center Street',
  'Park Avenue',
  'Church Street',
  'Jefferson Street',
  'Capitol Avenue',
] as const;

export const CAMPUS_STREETS = [
  'University Avenue',
  'College Drive',
  'Campus Drive',
  'Academic Way',
  'University Boulevard',
] as const;

export const SCHOOL_STREETS = [
  'School Street',
  'Education Way',
  'Learning Lane',
  'Scholar Drive',
  'Academy Drive',
] as const;

export const MASCOTS = [
  'Eagles',
  'Tigers',
  'Bulldogs',
  'Panthers',
  'Wildcats',
  'Lions',
  'Falcons',
  'Hawks',
  'Cougars',
  'Mustangs',
  'Knights',
  'Rams',
  'Bears',
  'Raiders',
  'Pioneers',
  'Spartans',
  'Titans',
  'Owls',
  'Chargers',
  'Trailblazers',
] as const;

export const SCHOOL_NAMES = [
  'Lincoln',
  'Washington',
  'Jefferson',
  'Roosevelt',
  'Franklin',
  'Lakeview',
  'Riverside',
  'Central',
  'Northside',
  'Westwood',
  'Oak Grove',
  'Hillcrest',
  'Maple Ridge',
  'Kennedy',
  'Madison',
] as const;

export function personName(pick: <T>(items: readonly T[]) => T): {
  first: string;
  last: string;
  full: string;
} {
  const first = pick(FIRST_NAMES);
  const last = pick(LAST_NAMES);
  return { first, last, full: `${first} ${last}` };
}

/** `https://www.austintexas.gov/department/police` -> `https://www.austintexas.gov`. */
export function urlOrigin(url: string): string {
  return /^https?:\/\/[^/?#]+/i.exec(url)?.[0] ?? url;
}

/** `https://www.austintexas.gov/department/police` -> `austintexas.gov`. */
export function urlHost(url: string): string {
  return urlOrigin(url)
    .replace(/^https?:\/\//i, '')
    .replace(/^www\./, '')
    .toLowerCase();
}
