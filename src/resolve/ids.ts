// The registry ids an account may carry (NCES, IPEDS, Census, the provider's own buyer id), read as
// text: what shape each has, which buyer attribute holds it, and when two are the same id. An NCES id
// keeps its leading zeros — "0602316" is a California district, 602316 is nothing — so nothing here
// turns an id into a number; a number the API sends (IPEDS) is compared by its decimal text.
import type { BuyerField } from '../buyer-intel/fields.ts';

export type IdKind = 'nces' | 'ipeds' | 'census' | 'buyer';

/** One id of the account, its shape checked. */
export interface AccountId {
  kind: IdKind;
  /** Trimmed, as typed (upper-cased for a private school's NCES id). */
  value: string;
  /** For people: "NCES id", "IPEDS id", "Census PID6", "Census GID", "buyer id". */
  label: string;
  /** The buyer attribute that holds it; none for the buyer id, which is the buyer's own. */
  attribute: Exclude<BuyerField, 'Id'> | null;
  /** The state its first two digits name (NCES district/school ids and Census GIDs begin with the state's FIPS code). */
  stateCode: string | null;
}

export interface ParsedIds {
  /** In the order they are tried: the buyer id, then NCES, IPEDS, Census. */
  ids: AccountId[];
  /** One sentence per id that is not of its kind's shape (it is not used). */
  malformed: string[];
}

const ORDER: readonly IdKind[] = ['buyer', 'nces', 'ipeds', 'census'];

/** State FIPS codes → postal codes (the 50 states, DC and Puerto Rico). */
const FIPS: ReadonlyMap<string, string> = new Map(
  (
    '01AL 02AK 04AZ 05AR 06CA 08CO 09CT 10DE 11DC 12FL 13GA 15HI 16ID 17IL 18IN 19IA 20KS 21KY 22LA ' +
    '23ME 24MD 25MA 26MI 27MN 28MS 29MO 30MT 31NE 32NV 33NH 34NJ 35NM 36NY 37NC 38ND 39OH 40OK 41OR ' +
    '42PA 44RI 45SC 46SD 47TN 48TX 49UT 50VT 51VA 53WA 54WV 55WI 56WY 72PR'
  )
    .split(' ')
    .map((entry) => [entry.slice(0, 2), entry.slice(2)] as const),
);

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const ZERO_LOST = 'a leading zero may have been lost (keep the field as text)';

type Shape = { ok: Omit<AccountId, 'kind'> } | { problem: string };

/**
 * Loose shapes: NCES 7 digits (district), 12 (public school) or 8 letters and digits (private school);
 * IPEDS the 6-digit UNITID; Census the 6-digit PID6 or the 14-digit GID; the buyer id a UUID.
 */
function shapeOf(kind: IdKind, value: string): Shape {
  const state = (digits: string) => FIPS.get(digits.slice(0, 2)) ?? null;
  switch (kind) {
    case 'nces':
      if (/^(\d{7}|\d{12})$/.test(value))
        return { ok: { value, label: 'NCES id', attribute: 'NcesId', stateCode: state(value) } };
      if (/^(?=.*[A-Z])[A-Z0-9]{8}$/i.test(value))
        return { ok: { value: value.toUpperCase(), label: 'NCES id', attribute: 'NcesId', stateCode: null } };
      if (/^(\d{6}|\d{11})$/.test(value))
        return { problem: `NCES id "${value}" is one digit short: ${ZERO_LOST}` };
      return {
        problem: `NCES id "${value}" is not one (7 digits for a district, 12 for a school, 8 characters for a private school)`,
      };
    case 'ipeds':
      if (/^\d{6}$/.test(value))
        return { ok: { value, label: 'IPEDS id', attribute: 'IpedsIdNumeric', stateCode: null } };
      return { problem: `IPEDS id "${value}" is not one (6 digits)` };
    case 'census':
      if (/^\d{6}$/.test(value))
        return { ok: { value, label: 'Census PID6', attribute: 'CensusIdPid6', stateCode: null } };
      if (/^\d{14}$/.test(value))
        return { ok: { value, label: 'Census GID', attribute: 'CensusIdGidId', stateCode: state(value) } };
      if (/^\d{13}$/.test(value)) return { problem: `Census id "${value}" is one digit short: ${ZERO_LOST}` };
      return { problem: `Census id "${value}" is not one (6-digit PID6 or 14-digit GID)` };
    case 'buyer':
      if (UUID.test(value))
        return { ok: { value: value.toLowerCase(), label: 'buyer id', attribute: null, stateCode: null } };
      return { problem: `buyer id "${value}" is not one (a UUID)` };
  }
}

/** The account's ids, each trimmed and checked; an empty one is absent, a malformed one is reported. */
export function parseAccountIds(raw: Partial<Record<IdKind, string | null>> | null | undefined): ParsedIds {
  const ids: AccountId[] = [];
  const malformed: string[] = [];
  for (const kind of ORDER) {
    const value = raw?.[kind]?.trim();
    if (!value) continue;
    const shape = shapeOf(kind, value);
    if ('ok' in shape) ids.push({ kind, ...shape.ok });
    else malformed.push(shape.problem);
  }
  return { ids, malformed };
}

/**
 * Whether a buyer attribute holds this id: compared as trimmed text (a number by its decimal form, as
 * the API sends IPEDS ids); a private school's letters in any case. Null when the attribute is unset.
 */
export function sameId(id: AccountId, attribute: unknown): boolean | null {
  let text: string;
  if (typeof attribute === 'number' && Number.isFinite(attribute)) text = String(attribute);
  else if (typeof attribute === 'string') text = attribute.trim();
  else return null;
  if (!text) return null;
  return text.toUpperCase() === id.value.toUpperCase();
}

/** The attribute's value as people read it, for a reason ("4808940"); null when unset. */
export function shownId(attribute: unknown): string | null {
  if (typeof attribute === 'number' && Number.isFinite(attribute)) return String(attribute);
  return typeof attribute === 'string' && attribute.trim() ? attribute.trim() : null;
}

/**
 * Whether a buyer of this type is the kind of buyer that carries the id, from the API's type words
 * ("School District", "SchoolDistrict", "HigherEducation"…): only to check likely buyers first.
 */
export function likelyHolder(id: AccountId, type: string | null): boolean {
  const t = (type ?? '').toLowerCase().replace(/[^a-z]/g, '');
  if (id.kind === 'nces') return /school|education|academy/.test(t) && !/higher/.test(t);
  if (id.kind === 'ipeds') return /higher|college|universit/.test(t);
  if (id.kind === 'census') return !/police|fire|higher|college|universit|stateagency/.test(t);
  return true;
}

/** Whether the account holds any id at all (well-formed or not). */
export function carriesIds(raw: Partial<Record<IdKind, string | null>> | null | undefined): boolean {
  return ORDER.some((kind) => Boolean(raw?.[kind]?.trim()));
}
