// What a running service is configured with and what it offers its callers (the CLI roles, the demo,
// the tests). CRM settings are opaque here: each CRM's descriptor reads its own section.

import type { Queue, Worker } from 'bullmq';
import type { CrmConnector, CrmKind, EnsureFieldsResult } from '../../connectors/types.ts';
import type { createEnrichQueue, EnrichQueueData } from '../../queues/enrich-queue.ts';
import type { EnrichJobResult } from '../../queues/enrich-worker.ts';
import type { MaintenanceData } from '../../queues/maintenance.ts';
import type { SecuritySettings } from '../config/security.ts';
import type { DigestKind, DigestRunResult } from '../digest/deps.ts';
import type { DigestSettings } from '../digest/settings.ts';
import type { SignalPlan, SignalSettings } from '../enrich/run-signals.ts';
import type { EnrichResult, PipelineDeps } from '../enrich/types.ts';
import type { FollowUpSettings } from '../follow-ups/settings.ts';
import type { Mapping } from '../map/mapping-schema.ts';
import type { Logger } from '../observe/logger.ts';
import type { Metrics } from '../observe/metrics.ts';
import type { LogPort } from '../shared/log.ts';
import type { AccountLocks } from '../signals/account-lock.ts';
import type { DatabaseSettings } from '../store/db.ts';
import type { OutcomeHistory } from '../store/history.ts';
import type { Store } from '../store/store.ts';
import type { TokenCipher } from '../tenants/cipher.ts';

export interface BuyerIntelSettings {
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
  /** Reuse search answers this long (ms); default `cacheTtlMs`. */
  searchCacheTtlMs?: number;
  /** The provider's row webhooks (Standard Webhooks): keys to verify them, bridges to take. */
  webhooks?: { secrets: string[]; publicKeys: string[]; bridgeIds?: string[] | undefined };
}

export interface ServiceSettings {
  buyerIntel: BuyerIntelSettings;
  redisUrl: string;
  /**
   * The system of record (outcomes, decisions, runs): a PostgreSQL URL, or the embedded PGlite in a
   * directory. Absent: an embedded one in memory (tests, the demo).
   */
  database?: DatabaseSettings;
  /** Namespaces every key and queue of this install in Redis. */
  prefix: string;
  /** Each configured CRM's settings by kind, as its descriptor's `config.read` made them. */
  crms: Record<string, unknown>;
  publicBaseUrl?: string | undefined;
  /** Our HTTP API (/api): its API keys (CRM-signed calls are each CRM's own). */
  api?: { apiKeys: string[] };
  /** CRM connections kept in the database (several portals and orgs), credentials encrypted with `cipher`. */
  tenants?: { cipher: TokenCipher };
  /** Signal digests (per account, org-wide); a kind without its schedule is off. */
  digest?: DigestSettings;
  /** Scheduled work (cron pattern and IANA time zone); absent = not scheduled. */
  schedules?: { reenrich?: { pattern: string; tz: string } };
  mapping: Mapping;
  /** The file `mapping` was read from; absent: the built-in mapping. */
  mappingFile?: string;
  match: { acceptThreshold: number; ambiguityMargin: number };
  signals: SignalSettings;
  /** Signals as tasks for the account's owner, and the sweep closing the loop; default off. */
  followUps?: FollowUpSettings;
  worker: {
    concurrency: number;
    attempts: number;
    /** Accounts per backfill job (BACKFILL_ACCOUNTS_PER_JOB). Default 100. */
    backfillAccountsPerJob?: number;
    writeBatchWaitMs: number;
    /** The most a backfill chunk's account waits to write with the others (BACKFILL_BATCH_WAIT_MS). */
    backfillBatchWaitMs?: number;
    /** Share of a CRM tenant's daily allocation backfill leaves to other integrations. Default 0.2. */
    crmDailyHeadroom?: number;
  };
  log?: LogPort;
  /** pino logger for HTTP requests and jobs (request id / job id on every line). Default: silent. */
  logger?: Logger;
  /** Basic auth for /admin (Bull Board); absent = /admin is not served. */
  admin?: { username: string; password: string };
  /** /metrics and API docs access, the inbound per-account window. Absent: the defaults (closed). */
  security?: SecuritySettings;
}

export interface Service {
  /** What a person or a CRM event asks for (webhooks, refreshes, review decisions, re-enrichment). */
  queue: ReturnType<typeof createEnrichQueue>;
  /** A backfill's chunks and accounts (queues/enrich-queue.ts: BACKFILL_QUEUE). */
  backfillQueue: ReturnType<typeof createEnrichQueue>;
  deps: PipelineDeps;
  /** The system of record. */
  store: Store;
  /** Each account's last outcome, read from the store as the API and the admin page show it. */
  history: OutcomeHistory;
  metrics: Metrics;
  connector(crm: CrmKind, tenant: string): CrmConnector;
  /** The enrich worker's per-account locks, many at a time (an undo's batch). */
  accountLocks: AccountLocks;
  /** The tenants served for a CRM now (canonical ids). */
  tenantsOf(crm: CrmKind): string[];
  /** Where a run's signals come from: the choice between the org-wide feed and a call per buyer. */
  planSignals(accounts: number): Promise<SignalPlan>;
  /** Enrich one account now, in this process (the CLI's `enrich`, dry runs). */
  enrich(
    ref: { crm: CrmKind; tenant: string; accountId: string },
    options?: { dryRun?: boolean; job?: { trigger?: string } },
  ): Promise<EnrichResult>;
  startWorker(): Worker<EnrichQueueData, EnrichJobResult<EnrichResult>>;
  /**
   * Creates, updates or removes the configured job schedulers (idempotent: every worker may call it),
   * and declares them again whenever Redis lost them, until the service closes.
   */
  upsertSchedules(): Promise<void>;
  maintenanceQueue: Queue<MaintenanceData>;
  startHttp(port: number, host?: string): Promise<{ url: string; close(): Promise<void> }>;
  /**
   * A worker without the HTTP tier: /metrics and /healthz on METRICS_LISTEN (none when it is unset).
   * After startWorker.
   */
  startWorkerHttp(): Promise<{ url: string; close(): Promise<void> } | undefined>;
  /** Adds the CRM connections stored in the database (tenants), drops removed ones. */
  loadTenants(): Promise<{ loaded: string[]; unreadable: string[] }>;
  /** Reloads the stored tenants every `intervalMs`, so a tenant added by the CLI is served soon. */
  watchTenants(intervalMs: number): void;
  /** Runs one digest now, in this process (`digest --now`); `tenant`: only that tenant's accounts. */
  digest(kind: DigestKind, options?: { tenant?: { crm: CrmKind; tenant: string } }): Promise<DigestRunResult>;
  /** Creates our fields where the tenant lacks them (`setup`, `tenants add`) and remembers it has them. */
  prepareFields(crm: CrmKind, tenant: string): Promise<EnsureFieldsResult>;
  /** Starts the CRMs' non-HTTP event sources (e.g. Salesforce CDC); their events become enrich jobs. */
  startChangeEvents(): Promise<void>;
  /** Stops taking work, waits for active jobs, flushes pending writes, closes connections. */
  close(): Promise<void>;
}
