import type { CommandBody } from './command.ts';

export const serveCommand: CommandBody = {
  // The CRMs' names come from their registry (~1 s of imports): loaded for --help alone.
  usage: async () => {
    const { crmKinds } = await import('../../connectors/registry.ts');
    return `buyer-intel-sync serve

Serves POST /webhooks/<crm> for each configured CRM (${crmKinds().join(', ')}), /api, /healthz and /readyz on HOST:PORT. Queues jobs; runs none: run \`worker\`
processes (as many as you like) against the same REDIS_URL and REDIS_PREFIX.
SIGTERM or SIGINT stops accepting requests, finishes the ones in flight and exits.
Reads the environment (see .env.example).`;
  },
  options: {},
  // The service graph loads once the arguments are valid (this role takes none).
  run: async () => (await import('./run-service.ts')).runService('serve'),
};
