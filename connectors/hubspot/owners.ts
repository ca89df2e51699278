// The portal's owners (GET /crm/v3/owners): every page (`after` cursor; 100 a page, the spec's default), the active
// ones (archived=false: a deactivated user is archived and can receive nothing); the one who is the
// OAuth token's own user is marked `integration`.
import type { CrmOwner } from '../types.ts';
import type { HubSpotCalls } from './client.ts';
import { isOwnUser, type OwnUser } from './own-user.ts';

/** The spec's default page size (it documents no maximum). */
const OWNER_PAGE_LIMIT = 100;

/** `ownUser`: the token's own user (own-user.ts), marked `integration`: it gets no digest. */
export async function listOwners(
  calls: HubSpotCalls,
  ownUser: () => Promise<OwnUser | undefined>,
): Promise<CrmOwner[]> {
  const own = await ownUser();
  const owners: CrmOwner[] = [];
  let after: string | undefined;
  do {
    const cursor = after;
    const { data } = await calls.call('crm.owners.ownersApi.getPage', () =>
      calls.owners.ownersApi.getPageWithHttpInfo(undefined, cursor, OWNER_PAGE_LIMIT, false),
    );
    for (const o of data.results) {
      const name = [o.firstName, o.lastName].filter(Boolean).join(' ').trim();
      owners.push({
        id: o.id,
        email: o.email || null,
        name: name || null,
        active: !o.archived,
        ...(isOwnUser(o, own) ? { integration: true } : {}),
      });
    }
    after = data.paging?.next?.after;
  } while (after);
  return owners;
}
