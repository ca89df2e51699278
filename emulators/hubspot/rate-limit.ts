// HubSpot's API limits (usage guidelines): a rolling 10-second window per app (private apps 190 on
// Professional/Enterprise, public OAuth apps 110 per installed account), a daily limit per account for
// private apps, and the search endpoints' own per-second limit per account. The X-HubSpot-RateLimit-*
// headers report them; the Daily headers are not sent for OAuth-authorized requests.
import { SlidingWindowLimiter } from '../shared/faults.ts';
import type { Caller } from './auth.ts';
import type { RateLimitPolicy } from './errors.ts';

export interface RateLimitOptions {
  /** Requests per window for the private app. Default 190. */
  tenSecondly?: number;
  /** Requests per window for the OAuth app per installed account. Default 110. */
  oauthTenSecondly?: number;
  /** The rolling window. Default 10,000 ms. */
  windowMs?: number;
  /**
   * Requests per account per UTC day for private apps. Default 625,000 (Professional). `false` enforces
   * none, but the Daily headers are still sent (as with `rateLimits: false`): a private app's calls always
   * carry them (usage guidelines), so a test that turns the limit off still sees HubSpot's headers.
   */
  daily?: number | false;
  /** The search endpoints' limit per account; false disables. Default 5 per 1,000 ms. */
  search?: { requests: number; windowMs: number } | false;
}

export interface Admission {
  headers: Record<string, string>;
  /** Set when the request is over a limit. */
  blocked?: RateLimitPolicy;
}

export class HubSpotRateLimits {
  readonly windowMs: number;
  readonly #private: SlidingWindowLimiter;
  readonly #oauth: SlidingWindowLimiter;
  readonly #search: SlidingWindowLimiter | null;
  readonly #daily: number;
  readonly #dailyCounts = new Map<string, number>();

  constructor(options: RateLimitOptions = {}) {
    this.windowMs = options.windowMs ?? 10_000;
    this.#private = new SlidingWindowLimiter(options.tenSecondly ?? 190, this.windowMs);
    this.#oauth = new SlidingWindowLimiter(options.oauthTenSecondly ?? 110, this.windowMs);
    const search = options.search ?? { requests: 5, windowMs: 1000 };
    this.#search = search ? new SlidingWindowLimiter(search.requests, search.windowMs) : null;
    this.#daily = options.daily === false ? Number.MAX_SAFE_INTEGER : (options.daily ?? 625_000);
  }

  admit(caller: Caller, options: { search?: boolean } = {}, now = Date.now()): Admission {
    const limiter = caller.kind === 'private' ? this.#private : this.#oauth;
    const verdict = limiter.hit(`${caller.appId}:${caller.portalId}`, now);
    const headers: Record<string, string> = {};
    let blocked: RateLimitPolicy | undefined = verdict.ok ? undefined : 'TEN_SECONDLY_ROLLING';

    if (caller.kind === 'private') {
      const key = `${caller.portalId}:${new Date(now).toISOString().slice(0, 10)}`;
      const used = this.#dailyCounts.get(key) ?? 0;
      if (used >= this.#daily) blocked = 'DAILY';
      else if (!blocked) this.#dailyCounts.set(key, used + 1);
      headers['X-HubSpot-RateLimit-Daily'] = String(this.#daily);
      headers['X-HubSpot-RateLimit-Daily-Remaining'] = String(
        Math.max(0, this.#daily - (this.#dailyCounts.get(key) ?? 0)),
      );
    }
    headers['X-HubSpot-RateLimit-Interval-Milliseconds'] = String(this.windowMs);
    headers['X-HubSpot-RateLimit-Max'] = String(limiter.limit);
    headers['X-HubSpot-RateLimit-Remaining'] = String(verdict.ok ? verdict.remaining : 0);

    if (!blocked && options.search && this.#search && !this.#search.hit(String(caller.portalId), now).ok) {
      blocked = 'SECONDLY';
    }
    return blocked ? { headers, blocked } : { headers };
  }
}
