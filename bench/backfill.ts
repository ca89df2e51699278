// A backfill at the real limits: `accounts` existing accounts in the CRM emulator (HubSpot at 190 / 10 s
// and 625,000 a day, or Salesforce at an Enterprise org's 100,000 a day), queued by the service's own
// backfill (src/backfill, as the CLI's `backfill` queues them) and enriched by W worker processes.
// Steady state: after the queueing and a warm-up, a window of `windowS` seconds; accounts finished in it
// ÷ its length, and every cost (upstream calls, Redis commands, worker CPU) over the same window.
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import type { HubSpotConfig } from '../connectors/hubspot/config.ts';
import type { SandboxDataset } from '../emulators/buyer-intel/data/dataset.ts';
import { sandboxSettings } from '../emulators/settings.ts';
import { runBackfill } from '../src/backfill/backfill.ts';
import type { SignalPlan } from '../src/enrich/run-signals.ts';
import { DEFAULT_MAPPING } from '../src/map/default-mapping.ts';
import { fieldDefinitions } from '../src/map/field-definitions.ts';
import { createService } from '../src/service/runtime.ts';
import { benchAccounts } from './accounts.ts';
import { benchDatabase } from './bench-db.ts';
import { HUBSPOT_CAPACITY } from './bound.ts';
import { type CallCounts, totalCalls } from './calls.ts';
import { crmSandbox } from './crm-sandbox.ts';
import { busyCpuMs, cpuCeiling } from './machine.ts';
import { backendCpu, backendCpuDelta } from './pg-cost.ts';
import { preloadOutcomes } from './preload-outcomes.ts';
import { startProviderProcess } from './provider-process.ts';
import { deletePrefix } from './redis-cleanup.ts';
import { redisMonitor } from './redis-monitor.ts';
import { commandDelta, commandStats } from './redis-stats.ts';
import { SERVICE_PROVIDER_DEFAULTS, SERVICE_WORKER_DEFAULTS } from './service-defaults.ts';
import { webhookAccounts } from './webhook-accounts.ts';
import { type WindowFacts, windowFacts } from './window.ts';
import {
  type Stopped,
  startWorkerProcess,
  type WorkerHandle,
  type WorkerSample,
  workerHeapFlags,
} from './workers.ts';

export interface BackfillBenchOptions {
  crm: 'hubspot' | 'salesforce';
  redisUrl: string;
  /** A PostgreSQL server for the store (a database is created and dropped); else PGlite per process. */
  postgresUrl: string | undefined;
  dataset: SandboxDataset;
  accounts: number;
  buyers: number;
  latencyMs: number;
  workers: number;
  concurrency: number;
  /** Buyer Intelligence requests per minute its emulator enforces (a token bucket). */
  buyerIntelPerMinute: number;
  /** The emulator's burst (default: a second's worth, as the lifted-limit CPU probe always ran). */
  buyerIntelBurst?: number;
  /**
   * The customer's conditions (customer.ts): the service's own provider rate and burst (its config
   * defaults) instead of the emulator's, and the window from the first account queued to the last one
   * finished instead of a steady-state slice. A storm: the provider refuses `share` of its calls with
   * 429 for `seconds`, `fromS` after the queueing starts.
   */
  customer?: {
    storm?: { fromS: number; seconds: number; share: number };
    /** New accounts queued as a webhook's are, one every `everyS` from `fromS`, while the backfill runs. */
    webhooks?: { fromS: number; everyS: number; count: number };
  };
  cacheTtlMs: number;
  warmupS: number;
  windowS: number;
  /** The whole run (seeding, queueing, warm-up, window) gives up after this. */
  timeoutS: number;
  /** The workers' heap flags (default: docker-compose.yml's, workers.ts). */
  heapFlags?: readonly string[] | undefined;
  /**
   * Outcomes of the same tenant put in the store before the run (other accounts, other buyers): the
   * table as a long backfill leaves it, to see whether the store's cost per account grows with it.
   */
  preloadOutcomes?: number | undefined;
}

export type BackfillBenchResult = WindowFacts & {
  crm: 'hubspot' | 'salesforce';
  workers: number;
  concurrencyPerWorker: number;
  accounts: number;
  buyers: number;
  latencyMs: number;
  limits: Record<string, number>;
  database: string;
  queueSeconds: number;
  warmupS: number;
  windowSeconds: number;
  /** The backlog emptied before the window's end: the window ends there. */
  drained: boolean;
  /** The machine's busy CPU time over the window per finished account, and the pace its cores allow. */
  machineCpu: ReturnType<typeof cpuCeiling>;
  redis: { commands: number; byCommand: Record<string, number>; private: boolean; pollCommands: number };
  /**
   * Buyer Intelligence calls from the queueing to the drained backlog, per account of the run (null when
   * it did not drain in the window): unlike the window's, the same accounts whatever the workers' pace.
   */
  wholeRun: { calls: number; searches: number; perAccount: number; searchesPerAccount: number } | null;
  workerSamples: {
    ready: WorkerSample;
    start: WorkerSample;
    end: WorkerSample;
    peakRssMb: number;
    /** Heap reachable after a full collection at the window's end, accounts in flight. */
    liveHeapMb: number;
  }[];
  cache: Record<string, number> | null;
  signalPlan: SignalPlan;
  /** The store's cost over the window (bench/pg-cost.ts); null on PGlite. */
  postgres: {
    preloadedOutcomes: number;
    statements: number;
    statementsPerAccount: number | null;
    cpuMs: number | null;
    cpuMsPerAccount: number | null;
    backends: number;
    /** Over the whole run (queueing and warm-up included), by kind (bench/pg-cost.ts). */
    statementsByKind: Record<string, number>;
  } | null;
  /** A few distinct reasons of the run's failed jobs. */
  failedReasons: string[];
  heapFlags: readonly string[];
  /** A customer run's accounts with an outcome, per second from its start (customer.ts). */
  progress?: { s: number; outcomes: number; answered: number; limited: number }[];
  /** Each webhook account's wait, queued → job finished (ms), while the backfill ran. */
  webhookMs?: number[];
};

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function runBackfillBench(o: BackfillBenchOptions): Promise<BackfillBenchResult> {
  const deadline = Date.now() + o.timeoutS * 1000;
  // The provider in a process of its own, as its edge is (provider-process.ts says why).
  const bi = await startProviderProcess(
    {
      dataset: {
        seed: o.dataset.seed,
        now: o.dataset.now.toISOString(),
        buyerCount: o.dataset.buyers.length,
      },
      rateLimit: {
        ratePerSecond: o.buyerIntelPerMinute / 60,
        burst: o.buyerIntelBurst ?? Math.max(1, Math.floor(o.buyerIntelPerMinute / 60)),
      },
      faults: { latencyMs: o.latencyMs },
    },
    { buyers: o.dataset.buyers.length, firstBuyerId: o.dataset.buyers[0]?.id },
  );
  const crm = await crmSandbox(o.crm, o.latencyMs).catch(async (err) => {
    await bi.close();
    throw err;
  });
  const db = await benchDatabase(o.postgresUrl).catch(async (err) => {
    await Promise.all([bi.close(), crm.close()]);
    throw err;
  });
  const prefix = `bis-bench-${randomUUID().slice(0, 8)}`;
  const biPerSecond = o.buyerIntelPerMinute / 60;
  const settings = sandboxSettings(
    { buyerIntel: bi, ...crm.endpoints },
    { redisUrl: o.redisUrl, prefix },
    {
      // One rate shared by every worker through Redis (src/buyer-intel/shared-rate.ts): the service's
      // defaults where the customer runs, the emulator's own rate for the lifted-limit probe.
      buyerIntel: o.customer
        ? { ratePerSecond: SERVICE_PROVIDER_DEFAULTS.ratePerSecond, burst: SERVICE_PROVIDER_DEFAULTS.burst }
        : { ratePerSecond: Math.floor(biPerSecond), burst: Math.floor(biPerSecond) },
      // The service's linger (WRITE_BATCH_WAIT_MS); the jobs per worker as told (default: the service's).
      worker: {
        concurrency: o.concurrency,
        writeBatchWaitMs: SERVICE_WORKER_DEFAULTS.writeBatchWaitMs,
        // BENCH_BACKFILL_BATCH_WAIT_MS: another bound, to see what it buys (not the service's default).
        backfillBatchWaitMs: Number(
          process.env.BENCH_BACKFILL_BATCH_WAIT_MS ?? SERVICE_WORKER_DEFAULTS.backfillBatchWaitMs,
        ),
      },
    },
  );
  settings.database = db.settings;
  settings.buyerIntel.cacheTtlMs = o.cacheTtlMs;
  const hubspotConfig = settings.crms.hubspot as HubSpotConfig | undefined;
  if (hubspotConfig) hubspotConfig.app.callsPer10s = HUBSPOT_CAPACITY.requestsPer10s;

  const service = createService(settings);
  const redis = new Redis(o.redisUrl, { maxRetriesPerRequest: null });
  const workers: WorkerHandle[] = [];
  try {
    const companies = benchAccounts(o.dataset, o.accounts, o.buyers);
    for (const c of companies) crm.seed(c);
    const connector = service.connector(o.crm, crm.tenant);
    await connector.ensureFields(fieldDefinitions(DEFAULT_MAPPING));
    await service.store.open();
    const preloaded =
      o.preloadOutcomes && db.server
        ? await preloadOutcomes(db.settings, { crm: o.crm, tenant: crm.tenant }, o.preloadOutcomes)
        : 0;

    // Jobs hold up to BACKFILL_ACCOUNTS_PER_JOB accounts: the backlog is drained when none is left to run.
    const unfinishedJobs = async () => {
      let n = 0;
      for (const q of [service.queue, service.backfillQueue])
        for (const c of Object.values(await q.getJobCounts('waiting', 'prioritized', 'delayed', 'active')))
          n += c;
      return n;
    };
    // What one poll of the queue's counts costs in Redis, measured while nothing else runs on it.
    const pollsBefore = await commandStats(o.redisUrl);
    for (let i = 0; i < 5; i++) await unfinishedJobs();
    const pollCost = commandDelta(pollsBefore, await commandStats(o.redisUrl)).total / 5;

    for (let i = 0; i < o.workers; i++) workers.push(await startWorkerProcess(settings, o.heapFlags));
    const ready = workers.map((w) => w.ready);

    // Admitted calls (429s apart), of one operation or all.
    const biCallsOf = (c: CallCounts, op?: string) => {
      const of = op ? { [op]: c[op] ?? {} } : c;
      return totalCalls(of) - totalCalls(of, '429');
    };
    const biBeforeRun = await bi.calls();
    // Signals as the CLI's backfill plans them: the org-wide feed or one call per new buyer.
    const signalPlan = await service.planSignals(o.accounts);
    await Promise.all(ready);
    const whole = o.customer ? await windowStart() : undefined;
    const queueStarted = performance.now();
    const state = await runBackfill({
      connector,
      queue: service.backfillQueue,
      redis,
      prefix,
      filters: [],
      attempts: settings.worker.attempts,
      accountsPerJob: settings.worker.backfillAccountsPerJob,
      store: service.store,
      expected: o.accounts,
      actor: 'bench',
      signalPlan,
    });
    const queueSeconds = (performance.now() - queueStarted) / 1000;
    if (!whole) await sleep(o.warmupS * 1000);

    // The window: from here after a warm-up, or from before the first account was queued.
    async function windowStart() {
      // With BENCH_REDIS_MONITOR, the same window as the counts: a customer run's queueing included.
      const monitorFile = process.env.BENCH_REDIS_MONITOR;
      const monitor = monitorFile ? await redisMonitor(o.redisUrl, monitorFile) : undefined;
      crm.stats.reset();
      const biBeforeWindow = await bi.calls();
      await bi.resetCalls();
      return {
        biBeforeWindow,
        start: await Promise.all(workers.map((w) => w.sample())),
        pgBefore: db.server ? await backendCpu(db.server.url, db.server.database) : null,
        redisBefore: await commandStats(o.redisUrl),
        busyBefore: busyCpuMs(),
        t0: Date.now(),
        monitor,
      };
    }
    const { start, pgBefore, redisBefore, busyBefore, t0, biBeforeWindow, monitor } =
      whole ?? (await windowStart());
    let polls = 0;
    let drained = false;
    // Per second of a customer run: the accounts with an outcome (per account, from the store).
    const progress: { s: number; outcomes: number; answered: number; limited: number }[] = [];
    const storm = o.customer?.storm;
    let stormOn = false;
    const hooks = o.customer?.webhooks
      ? webhookAccounts(o.customer.webhooks, {
          queue: service.queue,
          crm: o.crm,
          tenant: crm.tenant,
          attempts: settings.worker.attempts,
          seed: (a) => crm.seed(a),
          names: benchAccounts(o.dataset, o.customer.webhooks.count, o.customer.webhooks.count, 91),
        })
      : undefined;
    const windowMs = whole ? o.timeoutS * 1000 : o.windowS * 1000;
    while (Date.now() - t0 < windowMs) {
      if (Date.now() > deadline) throw new Error(`run over its time limit of ${o.timeoutS} s`);
      await sleep(1000);
      polls++;
      const s = (Date.now() - t0) / 1000;
      if (storm) {
        const on = s >= storm.fromS && s < storm.fromS + storm.seconds;
        if (on !== stormOn) await bi.setFaults({ rateLimitRate: on ? storm.share : 0 });
        stormOn = on;
      }
      if (hooks) await hooks.tick(s);
      if (whole && state.storeRunId) {
        const c = await (await service.store.open()).runs.outcomeCounts(state.storeRunId);
        const outcomes = c.enriched + c.needs_review + c.no_match + c.error;
        const answers = await bi.calls();
        progress.push({
          s: +s.toFixed(1),
          outcomes,
          answered: totalCalls(answers, '200'),
          limited: totalCalls(answers, '429'),
        });
      }
      if ((await unfinishedJobs()) === 0) {
        drained = true;
        break;
      }
    }
    const t1 = Date.now();
    const busy = busyCpuMs() - busyBefore;
    const redisAfter = await commandStats(o.redisUrl);
    const end = await Promise.all(workers.map((w) => w.sample()));
    const pgAfter = db.server ? await backendCpu(db.server.url, db.server.database) : null;
    const crmCalls = crm.stats.toJSON();
    const biCalls = await bi.calls();
    // After the window's counts: the collection pauses the worker, with its accounts still in flight.
    const live = await Promise.all(workers.map((w) => w.liveHeapMb()));
    // A worker that cannot stop in time (its accounts in flight on a loaded machine) is killed; its
    // figures are the window's end sample.
    const stopped = await Promise.all(
      workers
        .splice(0)
        .map((w, i) => w.stop().catch((): Stopped => ({ ...(end[i] as WorkerSample), cache: null }))),
    );

    const redisDelta = commandDelta(redisBefore, redisAfter);
    const runCalls = (op?: string) =>
      biCallsOf(biBeforeWindow, op) - biCallsOf(biBeforeRun, op) + biCallsOf(biCalls, op);
    const pollCommands = Math.round(polls * pollCost);
    const facts = await windowFacts({
      queues: [service.queue, service.backfillQueue],
      crm: o.crm,
      from: t0,
      to: t1,
      crmCalls,
      biCalls,
      buyerIntelPerMinute: o.buyerIntelPerMinute,
      // The bench's own polls of the queue's counts are taken out.
      redisCommands: Math.max(0, redisDelta.total - pollCommands),
      workerCpuMs: end.reduce((s, e, i) => s + e.cpuMs - (start[i]?.cpuMs ?? 0), 0),
    });
    monitor?.finish(facts.finished);
    const failedReasons = [
      ...new Set(
        (await Promise.all([service.queue, service.backfillQueue].map((q) => q.getJobs(['failed'], 0, 50))))
          .flat()
          .map((j) => j.failedReason.slice(0, 200)),
      ),
    ].slice(0, 5);
    const kinds: Record<string, number> = {};
    for (const s of stopped)
      for (const [k, v] of Object.entries(s.statementsByKind ?? {})) kinds[k] = (kinds[k] ?? 0) + v;
    const cacheTotals: Record<string, number> = {};
    for (const s of stopped)
      for (const [k, v] of Object.entries(s.cache ?? {})) cacheTotals[k] = (cacheTotals[k] ?? 0) + v;
    return {
      crm: o.crm,
      workers: o.workers,
      concurrencyPerWorker: o.concurrency,
      accounts: o.accounts,
      buyers: o.buyers,
      latencyMs: o.latencyMs,
      limits: { ...crm.limits, buyerIntelPerMinute: o.buyerIntelPerMinute },
      database: db.engine,
      queueSeconds: +queueSeconds.toFixed(1),
      warmupS: o.warmupS,
      windowSeconds: +((t1 - t0) / 1000).toFixed(1),
      drained,
      ...facts,
      wholeRun: drained
        ? {
            calls: runCalls(),
            searches: runCalls('searchBuyers'),
            perAccount: +(runCalls() / Math.max(1, o.accounts - facts.failedInRun)).toFixed(3),
            searchesPerAccount: +(
              runCalls('searchBuyers') / Math.max(1, o.accounts - facts.failedInRun)
            ).toFixed(3),
          }
        : null,
      machineCpu: cpuCeiling(busy, facts.finished),
      redis: {
        commands: redisDelta.total,
        byCommand: redisDelta.byCommand,
        private: false,
        pollCommands,
      },
      workerSamples: stopped.map((s, i) => ({
        ready: ready[i] as WorkerSample,
        start: start[i] as WorkerSample,
        end: end[i] as WorkerSample,
        peakRssMb: s.peakRssMb,
        liveHeapMb: live[i] ?? 0,
      })),
      cache: o.cacheTtlMs > 0 ? cacheTotals : null,
      signalPlan,
      postgres: db.server
        ? postgresCost(
            facts.finished,
            preloaded,
            end.reduce((s, e, i) => s + e.statements - (start[i]?.statements ?? 0), 0),
            pgBefore && pgAfter ? backendCpuDelta(pgBefore, pgAfter) : null,
            kinds,
          )
        : null,
      failedReasons,
      heapFlags: o.heapFlags ?? workerHeapFlags(),
      ...(whole ? { progress } : {}),
      ...(hooks ? { webhookMs: await hooks.finish() } : {}),
    };
  } finally {
    await Promise.all(workers.map((w) => w.stop().catch(() => undefined)));
    redis.disconnect();
    await service.close().catch(() => undefined);
    await Promise.all([bi.close(), crm.close()]);
    await deletePrefix(o.redisUrl, prefix);
    await db.drop().catch(() => undefined);
  }
}

function postgresCost(
  finished: number,
  preloadedOutcomes: number,
  statements: number,
  cpu: { cpuMs: number; backends: number } | null,
  statementsByKind: Record<string, number>,
): NonNullable<BackfillBenchResult['postgres']> {
  const per = (n: number, digits: number) => (finished ? +(n / finished).toFixed(digits) : null);
  return {
    preloadedOutcomes,
    statements,
    statementsPerAccount: per(statements, 3),
    cpuMs: cpu?.cpuMs ?? null,
    cpuMsPerAccount: cpu ? per(cpu.cpuMs, 2) : null,
    backends: cpu?.backends ?? 0,
    statementsByKind,
  };
}
