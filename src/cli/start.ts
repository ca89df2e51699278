import type { CommandBody } from './command.ts';

export const startCommand: CommandBody = {
  // The CRMs' names come from their registry (~1 s of imports): loaded for --help alone.
  usage: async () => {
    const { crmKinds } = await import('../../connectors/registry.ts');
    return `buyer-intel-sync start

Serves POST /webhooks/<crm> for each configured CRM (${crmKinds().join(', ')}), /api, /healthz and /readyz on HOST:PORT and runs the enrich and maintenance workers
(and declares the schedules): \`serve\` and \`worker\` in one process.
SIGTERM or SIGINT stops taking work, lets active jobs finish, flushes pending writes and exits.
Reads the environment (see .env.example).`;
  },
  options: {},
  // The service graph loads once the arguments are valid (this role takes none).
  run: async () => (await import('./run-service.ts')).runService('start'),
};
