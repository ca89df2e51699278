// The parts every role of the service shares, built once from the settings: connections, queues,
// clients, CRM connections and the pipeline's dependencies. Assembly only; no business logic.

import type { CrmRuntime } from '../../connectors/descriptor.ts';
import { clearRefusals } from '../../connectors/permission-refusals.ts';
import { crmOf } from '../../connectors/registry.ts';
import { createRedis } from '../../queues/redis.ts';
import { sharedChannels } from '../batch/shared.ts';
import type { DigestDeps } from '../digest/deps.ts';
import { ownerChannelsFrom } from '../digest/owner-channels.ts';
import { crmReads } from '../enrich/crm-reads.ts';
import { runSignals } from '../enrich/run-signals.ts';
import type { PipelineDeps } from '../enrich/types.ts';
import { activeMapping } from '../mapping-versions/active.ts';
import { createLogger, workerLog } from '../observe/logger.ts';
import { Metrics } from '../observe/metrics.ts';
import { UsageCounts } from '../observe/usage.ts';
import { Resolver, redisMatchCache } from '../resolve/resolver.ts';
import { redisPoolFeed } from '../resolve/shared-pool.ts';
import type { MatchThresholds } from '../resolve/thresholds.ts';
import { accountLockKey, redisAccountLocks } from '../signals/account-lock.ts';
import { OutcomeHistory } from '../store/history.ts';
import { batchedLearnedLookup } from '../store/learned-lookup.ts';
import { describeError, Store } from '../store/store.ts';
import { parseTenant, TenantStore, tenantIdOf } from '../tenants/store.ts';
import { batchedWrites } from '../write/batched-writes.ts';
import { Ledgers } from '../write/ledgers.ts';
import { NoteClaims } from '../write/note-claims.ts';
import { ourFields } from '../write/our-fields.ts';
import { buyerIntelClients } from './buyer-intel.ts';
import { CrmConnections } from './crm-connections.ts';
import { createQueues } from './queues.ts';
import { connectRedis } from './redis.ts';
import type { ServiceSettings } from './types.ts';

export function buildCore(settings: ServiceSettings) {
  const logger = settings.logger ?? createLogger({ level: 'silent' });
  const log = settings.log ?? workerLog(logger);
  const { prefix } = settings;
  const redis = connectRedis(settings.redisUrl, logger);
  const store = new Store(settings.database ?? { pgliteDir: 'memory' }, {
    onError: (err) => log.warn('a database connection was lost', { reason: err.message }),
  });
  const queues = createQueues(redis, prefix, logger);
  const metrics = new Metrics(() => queues.observed);
  const usage = new UsageCounts(redis.producer, prefix);
  metrics.shareUsageIn(usage);
  const buyerIntel = buyerIntelClients(settings.buyerIntel, redis.producer, prefix, metrics, log);
  const tenantStore = settings.tenants
    ? new TenantStore(async () => (await store.open()).tenants, redis.worker, prefix, settings.tenants.cipher)
    : undefined;
  const runtime = (crm: string): CrmRuntime => ({
    redis: redis.worker,
    prefix,
    recordCall: (e) => metrics.recordCall(crm, e.operation, e.status, e.durationMs),
    log,
  });
  const crms = new CrmConnections({ crms: settings.crms, runtime, store: tenantStore });
  const connector = crms.get.bind(crms);
  // Jobs of every worker process share CRM calls (src/batch/shared.ts). Answers from other workers'
  // sends arrive on one more connection of this process, opened when it first batches something.
  const channels = sharedChannels({
    redis: redis.worker,
    connectReplies: () =>
      createRedis(settings.redisUrl, 'worker', (err) =>
        logger.warn({ role: 'batch-replies', reason: err.message }, 'Redis connection error; retrying'),
      ),
    prefix,
    maxWaitMs: settings.worker.writeBatchWaitMs,
    onError: (err, what) =>
      log.warn('a shared batch could not go through Redis', { what, reason: describeError(err) }),
  });
  // Every write's CRM answer goes on the store's write history, which is also the `ours` policy's
  // memory.
  const writes = batchedWrites({
    connector,
    channels,
    noteClaims: new NoteClaims(redis.worker, `${prefix}:ledger`),
    journal: {
      recordFieldWrites: async (entries) => (await store.open()).writes.recordFieldWrites(entries),
      recordNotes: async (entries) => (await store.open()).writes.recordNotes(entries),
      // Write-ahead: what a batch is about to write is recorded before its CRM call.
      recordPendingFieldWrites: async (entries) =>
        (await store.open()).writes.recordPendingFieldWrites(entries),
      settleFieldWrites: async (settled) => (await store.open()).writes.settleFieldWrites(settled),
      recordPendingNotes: async (entries) => (await store.open()).writes.recordPendingNotes(entries),
      settleNotes: async (settled, followUps) => (await store.open()).writes.settleNotes(settled, followUps),
    },
    onJournalError: (err, what) =>
      log.warn('could not record writes in the history', { what, reason: describeError(err) }),
  });
  // The CRM reads of concurrent jobs share calls through the same channels as the writes.
  const reads = crmReads(channels, connector);
  const ledgers = new Ledgers(redis.worker, `${prefix}:ledger`, {
    history: {
      lastWritten: async (account) => (await store.open()).writes.lastWritten(account),
      lastWrittenMany: async (crm, tenant, ids) =>
        (await store.open()).writes.lastWrittenMany(crm, tenant, ids),
    },
    matches: async function* () {
      yield* (await store.open()).matched.pages();
    },
  });
  // The mapping in force: the newest version saved from the console, else the file's.
  const mappings = activeMapping({
    file: settings.mapping,
    thresholds: settings.match,
    versions: async () => (await store.open()).mappings,
    onError: (err) =>
      log.warn('could not check the mapping in force; the one last read is used', {
        reason: describeError(err),
      }),
  });
  const mappingNow = async () => (await mappings.current()).mapping;
  // A search's answer is worth reusing as long as the search cache keeps it.
  const searchTtlMs = settings.buyerIntel.searchCacheTtlMs ?? settings.buyerIntel.cacheTtlMs ?? 0;
  const matchCache = redisMatchCache(redis.worker, `${prefix}:match:`);
  // The pool's answers are the provider's, asked with the install's token: one stream per install,
  // as the Buyer Intelligence cache is shared (shared-pool.ts).
  const poolFeed =
    searchTtlMs > 0
      ? redisPoolFeed({
          redis: redis.worker,
          key: `${prefix}:pool`,
          ttlMs: searchTtlMs,
          onError: (err, what) =>
            log.warn('the shared answer pool could not go through Redis', {
              what,
              reason: describeError(err),
            }),
        })
      : undefined;
  const resolverWith = (thresholds: MatchThresholds) =>
    new Resolver({
      client: buyerIntel.cached,
      cache: matchCache,
      ...(poolFeed ? { poolFeed } : {}),
      // The candidates one account was matched with are offered to the next of the same name as long
      // as a search's answer is reused: both are the same knowledge of who the API finds by that name.
      options: { ...thresholds, sharedAnswerTtlSeconds: searchTtlMs / 1000 },
    });
  // A version's thresholds get a resolver of their own; the last two are kept (the one in force and
  // the one before, for jobs still running on it).
  const resolvers = new Map<string, Resolver>();
  const resolverOf = (thresholds: MatchThresholds): Resolver => {
    const key = `${thresholds.acceptThreshold}/${thresholds.ambiguityMargin}`;
    const kept = resolvers.get(key);
    if (kept) return kept;
    const made = resolverWith(thresholds);
    resolvers.set(key, made);
    for (const old of [...resolvers.keys()].slice(0, -2)) resolvers.delete(old);
    return made;
  };
  // Our fields on a tenant: made when a tenant is added, and before a stored tenant's first write.
  const fields = ourFields({
    connectorFor: connector,
    mapping: { current: mappingNow, latest: () => mappings.latest().mapping },
    redis: redis.worker,
    prefix,
  });
  const deps: PipelineDeps = {
    buyerIntel: buyerIntel.cached,
    connectorFor: connector,
    readAccount: reads.readAccount,
    noteKeysOf: reads.noteKeysOf,
    learned: batchedLearnedLookup(async () => (await store.open()).learned),
    resolver: resolverOf(settings.match),
    resolverFor: resolverOf,
    mapping: settings.mapping,
    inForce: () => mappings.current(),
    ledgers,
    writeAccount: writes.writeAccount,
    createNote: writes.createNote,
    // The environment's tenants are set up by their operator's `setup` (src/write/our-fields.ts says why).
    ourFieldsReady: (crm, tenant) => (crms.isStored(crm, tenant) ? fields.ready(crm, tenant) : undefined),
    signals: settings.signals,
    runSignals: runSignals({
      client: buyerIntel.cached,
      redis: redis.worker,
      prefix,
      settings: settings.signals,
    }),
    ...(settings.followUps ? { followUps: settings.followUps } : {}),
  };
  const digestDeps: DigestDeps = {
    buyerIntel: buyerIntel.client,
    connectorFor: connector,
    ledgers,
    state: {
      get: async (scope) => (await store.open()).digests.get(scope),
      update: async (scope, set, drop) => (await store.open()).digests.update(scope, set, drop),
      claim: async (scope, field, value) => (await store.open()).digests.claim(scope, field, value),
    },
    redis: redis.worker,
    prefix,
    settings: settings.digest ?? {},
    createNote: writes.createNote,
    ...(settings.digest?.perOwner ? { ownerChannels: ownerChannelsFrom(settings.digest.perOwner) } : {}),
    log,
  };
  return {
    settings,
    logger,
    log,
    redis,
    queues,
    metrics,
    usage,
    buyerIntel,
    tenantStore,
    runtime,
    crms,
    connector,
    channels,
    writes,
    ledgers,
    deps,
    digestDeps,
    fields,
    mappings,
    store,
    history: new OutcomeHistory(store),
    /** The enrich worker's per-account locks, many at a time (an undo's batch). */
    accountLocks: redisAccountLocks({ redis: redis.worker, keyOf: (a) => accountLockKey(prefix, a) }),
    /** Stores a tenant and serves it at once (the install flows). */
    addTenant: tenantStore
      ? async (record: { crm: string }) => {
          crmOf(record.crm);
          await tenantStore.put(record);
          // Installed again: what its old grant was refused is no longer said of it.
          const id = tenantIdOf(parseTenant(record));
          await clearRefusals(redis.producer, prefix, record.crm, id).catch(() => undefined);
          await crms.loadTenants();
          // Its fields before its first job (src/write/our-fields.ts): a refusal here is retried then.
          await fields.prepare(record.crm, id).catch((err: unknown) =>
            log.warn('could not create our fields on a new tenant', {
              tenant: `${record.crm}:${id}`,
              reason: describeError(err),
            }),
          );
        }
      : undefined,
  };
}

export type ServiceCore = ReturnType<typeof buildCore>;
