// The link from a console row to the record in its CRM: the connector of the row's CRM and tenant says
// where its record pages are (CrmConnector.recordUrl), so no page knows a CRM's URL scheme. A tenant
// no longer connected, or a CRM without record pages, gives no link rather than a broken one.
import { crmOf } from '../../connectors/registry.ts';
import type { CrmConnector } from '../../connectors/types.ts';
import { esc } from './html.ts';

/**
 * Where a person opens one account in its CRM; null when there is no such page. `prepare`, awaited
 * before a page's rows are drawn, lets each of their tenants' connectors learn what its links need
 * (CrmConnector.prepareRecordUrls: once a connection, briefly, never failing the page).
 */
export type RecordUrl = ((crm: string, tenant: string, accountId: string) => string | null) & {
  prepare?: (rows: readonly { crm: string; tenant: string }[]) => Promise<void>;
};

export function recordUrlOf(connector: (crm: string, tenant: string) => CrmConnector): RecordUrl {
  const url: RecordUrl = (crm, tenant, accountId) => {
    try {
      const url = connector(crm, tenant).recordUrl?.(accountId);
      return url && /^https?:\/\//.test(url) ? url : null;
    } catch {
      return null;
    }
  };
  url.prepare = async (rows) => {
    const tenants = new Map(rows.map((r) => [`${r.crm}\u0000${r.tenant}`, r]));
    await Promise.all(
      [...tenants.values()].map(async ({ crm, tenant }) => {
        try {
          await connector(crm, tenant).prepareRecordUrls?.();
        } catch {
          // A tenant no longer connected has no link to prepare.
        }
      }),
    );
  };
  return url;
}

/** "Open in HubSpot" (its accessible name adds the account, starting with the visible text): the row's link to its record, or nothing. Opens in a new tab, without a referrer. */
export function recordLink(
  recordUrl: RecordUrl | undefined,
  o: { crm: string; tenant: string; accountId: string; accountName?: string | null },
): string {
  const url = recordUrl?.(o.crm, o.tenant, o.accountId);
  if (!url) return '';
  let label: string = o.crm;
  try {
    label = crmOf(o.crm).label;
  } catch {
    // An account of a CRM this build no longer speaks: its kind is all there is to name it by.
  }
  return `<a class="crm-link" href="${esc(url)}" target="_blank" rel="noopener noreferrer" aria-label="Open in ${esc(label)}: ${esc(o.accountName ?? o.accountId)} (new tab)">Open in ${esc(label)}</a>`;
}
