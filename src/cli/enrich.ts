// `enrich`: its options, and the check of its arguments, load nothing heavy; the service graph (the CRMs'
// SDKs, BullMQ, the database: ~1 s of CPU) is imported once they are valid (enrich-run.ts), so a bad
// argument is answered at once.
import { type CommandBody, UsageError } from './command.ts';

export const enrichCommand: CommandBody = {
  usage: async () => {
    const { crmChoices, TENANT_USAGE } = await import('./crm-option.ts');
    return `buyer-intel-sync enrich --crm ${crmChoices()} --account <id> [${TENANT_USAGE}] [--dry-run]

Resolves the account to a buyer and prints the plan: the match and why, every mapped field as
old → new with the policy that allowed or blocked it, and the notes to create. With --dry-run
nothing is written. --tenant names the account's portal or org: one the configuration names or one
stored with \`tenants add\` or an install (default: the configuration's). Reads the environment (see
.env.example).`;
  },
  options: {
    crm: { type: 'string' },
    tenant: { type: 'string' },
    account: { type: 'string' },
    'dry-run': { type: 'boolean', default: false },
  },
  // One account: minutes would mean something stopped answering (Redis went away mid-way, say).
  deadlineMs: 180_000,
  async run(values) {
    if (typeof values.account !== 'string' || !values.account.trim())
      throw new UsageError('--account <id> is required');
    const { enrichAccount } = await import('./enrich-run.ts');
    return enrichAccount({ ...values, account: values.account });
  },
};
