// How the upstream budgets were used, per hour, across every process: calls and 429s per API, the time
// Buyer Intelligence requests waited for their slot of the shared pace, and how often a queue was
// parked for a CRM's or the provider's limit. Prometheus has the same per process (metrics.ts); the
// console's dashboard has no Prometheus to ask, and one process's counters would show a fraction of a
// deployment with several workers. So each process adds its counts in memory and flushes them every
// 10 s into one Redis hash per hour (HINCRBY in one MULTI: a round trip per process per 10 s, never
// one per call), kept 3 days. Lossy by design: a process killed between flushes loses ≤ 10 s of counts.
import type { Redis } from 'ioredis';

const FLUSH_MS = 10_000;
const KEEP_SECONDS = 3 * 86_400;
const HOUR_MS = 3_600_000;

const hourOf = (ms: number) => new Date(Math.floor(ms / HOUR_MS) * HOUR_MS).toISOString().slice(0, 13);
const keyOf = (prefix: string, hour: string) => `${prefix}:usage:${hour}`;

export class UsageCounts {
  readonly #redis: Redis;
  readonly #prefix: string;
  #pending = new Map<string, number>();
  #timer: NodeJS.Timeout | undefined;

  constructor(redis: Redis, prefix: string, flushMs = FLUSH_MS) {
    this.#redis = redis;
    this.#prefix = prefix;
    this.#timer = setInterval(() => void this.flush().catch(() => undefined), flushMs);
    this.#timer.unref();
  }

  add(name: string, n = 1): void {
    const key = `${hourOf(Date.now())}|${name}`;
    this.#pending.set(key, (this.#pending.get(key) ?? 0) + n);
  }

  async flush(): Promise<void> {
    if (!this.#pending.size) return;
    const pending = this.#pending;
    this.#pending = new Map();
    const multi = this.#redis.multi();
    const hours = new Set<string>();
    for (const [key, n] of pending) {
      const [hour = '', name = ''] = key.split('|');
      hours.add(hour);
      multi.hincrby(keyOf(this.#prefix, hour), name, Math.round(n));
    }
    for (const hour of hours) multi.expire(keyOf(this.#prefix, hour), KEEP_SECONDS);
    await multi.exec();
  }

  /** Stops the timer and flushes what is left (before the Redis connection closes). */
  async close(): Promise<void> {
    clearInterval(this.#timer);
    await this.flush().catch(() => undefined);
  }
}

/** Each of the last `hours` hours (oldest first) with its counts by name; an hour without any: {}. */
export async function readUsage(
  redis: Redis,
  prefix: string,
  hours = 24,
  now = Date.now(),
): Promise<{ hour: string; counts: Record<string, number> }[]> {
  const list = Array.from({ length: hours }, (_, i) => hourOf(now - (hours - 1 - i) * HOUR_MS));
  const pipeline = redis.pipeline();
  for (const hour of list) pipeline.hgetall(keyOf(prefix, hour));
  const answers = (await pipeline.exec()) ?? [];
  return list.map((hour, i) => {
    const raw = (answers[i]?.[1] ?? {}) as Record<string, string>;
    return { hour, counts: Object.fromEntries(Object.entries(raw).map(([k, v]) => [k, Number(v)])) };
  });
}
