// Knobs every emulator shares, for tests and benchmarks: added latency, random error and 429 rates, and
// scripted faults ("the next 2 calls of getBuyerAttributesBulk answer 500"). Each emulator shapes the
// resulting error the way its real API does; this module only decides *whether* a request misbehaves.

export type FaultKind =
  /** Answer with this HTTP status (the emulator renders its own error body). */
  | { kind: 'status'; status: number; retryAfterSeconds?: number }
  /** Answer 200 with a body that is not valid JSON. */
  | { kind: 'malformed-json' }
  /** Answer normally but without this top-level member of the JSON body. */
  | { kind: 'drop-field'; field: string }
  /** Wait this long before answering (longer than a client's timeout = a timeout). */
  | { kind: 'delay'; ms: number };

export type ScriptedFault = FaultKind & {
  /** Operation id (or route) it applies to; omitted = any request. */
  match?: string;
  /** How many matching requests it applies to. Default 1. */
  times?: number;
};

export interface FaultSettings {
  /** Added to every request, in ms. */
  latencyMs: number;
  /** Probability (0..1) that a request answers 500. */
  errorRate: number;
  /** Probability (0..1) that a request answers 429. */
  rateLimitRate: number;
}

export const NO_FAULTS: FaultSettings = { latencyMs: 0, errorRate: 0, rateLimitRate: 0 };

/** mulberry32: small, fast, seeded, good enough for fault dice. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export class FaultPlan {
  settings: FaultSettings;
  readonly #script: ScriptedFault[] = [];
  readonly #random: () => number;

  constructor(settings: Partial<FaultSettings> = {}, seed = 7) {
    this.settings = { ...NO_FAULTS, ...settings };
    this.#random = seededRandom(seed);
  }

  /** Queue a fault for the next matching request(s). */
  inject(fault: ScriptedFault): void {
    this.#script.push({ times: 1, ...fault });
  }

  clear(): void {
    this.#script.length = 0;
  }

  /** The fault for this request, if any. Scripted faults come first, then the random rates. */
  next(operation: string): FaultKind | undefined {
    const i = this.#script.findIndex((f) => !f.match || f.match === operation);
    if (i >= 0) {
      const f = this.#script[i];
      if (f) {
        f.times = (f.times ?? 1) - 1;
        if (f.times <= 0) this.#script.splice(i, 1);
        const { match: _m, times: _t, ...kind } = f;
        return kind as FaultKind;
      }
    }
    const { errorRate, rateLimitRate } = this.settings;
    if (rateLimitRate > 0 && this.#random() < rateLimitRate)
      return { kind: 'status', status: 429, retryAfterSeconds: 1 };
    if (errorRate > 0 && this.#random() < errorRate) return { kind: 'status', status: 500 };
    return undefined;
  }
}

/**
 * A token bucket per key (a token, an app): `ratePerSecond` sustained, `burst` at once after a pause.
 * How APIs that publish a rate and a burst enforce them (GitHub's secondary limits, Stripe's, AWS's API
 * Gateway); a refused request takes no token. Answers, when refused, how long until a token is there.
 */
export class TokenBucketLimiter {
  readonly ratePerSecond: number;
  readonly burst: number;
  readonly #buckets = new Map<string, { tokens: number; at: number }>();
  readonly #now: () => number;

  constructor(ratePerSecond: number, burst: number, now: () => number = () => performance.now()) {
    if (!(ratePerSecond > 0) || !(burst >= 1))
      throw new RangeError('a token bucket needs rate > 0 and burst ≥ 1');
    this.ratePerSecond = ratePerSecond;
    this.burst = burst;
    this.#now = now;
  }

  hit(key: string): { ok: true; remaining: number } | { ok: false; retryAfterMs: number } {
    const now = this.#now();
    const b = this.#buckets.get(key) ?? { tokens: this.burst, at: now };
    b.tokens = Math.min(this.burst, b.tokens + ((now - b.at) / 1000) * this.ratePerSecond);
    b.at = now;
    this.#buckets.set(key, b);
    if (b.tokens < 1) return { ok: false, retryAfterMs: ((1 - b.tokens) / this.ratePerSecond) * 1000 };
    b.tokens -= 1;
    return { ok: true, remaining: Math.floor(b.tokens) };
  }
}

/**
 * Sliding-window request counter per key (a token, an app, a portal): `limit` requests per `windowMs`.
 * Answers how long until a slot frees when the limit is reached.
 */
export class SlidingWindowLimiter {
  readonly limit: number;
  readonly windowMs: number;
  readonly #hits = new Map<string, number[]>();

  constructor(limit: number, windowMs: number) {
    this.limit = limit;
    this.windowMs = windowMs;
  }

  /** Hits in the window now, without recording one. */
  used(key: string, now = Date.now()): number {
    const since = now - this.windowMs;
    return (this.#hits.get(key) ?? []).filter((t) => t > since).length;
  }

  /** Records a hit and returns `{ok: true, remaining}`, or `{ok: false, retryAfterMs}` without recording. */
  hit(key: string, now = Date.now()): { ok: true; remaining: number } | { ok: false; retryAfterMs: number } {
    const since = now - this.windowMs;
    const hits = (this.#hits.get(key) ?? []).filter((t) => t > since);
    if (hits.length >= this.limit) {
      this.#hits.set(key, hits);
      return { ok: false, retryAfterMs: Math.max(1, (hits[0] ?? now) + this.windowMs - now) };
    }
    hits.push(now);
    this.#hits.set(key, hits);
    return { ok: true, remaining: this.limit - hits.length };
  }
}

/** Per-operation, per-status request counts: how benchmarks and tests count upstream calls. */
export class CallStats {
  readonly #counts = new Map<string, Map<number, number>>();

  record(operation: string, status: number): void {
    const byStatus = this.#counts.get(operation) ?? new Map<number, number>();
    byStatus.set(status, (byStatus.get(status) ?? 0) + 1);
    this.#counts.set(operation, byStatus);
  }

  count(operation?: string, status?: number): number {
    let total = 0;
    for (const [op, byStatus] of this.#counts) {
      if (operation && op !== operation) continue;
      for (const [s, n] of byStatus) if (status === undefined || s === status) total += n;
    }
    return total;
  }

  toJSON(): Record<string, Record<string, number>> {
    return Object.fromEntries([...this.#counts].map(([op, m]) => [op, Object.fromEntries(m)]));
  }

  reset(): void {
    this.#counts.clear();
  }
}
