import type { CrmKind } from '../../connectors/types.ts';
import type { ServiceSettings } from '../service/runtime.ts';
import { UsageError } from './command.ts';

/** The `--crm` a command acts on, and that CRM's tenant (portal id / org id) from the settings. */
export function crmConnection(value: unknown, settings: ServiceSettings): { crm: CrmKind; tenant: string } {
  if (value === 'hubspot') {
    if (!settings.hubspot)
      throw new UsageError(
        'HubSpot is not configured: set HUBSPOT_ACCESS_TOKEN, HUBSPOT_PORTAL_ID, HUBSPOT_CLIENT_SECRET',
      );
    return { crm: 'hubspot', tenant: settings.hubspot.portalId };
  }
  if (value === 'salesforce') {
    if (!settings.salesforce)
      throw new UsageError('Salesforce is not configured: set the SALESFORCE_* variables (see .env.example)');
    return { crm: 'salesforce', tenant: settings.salesforce.orgId };
  }
  throw new UsageError(`--crm must be hubspot or salesforce, got "${String(value)}"`);
}
