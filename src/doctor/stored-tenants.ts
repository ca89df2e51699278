// `doctor`'s line for every tenant kept in the database (`tenants add`, an app install): the
// environment's own tenants are checked by each CRM's doctor, but a stored one's token may have been
// revoked, may lack a scope a feature needs, or may not decrypt with this TOKEN_ENCRYPTION_KEY — and
// nothing said so until its first job failed. One page of one account and, where a feature reads
// owners, the owners list: the reads every job and follow-up make, with the tenant's own credentials.
import type { CrmFeatures } from '../../connectors/descriptor.ts';
import type { CrmConnector, CrmKind } from '../../connectors/types.ts';
import { withTimeout } from '../shared/deadline.ts';
import { isIntegrationError } from '../shared/errors.ts';
import type { CheckResult } from './result.ts';

export interface StoredTenantsView {
  loadTenants(): Promise<{ loaded: string[]; unreadable: string[] }>;
  tenantsOf(crm: CrmKind): readonly string[];
  connector(crm: CrmKind, tenant: string): CrmConnector;
}

function reasonOf(err: unknown): string {
  const missing = isIntegrationError(err) ? err.missingPermissions : undefined;
  if (missing?.length) return `its token lacks ${missing.join(', ')}: install the app again or add the scope`;
  return (err instanceof Error ? err.message : String(err)).split('\n')[0] ?? 'failed';
}

/**
 * One line per stored tenant (`<crm> tenant <id>`), plus one FAIL for the stored ones that cannot be
 * read (a different TOKEN_ENCRYPTION_KEY, a damaged row). `configured` are the environment's own.
 */
export async function checkStoredTenants(
  view: StoredTenantsView,
  crms: readonly CrmKind[],
  configured: (crm: CrmKind) => readonly string[],
  features: CrmFeatures,
  timeoutMs: number,
): Promise<CheckResult[]> {
  const { unreadable } = await view.loadTenants();
  const results: CheckResult[] = [];
  if (unreadable.length)
    results.push({
      name: 'stored tenants',
      status: 'fail',
      detail: `${unreadable.length} cannot be read with this TOKEN_ENCRYPTION_KEY: ${unreadable.join(', ')}`,
    });
  for (const crm of crms) {
    const own = new Set(configured(crm));
    for (const tenant of view.tenantsOf(crm).filter((t) => !own.has(t))) {
      const name = `${crm} tenant ${tenant}`;
      try {
        const connector = view.connector(crm, tenant);
        await withTimeout(connector.listAccounts([], { limit: 1 }), timeoutMs, 'reading accounts');
        if (features.owners) await withTimeout(connector.listOwners(), timeoutMs, 'reading owners');
        results.push({
          name,
          status: 'pass',
          detail: `its token reads accounts${features.owners ? ' and owners' : ''}`,
        });
      } catch (err) {
        results.push({ name, status: 'fail', detail: reasonOf(err) });
      }
    }
  }
  return results;
}
