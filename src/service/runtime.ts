// Wires one running service from its settings: the Buyer Intelligence client, the CRM connector, the
// cross-job write batchers, the resolver, the enrich queue and worker, and the HTTP app. Used by the
// CLI roles, the demo and the end-to-end tests, so all three run the same code.
import { once } from 'node:events';
import type { Queue, Worker } from 'bullmq';
import type { Router } from 'express';
import type { Redis } from 'ioredis';
import { redisCallBudget } from '../../connectors/call-budget.ts';
import { createConnector, createEventHandler } from '../../connectors/registry.ts';
import { subscribeAccountChanges } from '../../connectors/salesforce/change-events.ts';
import {
  createSalesforceConnector,
  type SalesforceConnector,
  type SalesforceConnectorOptions,
} from '../../connectors/salesforce/connector.ts';
import { id15 } from '../../connectors/salesforce/outbound-messages.ts';
import type {
  AccountUpdate,
  CrmConnector,
  CrmKind,
  NoteDraft,
  NoteResult,
  UpdateResult,
} from '../../connectors/types.ts';
import { Batcher } from '../../queues/batcher.ts';
import {
  createEnrichQueue,
  type EnrichJob,
  type EnrichJobData,
  jobForEvent,
} from '../../queues/enrich-queue.ts';
import { startEnrichWorker, type WorkerLog } from '../../queues/enrich-worker.ts';
import {
  createMaintenanceQueue,
  type MaintenanceData,
  type MaintenanceHandler,
  startMaintenanceWorker,
  upsertSchedule,
} from '../../queues/maintenance.ts';
import { createRedis } from '../../queues/redis.ts';
import { adminRouter } from '../admin/router.ts';
import { refreshActions } from '../api/actions.ts';
import { hubspotInstallRouter } from '../api/hubspot-install.ts';
import { apiRouter } from '../api/router.ts';
import { cachedBuyerIntel } from '../buyer-intel/cache.ts';
import { BuyerIntelClient } from '../buyer-intel/client.ts';
import {
  createDigestQueue,
  type DigestDeps,
  type DigestKind,
  type DigestRunResult,
  registerDigestSchedulers,
  runDigestNow,
  startDigestWorker,
} from '../digest/schedule.ts';
import type { DigestSettings } from '../digest/settings.ts';
import { EnrichmentHistory } from '../enrich/history.ts';
import {
  type EnrichResult,
  enrichAccount,
  type PipelineDeps,
  type SignalSettings,
} from '../enrich/pipeline.ts';
import { PROVENANCE_FIELDS } from '../map/field-definitions.ts';
import type { Mapping } from '../map/mapping-schema.ts';
import { createLogger, type Logger, workerLog } from '../observe/logger.ts';
import { Metrics } from '../observe/metrics.ts';
import { reenrichSweep } from '../reenrich/sweep.ts';
import { Resolver, redisMatchCache } from '../resolve/resolver.ts';
import { redisAccountLock } from '../signals/account-lock.ts';
import { createSignalQueue, enqueueInto, startSignalWorker } from '../signals/queue.ts';
import { processRowEvent, type RealtimeDeps } from '../signals/realtime.ts';
import type { TokenCipher } from '../tenants/cipher.ts';
import { tenantConnectorFactory } from '../tenants/connectors.ts';
import { TenantStore, tenantIdOf } from '../tenants/store.ts';
import { buyerIntelWebhookRouter } from '../webhooks/buyer-intel.ts';
import { webhookReceiver } from '../webhooks/receiver.ts';
import { Ledgers } from '../write/ledgers.ts';
import { createHttpApp } from './http-app.ts';
import { listen } from './listen.ts';

export interface ServiceSettings {
  buyerIntel: {
    baseUrl: string;
    token: string;
    timeoutMs: number;
    maxAttempts: number;
    ratePerSecond: number;
    burst: number;
    /** The longest Retry-After a call waits out itself; longer ones park the queue instead. */
    maxRetryAfterMs?: number;
    /** Reuse Buyer Intelligence reads this long (ms); 0 only coalesces concurrent identical calls. */
    cacheTtlMs?: number;
    /** The provider's row webhooks (Standard Webhooks): keys to verify them, bridges to take. */
    webhooks?: { secrets: string[]; publicKeys: string[]; bridgeIds?: string[] | undefined };
  };
  redisUrl: string;
  /** Namespaces every key and queue of this install in Redis. */
  prefix: string;
  hubspot?: {
    /** HubSpot's per-10-second call limit for this app, shared by every worker (none: not enforced). */
    callsPer10s?: number | undefined;
    /** Deadline per HubSpot call. Default 30 s. */
    timeoutMs?: number | undefined;
    accessToken: string;
    portalId: string;
    clientSecret: string;
    appId?: string | undefined;
    basePath: string;
  };
  salesforce?: Pick<
    SalesforceConnectorOptions,
    | 'instanceUrl'
    | 'loginUrl'
    | 'accessToken'
    | 'refreshToken'
    | 'clientId'
    | 'clientSecret'
    | 'apiVersion'
    | 'orgId'
    | 'notes'
  > & {
    /** How we learn about new Accounts: Outbound Messages to /webhooks/salesforce, CDC streaming, or both. */
    events?: ('outbound' | 'cdc')[];
  };
  publicBaseUrl?: string | undefined;
  /** Our HTTP API (/api): API keys, and the Salesforce quick action's signing secrets. */
  api?: { apiKeys: string[]; salesforceSecrets: string[] };
  /**
   * CRM connections kept in Redis (several portals and orgs), credentials encrypted with `cipher`;
   * the apps' own credentials (to verify webhooks and refresh OAuth tokens) come from the config.
   */
  tenants?: {
    cipher: TokenCipher;
    hubspotApp?: {
      clientId?: string | undefined;
      clientSecret: string;
      appId?: string | undefined;
      basePath: string;
      callsPer10s?: number | undefined;
      /** HubSpot's consent page for the install flow (the emulator's in tests). */
      authorizeUrl?: string | undefined;
    };
    salesforceApp?: Pick<
      SalesforceConnectorOptions,
      'clientId' | 'clientSecret' | 'loginUrl' | 'apiVersion' | 'notes'
    >;
  };
  /** Signal digests (per account, org-wide); a kind without its schedule is off. */
  digest?: DigestSettings;
  /** Scheduled work (cron pattern and IANA time zone); absent = not scheduled. */
  schedules?: { reenrich?: { pattern: string; tz: string } };
  mapping: Mapping;
  match: { acceptThreshold: number; ambiguityMargin: number };
  signals: SignalSettings;
  worker: { concurrency: number; attempts: number; writeBatchWaitMs: number };
  log?: WorkerLog;
  /** pino logger for HTTP requests and jobs (request id / job id on every line). Default: silent. */
  logger?: Logger;
  /** Basic auth for /admin (Bull Board); absent = /admin is not served. */
  admin?: { username: string; password: string };
}

export interface Service {
  queue: ReturnType<typeof createEnrichQueue>;
  deps: PipelineDeps;
  history: EnrichmentHistory;
  metrics: Metrics;
  connector(crm: CrmKind, tenant: string): CrmConnector;
  /** Enrich one account now, in this process (the CLI's `enrich`, dry runs). */
  enrich(
    ref: { crm: CrmKind; tenant: string; accountId: string },
    options?: { dryRun?: boolean },
  ): Promise<EnrichResult>;
  startWorker(): Worker<EnrichJobData, EnrichResult>;
  /** Creates, updates or removes the configured job schedulers (idempotent: every worker may call it). */
  upsertSchedules(): Promise<void>;
  maintenanceQueue: Queue<MaintenanceData>;
  startHttp(port: number, host?: string): Promise<{ url: string; close(): Promise<void> }>;
  /** Adds the CRM connections stored in Redis (tenants), drops removed ones. */
  loadTenants(): Promise<{ loaded: string[]; unreadable: string[] }>;
  /** Reloads the stored tenants every `intervalMs`, so a tenant added by the CLI is served soon. */
  watchTenants(intervalMs: number): void;
  /** Runs one digest now, in this process (`digest --now`). */
  digest(kind: DigestKind): Promise<DigestRunResult>;
  /** Subscribes to Salesforce Change Data Capture when configured; CREATE events become enrich jobs. */
  startChangeEvents(): Promise<void>;
  /** Stops taking work, waits for active jobs, flushes pending writes, closes connections. */
  close(): Promise<void>;
}

export function createService(settings: ServiceSettings): Service {
  const logger = settings.logger ?? createLogger({ level: 'silent' });
  const log = settings.log ?? workerLog(logger);
  const redisError = (role: string) => (err: Error) =>
    logger.warn({ role, reason: err.message }, 'Redis connection error; retrying');
  const workerRedis: Redis = createRedis(settings.redisUrl, 'worker', redisError('worker'));
  const producerRedis: Redis = createRedis(settings.redisUrl, 'producer', redisError('producer'));
  const queue = createEnrichQueue(producerRedis, { prefix: settings.prefix });
  const maintenanceQueue = createMaintenanceQueue(producerRedis, { prefix: settings.prefix });
  const digestQueue = createDigestQueue(producerRedis, { prefix: settings.prefix });
  const signalQueue = createSignalQueue(producerRedis, { prefix: settings.prefix });
  const signalWorkerQueue = createSignalQueue(workerRedis, { prefix: settings.prefix });
  const metrics = new Metrics(() => [queue, maintenanceQueue, digestQueue, signalQueue]);
  // The worker parks the queue on a 429 through its own (blocking-safe) connection.
  const workerQueue = createEnrichQueue(workerRedis, { prefix: settings.prefix });
  // BullMQ reports its connection errors as 'error' events: one log line per queue every 10 s at most.
  for (const q of [queue, workerQueue, maintenanceQueue, digestQueue, signalQueue, signalWorkerQueue]) {
    let last = 0;
    q.on('error', (err: Error) => {
      if (Date.now() - last < 10_000) return;
      last = Date.now();
      logger.warn({ queue: q.name, reason: err.message }, 'queue connection error; retrying');
    });
  }

  const buyerIntelClient = new BuyerIntelClient({
    baseUrl: settings.buyerIntel.baseUrl,
    token: settings.buyerIntel.token,
    timeoutMs: settings.buyerIntel.timeoutMs,
    retry: {
      maxAttempts: settings.buyerIntel.maxAttempts,
      ...(settings.buyerIntel.maxRetryAfterMs === undefined
        ? {}
        : { maxRetryAfterMs: settings.buyerIntel.maxRetryAfterMs }),
    },
    rateLimit: { ratePerSecond: settings.buyerIntel.ratePerSecond, burst: settings.buyerIntel.burst },
    onAttempt: (e) => metrics.recordCall('buyer_intel', e.operation, e.outcome, e.durationMs),
  }); // Enrichment reads go through a cache: concurrent identical calls coalesce (across workers too, via
  // Redis), and results are reused for cacheTtlMs — many accounts share one buyer.
  const buyerIntel = cachedBuyerIntel(buyerIntelClient, {
    ttlMs: settings.buyerIntel.cacheTtlMs ?? 0,
    maxEntries: 10_000,
    redis: { client: producerRedis, prefix: `${settings.prefix}:bi-cache:` },
  });

  /** HubSpot counts calls per app and portal over a rolling 10 s: one budget per portal in Redis. */
  const hubspotBudget = (portalId: string, callsPer10s: number | undefined) =>
    callsPer10s
      ? {
          budget: redisCallBudget({
            redis: workerRedis,
            key: `${settings.prefix}:budget:hubspot:${portalId}`,
            limit: callsPer10s,
            windowMs: 10_000,
          }),
        }
      : {};

  // One connection per portal / org; jobs name theirs by `tenant` (Salesforce ids in their 15-char form).
  const tenantKey = (crm: CrmKind, tenant: string) =>
    `${crm}:${crm === 'salesforce' ? id15(tenant) : tenant}`;
  const connectors = new Map<string, CrmConnector>();
  if (settings.hubspot) {
    connectors.set(
      tenantKey('hubspot', settings.hubspot.portalId),
      createConnector('hubspot', {
        accessToken: settings.hubspot.accessToken,
        portalId: settings.hubspot.portalId,
        basePath: settings.hubspot.basePath,
        ...(settings.hubspot.timeoutMs ? { fetchTimeoutMs: settings.hubspot.timeoutMs } : {}),
        ...hubspotBudget(settings.hubspot.portalId, settings.hubspot.callsPer10s),
        onCall: (e) => metrics.recordCall('hubspot', e.operation, e.status, e.durationMs),
      }),
    );
  }
  let salesforceConnector: SalesforceConnector | undefined;
  if (settings.salesforce) {
    const { events: _events, ...options } = settings.salesforce;
    salesforceConnector = createSalesforceConnector({
      ...options,
      onCall: (e) => metrics.recordCall('salesforce', e.operation, e.status, e.durationMs),
    });
    connectors.set(tenantKey('salesforce', settings.salesforce.orgId), salesforceConnector);
  }
  if (!connectors.size && !settings.tenants)
    throw new Error('no CRM connection configured: give HubSpot or Salesforce settings, or tenants');
  const configured = new Set(connectors.keys());
  const tenantStore = settings.tenants
    ? new TenantStore(workerRedis, settings.prefix, settings.tenants.cipher)
    : undefined;

  const tenantConnector =
    settings.tenants && tenantStore
      ? tenantConnectorFactory({
          apps: settings.tenants,
          store: tenantStore,
          redis: workerRedis,
          hubspotBudget,
          recordCall: (api, e) => metrics.recordCall(api, e.operation, e.status, e.durationMs),
        })
      : undefined;

  /** Adds the tenants stored in Redis, drops removed ones; configured (environment) tenants stay. */
  async function loadTenants(): Promise<{ loaded: string[]; unreadable: string[] }> {
    if (!tenantStore) return { loaded: [], unreadable: [] };
    const { tenants, unreadable } = await tenantStore.list();
    const seen = new Set<string>();
    for (const record of tenants) {
      const key = tenantKey(record.crm, tenantIdOf(record));
      seen.add(key);
      if (configured.has(key) || connectors.has(key)) continue;
      if (tenantConnector) connectors.set(key, await tenantConnector(record));
    }
    for (const key of [...connectors.keys()])
      if (!configured.has(key) && !seen.has(key)) connectors.delete(key);
    for (const u of unreadable)
      log.warn('a stored tenant cannot be read', { tenant: u.field, reason: u.reason });
    return { loaded: [...seen], unreadable: unreadable.map((u) => u.field) };
  }
  let tenantTimer: NodeJS.Timeout | undefined;
  const connector = (crm: CrmKind, tenant: string): CrmConnector => {
    const c = connectors.get(tenantKey(crm, tenant));
    if (!c) throw new Error(`no ${crm} connection for ${tenant}`);
    return c;
  };

  // Writes from concurrent jobs share calls: up to a connector's batch size per call.
  const batchers = new Map<string, Batcher<never, unknown>>();
  function batcherFor<I, O>(
    kind: string,
    crm: CrmKind,
    tenant: string,
    make: (c: CrmConnector) => Batcher<I, O>,
  ): Batcher<I, O> {
    const key = `${kind}:${crm}:${tenant}`;
    let batcher = batchers.get(key) as Batcher<I, O> | undefined;
    if (!batcher) {
      batcher = make(connector(crm, tenant));
      batchers.set(key, batcher as unknown as Batcher<never, unknown>);
    }
    return batcher;
  }
  const writeAccount = (crm: CrmKind, tenant: string, update: AccountUpdate): Promise<UpdateResult> =>
    batcherFor(
      'fields',
      crm,
      tenant,
      (c) =>
        new Batcher<AccountUpdate, UpdateResult>({
          maxBatch: c.maxUpdateBatch,
          maxWaitMs: settings.worker.writeBatchWaitMs,
          send: (items) => c.updateAccounts(items),
        }),
    ).submit(update);
  const createNote = (crm: CrmKind, tenant: string, note: NoteDraft): Promise<NoteResult> =>
    batcherFor(
      'notes',
      crm,
      tenant,
      (c) =>
        new Batcher<NoteDraft, NoteResult>({
          maxBatch: c.maxNoteBatch,
          maxWaitMs: settings.worker.writeBatchWaitMs,
          send: (items) => c.createNotes(items),
        }),
    ).submit(note);

  const ledgers = new Ledgers(workerRedis, `${settings.prefix}:ledger`);
  const resolver = new Resolver({
    client: buyerIntel,
    cache: redisMatchCache(workerRedis, `${settings.prefix}:match:`),
    options: settings.match,
  });
  const deps: PipelineDeps = {
    buyerIntel,
    connectorFor: connector,
    resolver,
    mapping: settings.mapping,
    ledgers,
    writeAccount,
    createNote,
    signals: settings.signals,
  };

  const history = new EnrichmentHistory(workerRedis, settings.prefix);
  const maintenanceHandlers: Record<string, MaintenanceHandler> = {
    'reenrich-sweep': (job) =>
      reenrichSweep({ ledgers, queue, attempts: settings.worker.attempts, runId: String(job.id) }),
  };
  const digestDeps: DigestDeps = {
    buyerIntel: buyerIntelClient,
    connectorFor: connector,
    ledgers,
    redis: workerRedis,
    prefix: settings.prefix,
    settings: settings.digest ?? {},
    createNote,
    log,
  };
  const workers: Worker[] = [];
  const subscriptions: { close(): Promise<void> }[] = [];
  const servers: { close(): Promise<void> }[] = [];

  return {
    queue,
    maintenanceQueue,
    deps,
    history,
    metrics,
    connector,
    enrich: (ref, options) => enrichAccount(deps, ref, options),
    digest: (kind) => runDigestNow(digestDeps, kind),
    startWorker() {
      const worker = startEnrichWorker<EnrichResult>({
        connection: workerRedis,
        queue: workerQueue,
        prefix: settings.prefix,
        concurrency: settings.worker.concurrency,
        process: async (data, job) => {
          const result = await enrichAccount(deps, data);
          metrics.recordResult(result);
          await history.record(data, { jobId: job.id, result });
          await job.updateProgress(100);
          return result;
        },
        onFinalFailure: async (data, reason) => {
          await history.record(data, { error: reason }).catch(() => undefined);
          // Mark the account so a person sees why it was not enriched.
          await writeAccount(data.crm, data.tenant, {
            accountId: data.accountId,
            fields: {
              [PROVENANCE_FIELDS.status]: 'error',
              [PROVENANCE_FIELDS.matchReason]: reason.slice(0, 2000),
            },
          });
        },
        exclusive: {
          redis: workerRedis,
          keyOf: (data) => `${settings.prefix}:lock:${data.crm}:${data.tenant}:${data.accountId}`,
          ttlMs: 120_000,
          retryDelayMs: 1_000,
        },
        log,
        onRateLimit: (delayMs) => {
          metrics.rateLimitWaits.inc({ queue: queue.name });
          metrics.rateLimitWaitSeconds.inc({ queue: queue.name }, delayMs / 1000);
        },
      });
      const timeJob =
        (outcome: string) =>
        (job: { processedOn?: number | undefined; finishedOn?: number | undefined } | undefined) => {
          if (job?.processedOn && job.finishedOn)
            metrics.jobDuration.observe(
              { queue: queue.name, outcome },
              (job.finishedOn - job.processedOn) / 1000,
            );
        };
      worker.on('completed', timeJob('completed'));
      worker.on('completed', (job, result) =>
        log.info('account enriched', {
          jobId: job.id,
          crm: job.data.crm,
          tenant: job.data.tenant,
          accountId: job.data.accountId,
          trigger: job.data.trigger,
          status: result.status,
          fieldsWritten: Object.keys(result.written).length,
          notesCreated: result.notes.created.length,
        }),
      );
      worker.on('failed', timeJob('failed'));
      workers.push(worker);
      const biWebhooks = settings.buyerIntel.webhooks;
      if (biWebhooks) {
        const signalDeps: RealtimeDeps = {
          buyerIntel: buyerIntelClient,
          connectorFor: connector,
          ledgers,
          createNote,
          // The enrich worker's own per-account lock: a real-time note and an enrichment never race.
          lock: redisAccountLock({
            redis: workerRedis,
            keyOf: (a) => `${settings.prefix}:lock:${a.crm}:${a.tenant}:${a.accountId}`,
          }),
          ...(biWebhooks.bridgeIds?.length ? { bridgeIds: biWebhooks.bridgeIds } : {}),
        };
        workers.push(
          startSignalWorker({
            connection: workerRedis,
            queue: signalWorkerQueue,
            prefix: settings.prefix,
            concurrency: settings.worker.concurrency,
            process: (data) => processRowEvent(signalDeps, data),
            log,
          }),
        );
      }
      if (settings.digest?.perAccount || settings.digest?.orgWide)
        workers.push(
          startDigestWorker({ connection: workerRedis, deps: digestDeps, prefix: settings.prefix }),
        );
      workers.push(
        startMaintenanceWorker({
          connection: workerRedis,
          prefix: settings.prefix,
          handlers: maintenanceHandlers,
          log,
        }),
      );
      return worker;
    },
    async upsertSchedules() {
      // An unconfigured digest kind has its scheduler removed, so switching one off takes effect.
      await registerDigestSchedulers(digestQueue, settings.digest ?? {});
      const reenrich = settings.schedules?.reenrich;
      if (reenrich)
        await upsertSchedule(maintenanceQueue, { id: 'reenrich', name: 'reenrich-sweep', ...reenrich });
      else await maintenanceQueue.removeJobScheduler('reenrich');
    },
    async startHttp(port, host) {
      // The producer connection fails fast instead of queueing commands; give it a moment to connect
      // so the first requests after a start are not refused (a Redis that stays down: serve anyway,
      // /readyz says so and deliveries get a retry-later answer).
      if (producerRedis.status !== 'ready')
        await Promise.race([
          once(producerRedis, 'ready'),
          new Promise((r) => setTimeout(r, 5_000).unref()),
        ]).catch(() => undefined);
      const { hubspot, salesforce } = settings;
      const hubspotApp = hubspot ?? settings.tenants?.hubspotApp;
      const receiver = {
        publicBaseUrl: settings.publicBaseUrl,
        attempts: settings.worker.attempts,
        enqueue: (jobs: EnrichJob[]) => queue.addBulk(jobs),
      };
      const webhooks: Record<string, Router> = {};
      const biWebhooks = settings.buyerIntel.webhooks;
      if (biWebhooks && (biWebhooks.secrets.length || biWebhooks.publicKeys.length))
        webhooks['buyer-intel'] = buyerIntelWebhookRouter({
          verify: { secrets: biWebhooks.secrets, publicKeys: biWebhooks.publicKeys },
          redis: producerRedis,
          prefix: settings.prefix,
          enqueue: enqueueInto(signalQueue),
          attempts: settings.worker.attempts,
          log,
        });
      if (hubspotApp)
        webhooks.hubspot = webhookReceiver(
          createEventHandler('hubspot', {
            clientSecret: hubspotApp.clientSecret,
            isKnownPortal: (portalId) => connectors.has(tenantKey('hubspot', portalId)),
            appId: hubspotApp.appId,
          }),
          receiver,
        );
      if (salesforce || settings.tenants?.salesforceApp)
        webhooks.salesforce = webhookReceiver(
          createEventHandler('salesforce', {
            isKnownOrg: (org) => connectors.has(tenantKey('salesforce', org)),
          }),
          receiver,
        );
      const tenantsOf = (crm: CrmKind) =>
        [...connectors.keys()].filter((k) => k.startsWith(`${crm}:`)).map((k) => k.slice(crm.length + 1));
      const apiHistory = new EnrichmentHistory(producerRedis, settings.prefix);
      const actionOptions = {
        queue,
        redis: producerRedis,
        prefix: settings.prefix,
        history: apiHistory,
        connectorFor: connector,
        attempts: settings.worker.attempts,
      };
      const api = apiRouter({
        ...actionOptions,
        auth: {
          apiKeys: settings.api?.apiKeys ?? [],
          hubspotClientSecret: hubspotApp?.clientSecret,
          salesforceSecrets: settings.api?.salesforceSecrets ?? [],
          redis: producerRedis,
          prefix: settings.prefix,
        },
        publicBaseUrl: settings.publicBaseUrl,
        tenantsOf,
      });
      const installApp = settings.tenants?.hubspotApp;
      const hubspotInstall =
        installApp?.clientId && tenantStore
          ? hubspotInstallRouter({
              clientId: installApp.clientId,
              clientSecret: installApp.clientSecret,
              basePath: installApp.basePath,
              authorizeUrl: installApp.authorizeUrl,
              publicBaseUrl: settings.publicBaseUrl,
              redis: producerRedis,
              prefix: settings.prefix,
              store: tenantStore,
              onInstalled: () => loadTenants(),
            })
          : undefined;
      const app = createHttpApp({
        api,
        ...(hubspotInstall ? { hubspotInstall } : {}),
        webhooks,
        ready: async () =>
          (await producerRedis.ping()) === 'PONG' &&
          !(await queue.isPaused()) &&
          !(await maintenanceQueue.isPaused()),
        metrics: metrics.registry,
        logger,
        ...(settings.admin
          ? {
              admin: {
                ...settings.admin,
                queues: [queue, maintenanceQueue, digestQueue, signalQueue],
                pages: adminRouter({ history: apiHistory, actions: refreshActions(actionOptions) }),
              },
            }
          : {}),
      });
      const server = await listen(app, port, host);
      servers.push(server);
      return server;
    },
    loadTenants,
    watchTenants(intervalMs) {
      clearInterval(tenantTimer);
      tenantTimer = setInterval(() => {
        loadTenants().catch((err: unknown) => log.warn('could not reload tenants', { reason: String(err) }));
      }, intervalMs);
      tenantTimer.unref();
    },
    async startChangeEvents() {
      const sf = settings.salesforce;
      if (!sf || !salesforceConnector || !(sf.events ?? ['outbound']).includes('cdc')) return;
      const org = id15(sf.orgId);
      const { session } = salesforceConnector;
      const subscription = await subscribeAccountChanges({
        instanceUrl: sf.instanceUrl,
        apiVersion: sf.apiVersion,
        accessToken: () => session.accessToken(),
        reauthenticate: () => session.reauthenticate(),
        redis: producerRedis,
        replayKey: `${settings.prefix}:cdc:${org}:replay`,
        onEvent: async (event) => {
          // Only new Accounts start work here; our own writes come back as UPDATEs and must not loop.
          if (event.changeType !== 'CREATE') return;
          const jobs = event.recordIds.map((accountId) =>
            jobForEvent(
              {
                crm: 'salesforce',
                tenant: org,
                accountId,
                change: 'created',
                dedupeParts: [id15(accountId), 'cdc', event.replayId],
                cause: `AccountChangeEvent CREATE replay ${event.replayId}`,
              },
              settings.worker.attempts,
            ),
          );
          if (jobs.length) await queue.addBulk(jobs);
        },
        log: (line, fields) => log.info(line, { ...fields, source: 'salesforce-cdc' }),
      });
      subscriptions.push(subscription);
    },
    async close() {
      clearInterval(tenantTimer);
      await Promise.all(subscriptions.map((s) => s.close()));
      await Promise.all(workers.map((w) => w.close()));
      await Promise.all([...batchers.values()].map((b) => b.drain()));
      await Promise.all(servers.map((s) => s.close()));
      await Promise.all(
        [queue, workerQueue, maintenanceQueue, digestQueue, signalQueue, signalWorkerQueue].map((q) =>
          q.close(),
        ),
      );
      workerRedis.disconnect();
      producerRedis.disconnect();
    },
  };
}
