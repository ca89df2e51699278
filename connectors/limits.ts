// What a CRM's answers say about its limits, in one shape for every CRM, and where the last of them is
// kept: in Redis per tenant, so every worker (and `doctor`, and /metrics) sees what any worker's last
// answer said. Each connector reads its own headers (HubSpot's X-HubSpot-RateLimit-*, Salesforce's
// Sforce-Limit-Info) into a LimitReading; call-budget.ts stores them and waits on them.
import type { Redis } from 'ioredis';

export interface LimitReading {
  /** The short rolling window (HubSpot's 10 s): what is left of it when the CRM answered. */
  window?: { max: number; remaining: number; intervalMs: number };
  /** The daily allocation (HubSpot's per day; Salesforce's rolling 24 h): what is left of it. */
  daily?: { limit: number; remaining: number };
}

export interface WindowState {
  max: number;
  remaining: number;
  intervalMs: number;
  /** When the answer came (ms). */
  at: number;
  /** Calls this tenant's budget let go out since that answer. */
  started: number;
}

export interface DailyState {
  limit: number;
  remaining: number;
  /** When the answer came (ms). */
  at: number;
}

export interface BudgetState {
  crm: string;
  tenant: string;
  window?: WindowState;
  daily?: DailyState;
}

export const budgetKey = (prefix: string, crm: string, tenant: string) => `${prefix}:budget:${crm}:${tenant}`;
export const windowKey = (base: string) => `${base}:window`;
export const dailyKey = (base: string) => `${base}:daily`;
/** The tenants whose CRM ever reported a limit (for /metrics and doctor). */
export const budgetIndexKey = (prefix: string) => `${prefix}:budget-tenants`;

/** A whole number ≥ 0 from a header or a Redis field; anything else is no value. */
export function count(raw: unknown): number | undefined {
  if (typeof raw === 'number') return Number.isSafeInteger(raw) && raw >= 0 ? raw : undefined;
  if (typeof raw !== 'string' || !/^\s*\d{1,15}\s*$/.test(raw)) return undefined;
  return Number(raw);
}

function numbers<K extends string>(
  raw: Record<string, string>,
  keys: readonly K[],
): Record<K, number> | undefined {
  const out = {} as Record<K, number>;
  for (const k of keys) {
    const n = count(raw[k]);
    if (n === undefined) return undefined;
    out[k] = n;
  }
  return out;
}

/** The last readings of one tenant's limits (none when its CRM never reported one). */
export async function readBudget(
  redis: Redis,
  prefix: string,
  crm: string,
  tenant: string,
): Promise<BudgetState> {
  const base = budgetKey(prefix, crm, tenant);
  const [w, d] = await Promise.all([redis.hgetall(windowKey(base)), redis.hgetall(dailyKey(base))]);
  const window = numbers(w, ['max', 'remaining', 'intervalMs', 'at', 'started'] as const);
  const daily = numbers(d, ['limit', 'remaining', 'at'] as const);
  return { crm, tenant, ...(window ? { window } : {}), ...(daily ? { daily } : {}) };
}

/** Every tenant's last readings, by CRM and tenant. */
export async function readBudgets(redis: Redis, prefix: string): Promise<BudgetState[]> {
  const members = (await redis.smembers(budgetIndexKey(prefix))).sort();
  return Promise.all(
    members.map((m) => {
      const i = m.indexOf(':');
      return readBudget(redis, prefix, m.slice(0, i), m.slice(i + 1));
    }),
  );
}

/** The share of the daily allocation left (0–1), or undefined when the CRM never reported one. */
export function dailyHeadroom(state: BudgetState): number | undefined {
  const d = state.daily;
  if (!d || d.limit <= 0) return undefined;
  return Math.min(1, d.remaining / d.limit);
}
