// The CRM's owners change rarely and a digest run asks for them once per tenant; a short cache keeps a
// run that retries (or one per-owner digest per schedule slot) from reading every owner page again.
// A failed read is not cached: the next call asks the CRM again.
import { LRUCache } from 'lru-cache';
import type { CrmOwner } from './types.ts';

export const OWNER_CACHE_TTL_MS = 5 * 60_000;

export function cachedOwners(
  load: () => Promise<CrmOwner[]>,
  ttlMs = OWNER_CACHE_TTL_MS,
): () => Promise<CrmOwner[]> {
  const cache = new LRUCache<'owners', CrmOwner[]>({ max: 1, ttl: ttlMs, fetchMethod: () => load() });
  return async () => (await cache.fetch('owners')) ?? [];
}
