// The composition root: wires one running service from its settings (core.ts builds the shared parts,
// workers.ts the work tier, http.ts the HTTP tier, schedules.ts the schedulers). Used by the CLI roles,
// the demo and the end-to-end tests, so all three run the same code. No business logic here.
import { jobForEvent } from '../../queues/enrich-queue.ts';
import { runDigestNow } from '../digest/run.ts';
import { enrichAccount } from '../enrich/pipeline.ts';
import { planSignals } from '../enrich/run-signals.ts';
import { buildCore } from './core.ts';
import { startHttp } from './http.ts';
import { keepSchedules } from './schedules.ts';
import type { Service, ServiceSettings } from './types.ts';
import type { WorkerHealth } from './worker-health.ts';
import { startWorkerHttp } from './worker-http.ts';
import { startWorkers } from './workers.ts';

export type { Service, ServiceSettings } from './types.ts';

export function createService(settings: ServiceSettings): Service {
  const core = buildCore(settings);
  const sources: { close(): Promise<void> }[] = [];
  const workers: { close(): Promise<void> }[] = [];
  const servers: { close(): Promise<void> }[] = [];
  let tenantTimer: NodeJS.Timeout | undefined;
  let health: WorkerHealth | undefined;
  let schedules: { close(): Promise<void> } | undefined;

  const loadTenants = async () => {
    const { loaded, unreadable } = await core.crms.loadTenants();
    for (const u of unreadable)
      core.log.warn('a stored tenant cannot be read', { tenant: u.field, reason: u.reason });
    return { loaded, unreadable: unreadable.map((u) => u.field) };
  };

  return {
    queue: core.queues.enrich,
    backfillQueue: core.queues.backfill,
    maintenanceQueue: core.queues.maintenance,
    deps: core.deps,
    store: core.store,
    history: core.history,
    metrics: core.metrics,
    connector: core.connector,
    accountLocks: core.accountLocks,
    tenantsOf: (crm) => core.crms.tenantsOf(crm),
    planSignals: (accounts) => planSignals(core.buyerIntel.cached, core.settings.signals, accounts),
    enrich: (ref, options) => enrichAccount(core.deps, ref, options),
    digest: (kind, options) => runDigestNow(core.digestDeps, kind, options),
    prepareFields: (crm, tenant) => core.fields.prepare(crm, tenant),
    startWorker() {
      const { enrich, all, health: h } = startWorkers(core);
      workers.push(...all);
      health = h;
      return enrich;
    },
    async startWorkerHttp() {
      const at = core.settings.security?.metrics.listen;
      if (!at || !health) return undefined;
      const server = await startWorkerHttp(core, health, at);
      servers.push(server);
      return server;
    },
    async upsertSchedules() {
      await schedules?.close();
      schedules = await keepSchedules(core);
    },
    async startHttp(port, host) {
      const server = await startHttp(core, port, host);
      servers.push(server);
      return server;
    },
    loadTenants,
    watchTenants(intervalMs) {
      clearInterval(tenantTimer);
      tenantTimer = setInterval(() => {
        loadTenants().catch((err: unknown) =>
          core.log.warn('could not reload tenants', { reason: String(err) }),
        );
      }, intervalMs);
      tenantTimer.unref();
    },
    async startChangeEvents() {
      const emit = async (events: Parameters<typeof jobForEvent>[0][]) => {
        const jobs = events.map((event) => jobForEvent(event, settings.worker.attempts));
        if (jobs.length) await core.queues.enrich.addBulk(jobs);
      };
      for (const source of core.crms.eventSources) {
        const subscription = await source.start(emit);
        sources.push(subscription);
      }
    },
    async close() {
      clearInterval(tenantTimer);
      await schedules?.close();
      // Stop taking work first (event sources, then workers let active jobs finish), flush pending
      // writes (every batch channel), then close servers, queues and connections.
      await Promise.all(sources.map((s) => s.close()));
      await Promise.all(workers.map((w) => w.close()));
      await core.writes.drain();
      await core.channels.drainAll();
      await core.channels.close();
      await Promise.all(servers.map((s) => s.close()));
      await core.queues.close();
      await core.usage.close();
      core.redis.close();
      await core.store.close();
    },
  };
}
