import { crmKinds, crmOf, isCrmKind } from '../../connectors/registry.ts';
import type { CrmKind } from '../../connectors/types.ts';
import type { ServiceSettings } from '../service/types.ts';
import { UsageError } from './command.ts';

/** `--crm` in usage lines: every kind the registry knows. */
export const crmChoices = (): string => crmKinds().join('|');

/** The `--crm` a command acts on, and that CRM's tenant (the one the configuration names). */
export function crmConnection(value: unknown, settings: ServiceSettings): { crm: CrmKind; tenant: string } {
  if (value === undefined) {
    // Without --crm, the one CRM configured is meant; with several, say which.
    const configured = Object.keys(settings.crms);
    if (configured.length !== 1 || configured[0] === undefined)
      throw new UsageError(`--crm ${crmChoices()} is required when several CRMs are configured`);
    return crmConnection(configured[0], settings);
  }
  if (!isCrmKind(value))
    throw new UsageError(`--crm must be ${crmKinds().join(' or ')}, got "${String(value)}"`);
  const crm = crmOf(value);
  const config = settings.crms[value];
  const tenant = config === undefined ? undefined : crm.configuredTenants(config)[0];
  if (tenant === undefined)
    throw new UsageError(`${crm.label} is not configured: set ${crm.config.hint} (see .env.example)`);
  return { crm: value, tenant };
}
