// The enrich worker's per-account lock: one job per account at a time, so a creation job and a change
// job never write the same notes at once. The lock itself is the project's one (src/shared/redis-lock.ts:
// taken when free or already the job's, released only by its owner); this is what the worker is told.
import type { Redis } from 'ioredis';
import type { EnrichJobData } from './enrich-queue.ts';

export interface ExclusiveOptions {
  redis: Redis;
  keyOf: (data: EnrichJobData) => string;
  ttlMs: number;
  /** A job (or a chunk's account) that finds its account's key held runs again after this. */
  retryDelayMs: number;
}
