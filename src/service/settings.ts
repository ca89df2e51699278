// From the validated environment to the service's settings (the mapping file is read here, once).
import type { Env } from '../config/env.ts';
import { mappingFromFile } from '../map/default-mapping.ts';
import { TokenCipher } from '../tenants/cipher.ts';
import type { ServiceSettings } from './runtime.ts';

/** The environment configures one HubSpot portal and/or one Salesforce org (several come with tenants). */
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
    prefix: env.REDIS_PREFIX,
    ...(env.HUBSPOT_ACCESS_TOKEN && env.HUBSPOT_PORTAL_ID && env.HUBSPOT_CLIENT_SECRET
      ? {
          hubspot: {
            accessToken: env.HUBSPOT_ACCESS_TOKEN,
            portalId: env.HUBSPOT_PORTAL_ID,
            clientSecret: env.HUBSPOT_CLIENT_SECRET,
            appId: env.HUBSPOT_APP_ID,
            basePath: env.HUBSPOT_BASE_PATH,
            callsPer10s: env.HUBSPOT_CALLS_PER_10S,
            timeoutMs: env.HUBSPOT_TIMEOUT_MS,
          },
        }
      : {}),
    ...(env.SALESFORCE_INSTANCE_URL &&
    env.SALESFORCE_CLIENT_ID &&
    env.SALESFORCE_CLIENT_SECRET &&
    env.SALESFORCE_REFRESH_TOKEN &&
    env.SALESFORCE_ORG_ID
      ? {
          salesforce: {
            instanceUrl: env.SALESFORCE_INSTANCE_URL,
            loginUrl: env.SALESFORCE_LOGIN_URL,
            clientId: env.SALESFORCE_CLIENT_ID,
            clientSecret: env.SALESFORCE_CLIENT_SECRET,
            refreshToken: env.SALESFORCE_REFRESH_TOKEN,
            apiVersion: env.SALESFORCE_API_VERSION,
            orgId: env.SALESFORCE_ORG_ID,
            events: env.SALESFORCE_EVENTS,
            notes: env.SALESFORCE_NOTES,
          },
        }
      : {}),
    ...(env.TOKEN_ENCRYPTION_KEY
      ? {
          tenants: {
            cipher: TokenCipher.fromBase64(env.TOKEN_ENCRYPTION_KEY),
            ...(env.HUBSPOT_CLIENT_SECRET
              ? {
                  hubspotApp: {
                    clientId: env.HUBSPOT_CLIENT_ID,
                    clientSecret: env.HUBSPOT_CLIENT_SECRET,
                    appId: env.HUBSPOT_APP_ID,
                    basePath: env.HUBSPOT_BASE_PATH,
                    callsPer10s: env.HUBSPOT_CALLS_PER_10S,
                    authorizeUrl: env.HUBSPOT_AUTHORIZE_URL,
                  },
                }
              : {}),
            ...(env.SALESFORCE_CLIENT_ID && env.SALESFORCE_CLIENT_SECRET
              ? {
                  salesforceApp: {
                    clientId: env.SALESFORCE_CLIENT_ID,
                    clientSecret: env.SALESFORCE_CLIENT_SECRET,
                    loginUrl: env.SALESFORCE_LOGIN_URL,
                    apiVersion: env.SALESFORCE_API_VERSION,
                    notes: env.SALESFORCE_NOTES,
                  },
                }
              : {}),
          },
        }
      : {}),
    publicBaseUrl: env.PUBLIC_BASE_URL,
    ...(env.ADMIN_USERNAME && env.ADMIN_PASSWORD
      ? { admin: { username: env.ADMIN_USERNAME, password: env.ADMIN_PASSWORD } }
      : {}),
    api: { apiKeys: env.API_KEYS, salesforceSecrets: env.SALESFORCE_REFRESH_SECRETS },
    digest: env.digest,
    schedules: {
      ...(env.REENRICH_CRON ? { reenrich: { pattern: env.REENRICH_CRON, tz: env.SCHEDULE_TZ } } : {}),
    },
    mapping: await mappingFromFile(env.MAPPING_FILE),
    match: { acceptThreshold: env.MATCH_ACCEPT_THRESHOLD, ambiguityMargin: env.MATCH_AMBIGUITY_MARGIN },
    signals: {
      filterType: env.SIGNALS_FILTER_TYPES,
      status: env.SIGNALS_STATUS,
      period: env.SIGNALS_PERIOD,
      sort: env.SIGNALS_SORT,
      maxNotesPerRun: env.SIGNALS_MAX_NOTES_PER_RUN,
    },
    worker: {
      concurrency: env.WORKER_CONCURRENCY,
      attempts: env.ENRICH_ATTEMPTS,
      writeBatchWaitMs: env.WRITE_BATCH_WAIT_MS,
    },
  };
}
