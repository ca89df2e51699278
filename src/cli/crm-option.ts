import { crmKinds, crmOf, isCrmKind } from '../../connectors/registry.ts';
import type { CrmKind } from '../../connectors/types.ts';
import type { Service, ServiceSettings } from '../service/types.ts';
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

/** `--tenant` in usage lines. */
export const TENANT_USAGE = '--tenant <portal id | org id>';

const TENANT_ID = /^[A-Za-z0-9_-]{1,64}$/;

/** What the commands that take `--tenant` need of the service: the tenants it serves. */
type Tenants = Pick<Service, 'loadTenants' | 'tenantsOf'>;

/**
 * The tenant a command acts on. `--tenant` names one the configuration names or one stored in the
 * database (`tenants add`, an install: its credentials decrypted from there), of `--crm` when given;
 * without it, the configuration's (crmConnection). Resolves once the stored tenants are served.
 */
export async function tenantConnection(
  values: Record<string, unknown>,
  settings: ServiceSettings,
  service: Tenants,
): Promise<{ crm: CrmKind; tenant: string }> {
  if (values.tenant === undefined) return crmConnection(values.crm, settings);
  const raw = String(values.tenant).trim();
  if (!TENANT_ID.test(raw)) throw new UsageError('--tenant must be a portal id or an org id');
  if (values.crm !== undefined && !isCrmKind(values.crm))
    throw new UsageError(`--crm must be ${crmKinds().join(' or ')}, got "${String(values.crm)}"`);
  const { unreadable } = await service.loadTenants();
  const kinds = values.crm === undefined ? crmKinds() : [values.crm as CrmKind];
  const found = kinds.flatMap((crm) => {
    const id = crmOf(crm).tenantId(raw);
    return id !== undefined && service.tenantsOf(crm).includes(id) ? [{ crm, tenant: id }] : [];
  });
  const [only, ...more] = found;
  if (only && !more.length) return only;
  if (only) throw new UsageError(`${raw} is a tenant of ${found.map((f) => f.crm).join(' and ')}: add --crm`);
  throw new Error(
    `no tenant ${raw}${values.crm === undefined ? '' : ` in ${String(values.crm)}`}: neither configured nor stored (buyer-intel-sync tenants list shows the stored ones` +
      (settings.tenants ? '' : '; they need TOKEN_ENCRYPTION_KEY') +
      (unreadable.length ? `; ${unreadable.length} cannot be read: ${unreadable.join(', ')}` : '') +
      ')',
  );
}

/** Every tenant served (the configuration's and the stored ones), of `--crm` when given. */
export async function everyTenant(
  values: Record<string, unknown>,
  service: Tenants,
): Promise<{ crm: CrmKind; tenant: string }[]> {
  if (values.crm !== undefined && !isCrmKind(values.crm))
    throw new UsageError(`--crm must be ${crmKinds().join(' or ')}, got "${String(values.crm)}"`);
  await service.loadTenants();
  const kinds = values.crm === undefined ? crmKinds() : [values.crm as CrmKind];
  return kinds.flatMap((crm) => service.tenantsOf(crm).map((tenant) => ({ crm, tenant })));
}
