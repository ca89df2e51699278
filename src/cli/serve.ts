import { crmKinds } from '../../connectors/registry.ts';
import type { CommandBody } from './command.ts';
import { runService } from './run-service.ts';

export const serveCommand: CommandBody = {
  usage: `buyer-intel-sync serve

Serves POST /webhooks/<crm> for each configured CRM (${crmKinds().join(', ')}), /api, /healthz and /readyz on HOST:PORT. Queues jobs; runs none: run \`worker\`
processes (as many as you like) against the same REDIS_URL and REDIS_PREFIX.
SIGTERM or SIGINT stops accepting requests, finishes the ones in flight and exits.
Reads the environment (see .env.example).`,
  options: {},
  run: () => runService('serve'),
};
