// Each connected CRM's names for our fields, for the pages a person reads: the connector of the CRM's
// first tenant says how it spells a field (its `fieldName`; HubSpot uses ours as they are). A CRM with
// no tenant yet is left out — there is nothing of ours in it to name.
import { crmOf } from '../../connectors/registry.ts';
import type { CrmConnector, CrmKind } from '../../connectors/types.ts';
import type { CrmFieldNames } from './mapping-page.ts';

export function crmFieldNames(crms: {
  kinds(): string[];
  tenantsOf(crm: CrmKind): string[];
  get(crm: CrmKind, tenant: string): CrmConnector;
}): CrmFieldNames[] {
  return crms.kinds().flatMap((kind) => {
    const tenant = crms.tenantsOf(kind)[0];
    if (tenant === undefined) return [];
    const connector = crms.get(kind, tenant);
    return [{ kind, label: crmOf(kind).label, nameOf: (f: string) => connector.fieldName?.(f) ?? f }];
  });
}
