// What the generator knows a buyer to be (finer than the API's BuyerType), and the groups of kinds
// that attributes, bridges and signals tell apart.

export type BuyerKind =
  | 'city'
  | 'town'
  | 'village'
  | 'county'
  | 'federal'
  | 'stateAgency'
  | 'tribal'
  | 'cityDistrict'
  | 'countyDistrict'
  | 'serviceCenter'
  | 'countyOffice'
  | 'publicSchool'
  | 'charterSchool'
  | 'privateSchool'
  | 'library'
  | 'research'
  | 'regional'
  | 'community'
  | 'technical'
  | 'system'
  | 'communitySystem'
  | 'private'
  | 'police'
  | 'sheriff'
  | 'fire'
  | 'countyFire'
  | 'specialDistrict'
  /** An office inside a government: a clerk, recorder, assessor, court, legislature or department. */
  | 'office';

export const KIND_GROUPS = {
  localGovernment: ['city', 'town', 'village', 'county'],
  schoolDistrict: ['cityDistrict', 'countyDistrict'],
  educationServiceAgency: ['serviceCenter', 'countyOffice'],
  school: ['publicSchool', 'charterSchool', 'privateSchool'],
  college: ['research', 'regional', 'community', 'technical', 'system', 'communitySystem', 'private'],
  police: ['police', 'sheriff'],
  fire: ['fire', 'countyFire'],
} as const satisfies Record<string, readonly BuyerKind[]>;

/** School districts, schools and the agencies that serve them. */
export const K12_KINDS: readonly BuyerKind[] = [
  ...KIND_GROUPS.schoolDistrict,
  ...KIND_GROUPS.school,
  ...KIND_GROUPS.educationServiceAgency,
];
export const PUBLIC_SAFETY_KINDS: readonly BuyerKind[] = [...KIND_GROUPS.police, ...KIND_GROUPS.fire];
