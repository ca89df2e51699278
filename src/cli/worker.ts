import type { CommandBody } from './command.ts';

export const workerCommand: CommandBody = {
  usage: `buyer-intel-sync worker

Runs the enrich worker (WORKER_CONCURRENCY accounts at a time) and the maintenance worker against
REDIS_URL / REDIS_PREFIX and declares the schedules (idempotent: every replica may). Serves no HTTP.
SIGTERM or SIGINT stops taking work, lets active jobs finish, flushes pending writes and exits.
Reads the environment (see .env.example).`,
  options: {},
  // The service graph loads once the arguments are valid (this role takes none).
  run: async () => (await import('./run-service.ts')).runService('worker'),
};
