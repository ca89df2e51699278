// What a search result does not say about a buyer, read from its attributes for the few candidates a
// close decision turns on: its other names, its parent, its type, where it is and its email domains.
// One bulk attribute call per candidate (the client's cache answers repeats), at most `MAX_PROFILES`
// per account, and only when the decision is close — a clear match or nothing within reach costs none.
import type { BuyerIntelClient } from '../buyer-intel/client.ts';
import { NotFoundError } from '../buyer-intel/errors.ts';
import type { BuyerField } from '../buyer-intel/fields.ts';
import type { BuyerProfile } from './weights.ts';

export type ProfileClient = Pick<BuyerIntelClient, 'getBuyerAttributesBulk'>;

/** Attribute calls a close decision may spend on its candidates. */
export const MAX_PROFILES = 3;

const PROFILE_FIELDS: readonly BuyerField[] = [
  'CommonName',
  'ParentName',
  'ParentBuyerId',
  'Type',
  'City',
  'County',
  'Zip',
  'StateCode',
  'EmailDomains',
  'Url',
];

export interface Profiled {
  profile: BuyerProfile;
  type: string | null;
  stateCode: string | null;
  url: string | null;
}

const text = (v: unknown): string | null => (typeof v === 'string' && v.trim() ? v.trim() : null);

/** A list attribute as the provider may send it: an array, or one comma-separated string. */
function list(v: unknown): string[] {
  const items = Array.isArray(v) ? v : typeof v === 'string' ? v.split(/[,;\s]+/) : [];
  return items.flatMap((item) => (typeof item === 'string' && item.trim() ? [item.trim()] : []));
}

/** The buyer's attributes as a profile; null when the provider knows no such buyer. */
export async function readProfile(client: ProfileClient, buyerId: string): Promise<Profiled | null> {
  let data: Record<string, unknown> | null | undefined;
  try {
    ({ buyerData: data } = await client.getBuyerAttributesBulk(buyerId, [...PROFILE_FIELDS]));
  } catch (err) {
    if (err instanceof NotFoundError) return null;
    throw err;
  }
  if (!data) return null;
  const common = text(data.CommonName);
  return {
    profile: {
      otherNames: common ? [common] : [],
      parentName: text(data.ParentName),
      parentBuyerId: text(data.ParentBuyerId),
      city: text(data.City),
      county: text(data.County),
      zip: text(data.Zip),
      emailDomains: list(data.EmailDomains),
    },
    type: text(data.Type),
    stateCode: text(data.StateCode),
    url: text(data.Url),
  };
}
