// HubSpot's X-HubSpot-RateLimit-* headers as a LimitReading: the rolling window (Max, Remaining,
// Interval-Milliseconds) on every answer, the daily allocation (Daily, Daily-Remaining) for private
// apps. A header that is missing or not a whole number leaves its part out; nothing here throws.
import { count, type LimitReading } from '../limits.ts';

/** Headers as the SDK hands them over (names in any case; a value may come as a list). */
export type HeaderBag = Readonly<Record<string, unknown>> | undefined;

function header(headers: HeaderBag, name: string): unknown {
  if (!headers || typeof headers !== 'object') return undefined;
  for (const [k, v] of Object.entries(headers))
    if (k.toLowerCase() === name) return Array.isArray(v) ? v[0] : v;
  return undefined;
}

export function hubspotLimitReading(headers: HeaderBag): LimitReading {
  const n = (name: string) => count(header(headers, `x-hubspot-ratelimit-${name}`));
  const max = n('max');
  const remaining = n('remaining');
  const intervalMs = n('interval-milliseconds');
  const limit = n('daily');
  const dailyRemaining = n('daily-remaining');
  return {
    ...(max && remaining !== undefined && intervalMs && remaining <= max
      ? { window: { max, remaining, intervalMs } }
      : {}),
    ...(limit && dailyRemaining !== undefined && dailyRemaining <= limit
      ? { daily: { limit, remaining: dailyRemaining } }
      : {}),
  };
}
