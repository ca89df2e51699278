// `buyerStateCode` takes the provider's StateMapping enum *name* (the reference: "pass buyerStateCode as
// the matching StateMapping enum name; the server resolves it to the ISO 3166-2 code") and silently
// ignores a value it does not know — so a caller's "TX" would quietly search every state. Callers
// give us a two-letter code, a name or an ISO 3166-2 code; we send the enum name.
//
// The enum's members are not published. The reference's one example is `California`; we assume the
// usual Java-style PascalCase of the English name for multi-word states (`NewYork`,
// `DistrictOfColumbia`). If the provider spells them otherwise, this table is the one place to change.

export interface StateEntry {
  country: 'US' | 'CA';
  /** Postal / ISO 3166-2 subdivision code, e.g. `TX`. */
  code: string;
  name: string;
  /** StateMapping enum name sent to the provider. */
  mapping: string;
}

export const STATES: readonly StateEntry[] = [
  { country: 'US', code: 'AL', name: 'Alabama', mapping: 'Alabama' },
  { country: 'US', code: 'AK', name: 'Alaska', mapping: 'Alaska' },
  { country: 'US', code: 'AZ', name: 'Arizona', mapping: 'Arizona' },
  { country: 'US', code: 'AR', name: 'Arkansas', mapping: 'Arkansas' },
  { country: 'US', code: 'CA', name: 'California', mapping: 'California' },
  { country: 'US', code: 'CO', name: 'Colorado', mapping: 'Colorado' },
  { country: 'US', code: 'CT', name: 'Connecticut', mapping: 'Connecticut' },
  { country: 'US', code: 'DE', name: 'Delaware', mapping: 'Delaware' },
  { country: 'US', code: 'DC', name: 'District of Columbia', mapping: 'DistrictOfColumbia' },
  { country: 'US', code: 'FL', name: 'Florida', mapping: 'Florida' },
  { country: 'US', code: 'GA', name: 'Georgia', mapping: 'Georgia' },
  { country: 'US', code: 'HI', name: 'Hawaii', mapping: 'Hawaii' },
  { country: 'US', code: 'ID', name: 'Idaho', mapping: 'Idaho' },
  { country: 'US', code: 'IL', name: 'Illinois', mapping: 'Illinois' },
  { country: 'US', code: 'IN', name: 'Indiana', mapping: 'Indiana' },
  { country: 'US', code: 'IA', name: 'Iowa', mapping: 'Iowa' },
  { country: 'US', code: 'KS', name: 'Kansas', mapping: 'Kansas' },
  { country: 'US', code: 'KY', name: 'Kentucky', mapping: 'Kentucky' },
  { country: 'US', code: 'LA', name: 'Louisiana', mapping: 'Louisiana' },
  { country: 'US', code: 'ME', name: 'Maine', mapping: 'Maine' },
  { country: 'US', code: 'MD', name: 'Maryland', mapping: 'Maryland' },
  { country: 'US', code: 'MA', name: 'Massachusetts', mapping: 'Massachusetts' },
  { country: 'US', code: 'MI', name: 'Michigan', mapping: 'Michigan' },
  { country: 'US', code: 'MN', name: 'Minnesota', mapping: 'Minnesota' },
  { country: 'US', code: 'MS', name: 'Mississippi', mapping: 'Mississippi' },
  { country: 'US', code: 'MO', name: 'Missouri', mapping: 'Missouri' },
  { country: 'US', code: 'MT', name: 'Montana', mapping: 'Montana' },
  { country: 'US', code: 'NE', name: 'Nebraska', mapping: 'Nebraska' },
  { country: 'US', code: 'NV', name: 'Nevada', mapping: 'Nevada' },
  { country: 'US', code: 'NH', name: 'New Hampshire', mapping: 'NewHampshire' },
  { country: 'US', code: 'NJ', name: 'New Jersey', mapping: 'NewJersey' },
  { country: 'US', code: 'NM', name: 'New Mexico', mapping: 'NewMexico' },
  { country: 'US', code: 'NY', name: 'New York', mapping: 'NewYork' },
  { country: 'US', code: 'NC', name: 'North Carolina', mapping: 'NorthCarolina' },
  { country: 'US', code: 'ND', name: 'North Dakota', mapping: 'NorthDakota' },
  { country: 'US', code: 'OH', name: 'Ohio', mapping: 'Ohio' },
  { country: 'US', code: 'OK', name: 'Oklahoma', mapping: 'Oklahoma' },
  { country: 'US', code: 'OR', name: 'Oregon', mapping: 'Oregon' },
  { country: 'US', code: 'PA', name: 'Pennsylvania', mapping: 'Pennsylvania' },
  { country: 'US', code: 'RI', name: 'Rhode Island', mapping: 'RhodeIsland' },
  { country: 'US', code: 'SC', name: 'South Carolina', mapping: 'SouthCarolina' },
  { country: 'US', code: 'SD', name: 'South Dakota', mapping: 'SouthDakota' },
  { country: 'US', code: 'TN', name: 'Tennessee', mapping: 'Tennessee' },
  { country: 'US', code: 'TX', name: 'Texas', mapping: 'Texas' },
  { country: 'US', code: 'UT', name: 'Utah', mapping: 'Utah' },
  { country: 'US', code: 'VT', name: 'Vermont', mapping: 'Vermont' },
  { country: 'US', code: 'VA', name: 'Virginia', mapping: 'Virginia' },
  { country: 'US', code: 'WA', name: 'Washington', mapping: 'Washington' },
  { country: 'US', code: 'WV', name: 'West Virginia', mapping: 'WestVirginia' },
  { country: 'US', code: 'WI', name: 'Wisconsin', mapping: 'Wisconsin' },
  { country: 'US', code: 'WY', name: 'Wyoming', mapping: 'Wyoming' },
  { country: 'US', code: 'AS', name: 'American Samoa', mapping: 'AmericanSamoa' },
  { country: 'US', code: 'GU', name: 'Guam', mapping: 'Guam' },
  { country: 'US', code: 'MP', name: 'Northern Mariana Islands', mapping: 'NorthernMarianaIslands' },
  { country: 'US', code: 'PR', name: 'Puerto Rico', mapping: 'PuertoRico' },
  { country: 'US', code: 'VI', name: 'U.S. Virgin Islands', mapping: 'USVirginIslands' },
  { country: 'CA', code: 'AB', name: 'Alberta', mapping: 'Alberta' },
  { country: 'CA', code: 'BC', name: 'British Columbia', mapping: 'BritishColumbia' },
  { country: 'CA', code: 'MB', name: 'Manitoba', mapping: 'Manitoba' },
  { country: 'CA', code: 'NB', name: 'New Brunswick', mapping: 'NewBrunswick' },
  { country: 'CA', code: 'NL', name: 'Newfoundland and Labrador', mapping: 'NewfoundlandAndLabrador' },
  { country: 'CA', code: 'NS', name: 'Nova Scotia', mapping: 'NovaScotia' },
  { country: 'CA', code: 'NT', name: 'Northwest Territories', mapping: 'NorthwestTerritories' },
  { country: 'CA', code: 'NU', name: 'Nunavut', mapping: 'Nunavut' },
  { country: 'CA', code: 'ON', name: 'Ontario', mapping: 'Ontario' },
  { country: 'CA', code: 'PE', name: 'Prince Edward Island', mapping: 'PrinceEdwardIsland' },
  { country: 'CA', code: 'QC', name: 'Quebec', mapping: 'Quebec' },
  { country: 'CA', code: 'SK', name: 'Saskatchewan', mapping: 'Saskatchewan' },
  { country: 'CA', code: 'YT', name: 'Yukon', mapping: 'Yukon' },
];

function fold(value: string): string {
  return value
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]/g, '');
}

const byKey = new Map<string, StateEntry>();
for (const s of STATES) {
  byKey.set(fold(s.name), s);
  byKey.set(fold(s.mapping), s);
  byKey.set(fold(`${s.country}-${s.code}`), s);
  // Bare two-letter codes default to US; Canadian codes do not collide with US ones.
  if (!byKey.has(fold(s.code))) byKey.set(fold(s.code), s);
}

/** Finds a state or province from a two-letter code, a name, an ISO 3166-2 code or a StateMapping name. */
export function findState(input: string): StateEntry | undefined {
  const key = fold(input.trim());
  return key ? byKey.get(key) : undefined;
}

/** Converts a caller's state to the provider's StateMapping name; throws on anything it cannot place. */
export function toStateMappingName(input: string): string {
  const state = findState(input);
  if (!state) {
    throw new RangeError(
      `unknown state "${input}": give a two-letter code (TX), a name (Texas) or an ISO 3166-2 code (US-TX)`,
    );
  }
  return state.mapping;
}
