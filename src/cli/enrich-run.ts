// What `enrich` does once its arguments are valid (enrich.ts checks them before this module, and the
// service graph it imports, load): resolve the account, enrich it (or plan it, with --dry-run), print
// the plan.
import { canonicalAccountId } from '../../connectors/registry.ts';
import type { CrmKind } from '../../connectors/types.ts';
import { loadEnv } from '../config/env.ts';
import type { EnrichResult } from '../enrich/types.ts';
import { createService } from '../service/runtime.ts';
import { settingsFromEnv } from '../service/settings.ts';
import { UsageError } from './command.ts';
import { crmConnection, tenantConnection } from './crm-option.ts';
import { requireRedis } from './redis-check.ts';
import { renderTable, wrapParagraph } from './table.ts';

/** Enriches `values.account` (checked present by enrich.ts) and prints the plan; resolves with 0. */
export async function enrichAccount(
  values: Record<string, string | boolean | undefined> & { account: string },
): Promise<number> {
  const settings = await settingsFromEnv(loadEnv());
  const configured = values.tenant === undefined ? crmConnection(values.crm, settings) : undefined;
  const idOf = (crm: CrmKind, raw: string) => {
    const accountId = canonicalAccountId(crm, raw);
    if (accountId === undefined)
      throw new UsageError(`--account: ${raw.trim().slice(0, 64)} is not a ${crm} account id`);
    return accountId;
  };
  if (configured) idOf(configured.crm, values.account);
  await requireRedis(settings.redisUrl, settings.prefix);
  const service = createService(settings);
  try {
    const { crm, tenant } = configured ?? (await tenantConnection(values, settings, service));
    const accountId = idOf(crm, values.account);
    const result = await service.enrich(
      { crm, tenant, accountId },
      { dryRun: values['dry-run'] === true, job: { trigger: 'cli' } },
    );
    const connector = service.connector(crm, tenant);
    process.stdout.write(renderPlan(result, (field) => connector.fieldName?.(field) ?? field));
    return 0;
  } finally {
    await service.close();
  }
}

/** The plan in the CRM's own field names (`nameOf`: Salesforce's API names, HubSpot's property names). */
export function renderPlan(r: EnrichResult, nameOf: (field: string) => string = (field) => field): string {
  const lines: string[] = [];
  lines.push(
    `${r.dryRun ? 'DRY RUN — nothing written. ' : ''}Account ${r.account.accountId} "${r.account.name ?? ''}" (${r.account.crm} ${r.account.tenant})`,
  );
  lines.push(`Status: ${r.status}${r.match.confidence === null ? '' : `, confidence ${r.match.confidence}`}`);
  lines.push(wrapParagraph(`Why: ${r.match.explanation}`));
  if (r.status === 'needs_review') {
    lines.push('Candidates:');
    lines.push(
      renderTable(
        r.match.candidates.map((c) => [
          c.score.toFixed(2),
          c.name,
          c.stateCode ?? '?',
          c.type ?? '?',
          c.buyerId,
        ]),
        { head: ['score', 'candidate', 'state', 'type', 'buyer id'] },
      ),
    );
  }
  if (r.fields.length) {
    lines.push('Fields:');
    lines.push(
      renderTable(
        r.fields.map((f) => [
          nameOf(f.property),
          f.decision,
          f.policy,
          f.decision === 'write' ? `${f.old ?? '∅'} → ${f.new ?? '∅'}` : `${f.old ?? '∅'} (kept)`,
        ]),
        { head: ['field', 'decision', 'policy', 'change'] },
      ),
    );
  }
  const provenance = Object.entries(r.written).filter(([k]) => !r.fields.some((f) => f.property === k));
  if (provenance.length) {
    lines.push('Match fields:');
    lines.push(
      renderTable(
        provenance.map(([k, v]) => [nameOf(k), v === null ? '∅' : String(v)]),
        { head: ['field', 'value'] },
      ),
    );
  }
  lines.push(
    `Notes ${r.dryRun ? 'to create' : 'created'}: ${r.notes.created.length} (already on the account: ${r.notes.alreadyPresent}, over the per-run cap: ${r.notes.overCap})`,
  );
  for (const n of r.notes.created) lines.push(`  + ${wrapParagraph(n.title, 4)}`);
  return `${lines.join('\n')}\n`;
}
