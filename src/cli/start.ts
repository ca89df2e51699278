import type { WorkerLog } from '../../queues/enrich-worker.ts';
import { loadEnv } from '../config/env.ts';
import { createService } from '../service/runtime.ts';
import { settingsFromEnv } from '../service/settings.ts';
import type { Command } from './command.ts';

/** One JSON line per event on stderr; never a token (fields are ids and reasons only). */
const jsonLog: WorkerLog = {
  info: (msg, fields) =>
    process.stderr.write(
      `${JSON.stringify({ level: 'info', time: new Date().toISOString(), msg, ...fields })}\n`,
    ),
  warn: (msg, fields) =>
    process.stderr.write(
      `${JSON.stringify({ level: 'warn', time: new Date().toISOString(), msg, ...fields })}\n`,
    ),
};

export const startCommand: Command = {
  name: 'start',
  summary: 'Run the webhook receiver and an enrich worker in one process',
  usage: `buyer-intel-sync start

Serves POST /webhooks/hubspot (HubSpot configured), POST /webhooks/salesforce (Salesforce
configured), /healthz and /readyz on HOST:PORT and runs an enrich worker.
SIGTERM or SIGINT stops taking work, lets active jobs finish, flushes pending writes and exits.
Reads the environment (see .env.example).`,
  options: {},
  async run() {
    const env = loadEnv();
    const service = createService({ ...(await settingsFromEnv(env)), log: jsonLog });
    const http = await service.startHttp(env.PORT, env.HOST);
    service.startWorker();
    await service.upsertSchedules();
    jsonLog.info('started', {
      url: http.url,
      ...(env.HUBSPOT_PORTAL_ID ? { hubspotPortalId: env.HUBSPOT_PORTAL_ID } : {}),
      ...(env.SALESFORCE_ORG_ID ? { salesforceOrgId: env.SALESFORCE_ORG_ID } : {}),
      concurrency: env.WORKER_CONCURRENCY,
    });
    const signal = await new Promise<string>((resolve) => {
      process.once('SIGTERM', () => resolve('SIGTERM'));
      process.once('SIGINT', () => resolve('SIGINT'));
    });
    jsonLog.info('draining', { signal });
    await service.close();
    jsonLog.info('stopped', {});
    return 0;
  },
};
