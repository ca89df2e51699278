// What `start`, `serve` and `worker` share: read the environment, build the service, run the parts of
// it the role asks for, and on SIGTERM/SIGINT stop taking work, let active jobs finish, flush pending
// writes and resolve with exit code 0. A second signal while draining stops at once (exit 1).
import type { LogPort } from '../../src/shared/log.ts';
import { loadEnv } from '../config/env.ts';
import { createLogger, type Logger, workerLog } from '../observe/logger.ts';
import { createService } from '../service/runtime.ts';
import { settingsFromEnv } from '../service/settings.ts';
import { requireRedis } from './redis-check.ts';

export type Role = 'start' | 'serve' | 'worker';

/** Which parts each role runs. */
export const ROLES: Record<Role, { http: boolean; worker: boolean }> = {
  start: { http: true, worker: true },
  serve: { http: true, worker: false },
  worker: { http: false, worker: true },
};

/**
 * Resolves with the first SIGTERM/SIGINT; listening starts at once, so one during start-up is not lost.
 * `stop` takes the listeners back, for a role that failed to start: main() in a test's process must
 * leave that process's signals as it found them.
 */
function firstSignal(log: () => LogPort | undefined): { signal: Promise<NodeJS.Signals>; stop(): void } {
  let on: (signal: NodeJS.Signals) => void = () => {};
  const signal = new Promise<NodeJS.Signals>((resolve) => {
    on = (signal: NodeJS.Signals) => {
      process.off('SIGTERM', on);
      process.off('SIGINT', on);
      // While draining, a second signal means "now".
      const force = (again: NodeJS.Signals) => {
        log()?.warn('stopping without draining', { signal: again });
        process.exit(1);
      };
      process.once('SIGTERM', force);
      process.once('SIGINT', force);
      resolve(signal);
    };
    process.on('SIGTERM', on);
    process.on('SIGINT', on);
  });
  return {
    signal,
    stop: () => {
      process.off('SIGTERM', on);
      process.off('SIGINT', on);
    },
  };
}

/** The embedded database serves one process; `serve` and `worker` are two. */
export const NEEDS_SHARED_DATABASE =
  'serve and worker run as separate processes and need a shared database: set DATABASE_URL (PostgreSQL)';

/**
 * Whatever escapes every handler (a rejection nobody awaited, an uncaught exception) is logged as a
 * JSON line with its stack, ahead of the CLI's own handler (runCli), which then says it in one line
 * and exits 1. Returns what takes the two listeners back.
 */
function logUnhandled(logger: Logger): () => void {
  const rejection = (reason: unknown) => {
    logger.fatal({ err: reason }, 'unhandled rejection');
  };
  const exception = (err: Error) => {
    logger.fatal({ err }, 'uncaught exception');
  };
  process.prependListener('unhandledRejection', rejection);
  process.prependListener('uncaughtException', exception);
  return () => {
    process.off('unhandledRejection', rejection);
    process.off('uncaughtException', exception);
  };
}

export async function runService(role: Role): Promise<number> {
  let jsonLog: LogPort | undefined;
  const signals = firstSignal(() => jsonLog);
  let unhook = () => {};
  try {
    const env = loadEnv();
    // One logger for the role at LOG_LEVEL: request lines, unhandled errors and job lines alike.
    const logger = createLogger({ level: env.LOG_LEVEL });
    jsonLog = workerLog(logger);
    unhook = logUnhandled(logger);
    return await serveRole(role, env, logger, jsonLog, signals.signal);
  } catch (err) {
    // Failed to start (or to stop): the process exits with this failure, and a caller running main()
    // in its own process (the tests) gets its signals and error handlers back as they were.
    signals.stop();
    unhook();
    throw err;
  }
}

async function serveRole(
  role: Role,
  env: ReturnType<typeof loadEnv>,
  logger: Logger,
  log: LogPort,
  signal: Promise<NodeJS.Signals>,
): Promise<number> {
  const parts = ROLES[role];
  // Redis first: without it no role can do anything, whatever else is missing.
  await requireRedis(env.REDIS_URL, env.REDIS_PREFIX);
  if (role !== 'start' && !env.DATABASE_URL) throw new Error(NEEDS_SHARED_DATABASE);
  const service = createService({ ...(await settingsFromEnv(env)), logger, log });
  // Tenants kept in the database (TOKEN_ENCRYPTION_KEY): load them now, then pick up changes every 30 s.
  await service.loadTenants();
  service.watchTenants(30_000);
  let url: string | undefined;
  try {
    // Before taking work: a database that is unreachable, or has migrations pending, stops us here.
    await service.store.open();
    if (parts.http) {
      url = (await service.startHttp(env.PORT, env.HOST)).url;
      // CRM event sources (e.g. streaming) are inbound like the webhooks: they run where those are served.
      await service.startChangeEvents();
    }
    if (parts.worker) {
      service.startWorker();
      // Idempotent: every worker replica may (re)declare the schedules.
      await service.upsertSchedules();
      // A worker alone serves its metrics and health on METRICS_LISTEN (with HTTP, that tier does).
      if (!parts.http) url = (await service.startWorkerHttp())?.url;
    }
  } catch (err) {
    await service.close().catch(() => undefined);
    throw err;
  }
  log.info('started', {
    role,
    ...(url ? { url } : {}),
    crms: Object.fromEntries(Object.keys(env.crms).map((kind) => [kind, service.tenantsOf(kind)])),
    ...(parts.worker ? { concurrency: env.WORKER_CONCURRENCY } : {}),
  });
  log.info('draining', { role, signal: await signal });
  await service.close();
  log.info('stopped', { role });
  return 0;
}
