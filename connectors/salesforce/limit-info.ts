// Salesforce's `Sforce-Limit-Info: api-usage=N/M` (on REST answers) as a LimitReading: the org's daily
// API allocation (a rolling 24 h), M the allocation and N the requests counted in it. Salesforce
// documents no per-second limit. A missing or malformed header is no reading; nothing here throws.
import { count, type LimitReading } from '../limits.ts';

export function salesforceLimitReading(header: unknown): LimitReading {
  const text = Array.isArray(header) ? header[0] : header;
  if (typeof text !== 'string') return {};
  const usage = /(?:^|[,;\s])api-usage=(\d{1,15})\/(\d{1,15})(?:$|[,;\s])/.exec(text);
  const used = count(usage?.[1]);
  const limit = count(usage?.[2]);
  if (used === undefined || !limit) return {};
  // Salesforce lets usage run a little past the allocation before it refuses calls.
  return { daily: { limit, remaining: Math.max(0, limit - used) } };
}
