// From the validated environment to the service's settings (the mapping file is read here, once).
// Each CRM's settings were read by its own descriptor in loadEnv; they pass through untouched.
import type { Env } from '../config/env.ts';
import { securitySettings } from '../config/security.ts';
import { followUpSettings } from '../follow-ups/settings.ts';
import { mappingFromFile } from '../map/default-mapping.ts';
import { TokenCipher } from '../tenants/cipher.ts';
import type { ServiceSettings } from './types.ts';

export async function settingsFromEnv(env: Env): Promise<ServiceSettings> {
  return {
    buyerIntel: {
      baseUrl: env.BUYER_INTEL_BASE_URL,
      token: env.BUYER_INTEL_TOKEN,
      timeoutMs: env.BUYER_INTEL_TIMEOUT_MS,
      maxAttempts: env.BUYER_INTEL_MAX_ATTEMPTS,
      ratePerSecond: env.BUYER_INTEL_RATE_PER_SECOND,
      burst: env.BUYER_INTEL_BURST,
      cacheTtlMs: env.BUYER_INTEL_CACHE_TTL_MS,
      searchCacheTtlMs: env.BUYER_INTEL_SEARCH_CACHE_TTL_MS,
      ...(env.BUYER_INTEL_WEBHOOK_SECRETS.length || env.BUYER_INTEL_WEBHOOK_PUBLIC_KEYS.length
        ? {
            webhooks: {
              secrets: env.BUYER_INTEL_WEBHOOK_SECRETS,
              publicKeys: env.BUYER_INTEL_WEBHOOK_PUBLIC_KEYS,
              bridgeIds: env.BUYER_INTEL_WEBHOOK_BRIDGE_IDS,
            },
          }
        : {}),
    },
    redisUrl: env.REDIS_URL,
    database: env.DATABASE_URL ? { url: env.DATABASE_URL } : { pgliteDir: env.PGLITE_DIR },
    prefix: env.REDIS_PREFIX,
    crms: env.crms,
    ...(env.TOKEN_ENCRYPTION_KEY
      ? { tenants: { cipher: TokenCipher.fromBase64(env.TOKEN_ENCRYPTION_KEY) } }
      : {}),
    publicBaseUrl: env.PUBLIC_BASE_URL,
    ...(env.ADMIN_USERNAME && env.ADMIN_PASSWORD
      ? { admin: { username: env.ADMIN_USERNAME, password: env.ADMIN_PASSWORD } }
      : {}),
    api: { apiKeys: env.API_KEYS },
    security: securitySettings(env),
    digest: env.digest,
    schedules: {
      ...(env.REENRICH_CRON ? { reenrich: { pattern: env.REENRICH_CRON, tz: env.SCHEDULE_TZ } } : {}),
    },
    mapping: await mappingFromFile(env.MAPPING_FILE),
    ...(env.MAPPING_FILE ? { mappingFile: env.MAPPING_FILE } : {}),
    match: { acceptThreshold: env.MATCH_ACCEPT_THRESHOLD, ambiguityMargin: env.MATCH_AMBIGUITY_MARGIN },
    signals: {
      filterType: env.SIGNALS_FILTER_TYPES,
      status: env.SIGNALS_STATUS,
      period: env.SIGNALS_PERIOD,
      sort: env.SIGNALS_SORT,
      maxNotesPerRun: env.SIGNALS_MAX_NOTES_PER_RUN,
    },
    followUps: followUpSettings(env),
    worker: {
      concurrency: env.WORKER_CONCURRENCY,
      attempts: env.ENRICH_ATTEMPTS,
      backfillAccountsPerJob: env.BACKFILL_ACCOUNTS_PER_JOB,
      writeBatchWaitMs: env.WRITE_BATCH_WAIT_MS,
      backfillBatchWaitMs: env.BACKFILL_BATCH_WAIT_MS,
      crmDailyHeadroom: env.CRM_DAILY_HEADROOM,
    },
  };
}
