// The Buyer Intelligence client, and the cache enrichment reads go through: concurrent identical calls
// coalesce (across workers too, via Redis) and results are reused for cacheTtlMs, since many accounts
// share one buyer.
import type { Redis } from 'ioredis';
import { cachedBuyerIntel } from '../buyer-intel/cache.ts';
import { BuyerIntelClient, type BuyerIntelClientOptions } from '../buyer-intel/client.ts';
import { type RateGate, sharedRate } from '../buyer-intel/shared-rate.ts';
import type { Metrics } from '../observe/metrics.ts';
import type { LogPort } from '../shared/log.ts';
import type { BuyerIntelSettings } from './types.ts';

/**
 * The client as the service configures it (timeouts, retries, rate limit); `match-eval` uses it too,
 * with this process's own bucket unless a shared `limiter` is given.
 */
export function buyerIntelClient(
  settings: BuyerIntelSettings,
  onAttempt?: BuyerIntelClientOptions['onAttempt'],
  limiter?: RateGate,
): BuyerIntelClient {
  return new BuyerIntelClient({
    baseUrl: settings.baseUrl,
    token: settings.token,
    timeoutMs: settings.timeoutMs,
    retry: {
      maxAttempts: settings.maxAttempts,
      ...(settings.maxRetryAfterMs === undefined ? {} : { maxRetryAfterMs: settings.maxRetryAfterMs }),
    },
    rateLimit: { ratePerSecond: settings.ratePerSecond, burst: settings.burst },
    ...(limiter ? { limiter } : {}),
    ...(onAttempt ? { onAttempt } : {}),
  });
}

export function buyerIntelClients(
  settings: BuyerIntelSettings,
  redis: Redis,
  prefix: string,
  metrics: Metrics,
  log?: LogPort,
) {
  // The provider limits the token, not the process: every worker draws on one pace in Redis.
  metrics.providerRate.set(settings.ratePerSecond);
  const limiter = sharedRate({
    redis,
    prefix,
    token: settings.token,
    ratePerSecond: settings.ratePerSecond,
    burst: settings.burst,
    ...(log ? { log } : {}),
    observe: {
      rate: (r) => metrics.providerRate.set(r),
      waited: (ms) => metrics.recordProviderWait(ms),
    },
  });
  const client = buyerIntelClient(
    settings,
    (e) => metrics.recordCall('buyer_intel', e.operation, e.outcome, e.durationMs),
    limiter,
  );
  const cached = cachedBuyerIntel(client, {
    ttlMs: settings.cacheTtlMs ?? 0,
    ...(settings.searchCacheTtlMs === undefined ? {} : { searchTtlMs: settings.searchCacheTtlMs }),
    maxEntries: 10_000,
    // ~4 MB of JSON is ~10 MB of heap: the answers of the last few thousand calls. Older ones come from
    // Redis (one GET). Held by count alone, 10,000 answers were a third of a worker's live heap. None
    // over 200 KB (a page of the org-wide feed) is kept in process: it would push out the searches.
    maxChars: 4_000_000,
    redis: { client: redis, prefix: `${prefix}:bi-cache:` },
  });
  return { client, cached };
}
