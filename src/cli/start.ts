import { crmKinds } from '../../connectors/registry.ts';
import type { CommandBody } from './command.ts';
import { runService } from './run-service.ts';

export const startCommand: CommandBody = {
  usage: `buyer-intel-sync start

Serves POST /webhooks/<crm> for each configured CRM (${crmKinds().join(', ')}), /api, /healthz and /readyz on HOST:PORT and runs the enrich and maintenance workers
(and declares the schedules): \`serve\` and \`worker\` in one process.
SIGTERM or SIGINT stops taking work, lets active jobs finish, flushes pending writes and exits.
Reads the environment (see .env.example).`,
  options: {},
  run: () => runService('start'),
};
