// The portal's owners (GET /crm/v3/owners): every page (`after` cursor; 100 a page, the spec's default), the active
// ones (archived=false: a deactivated user is archived and can receive nothing).
import type { CrmOwner } from '../types.ts';
import type { HubSpotCalls } from './client.ts';

/** The spec's default page size (it documents no maximum). */
const OWNER_PAGE_LIMIT = 100;

export async function listOwners(calls: HubSpotCalls): Promise<CrmOwner[]> {
  const owners: CrmOwner[] = [];
  let after: string | undefined;
  do {
    const cursor = after;
    const { data } = await calls.call('crm.owners.ownersApi.getPage', () =>
      calls.owners.ownersApi.getPageWithHttpInfo(undefined, cursor, OWNER_PAGE_LIMIT, false),
    );
    for (const o of data.results) {
      const name = [o.firstName, o.lastName].filter(Boolean).join(' ').trim();
      owners.push({ id: o.id, email: o.email || null, name: name || null, active: !o.archived });
    }
    after = data.paging?.next?.after;
  } while (after);
  return owners;
}
