// `doctor`'s lines per CRM tenant from what the workers' calls left in Redis: its daily API allocation
// (what the CRM's last answer said is used and left, and the headroom backfill leaves to the customer's
// other integrations, CRM_DAILY_HEADROOM; WARN at or below it: that tenant's backfill jobs wait), and
// every permission a call of the last day was refused for (FAIL: that feature cannot work for it).

import { type BudgetState, dailyHeadroom, readBudgets } from '../../connectors/limits.ts';
import { type PermissionRefusal, readRefusals } from '../../connectors/permission-refusals.ts';
import { probeClient } from '../../queues/redis.ts';
import { withTimeout } from '../shared/deadline.ts';
import type { CheckResult } from './result.ts';

const percent = (share: number) => `${Math.round(share * 1000) / 10} %`;
const n = (v: number) => v.toLocaleString('en-US');

function ago(ms: number): string {
  const minutes = Math.round(ms / 60_000);
  if (minutes < 1) return 'just now';
  return minutes < 120 ? `${minutes} min ago` : `${Math.round(minutes / 60)} h ago`;
}

/** One line per tenant with a daily reading; `now` for tests. */
export function crmLimitLines(states: BudgetState[], headroom: number, now = Date.now()): CheckResult[] {
  return states.flatMap((state): CheckResult[] => {
    const share = dailyHeadroom(state);
    const d = state.daily;
    if (share === undefined || !d) return [];
    const low = headroom > 0 && share <= headroom;
    const used = Math.max(0, d.limit - d.remaining);
    return [
      {
        name: `${state.crm} ${state.tenant} daily`,
        status: low ? 'warn' : 'pass',
        detail:
          `${n(used)} of ${n(d.limit)} daily calls used, ${n(d.remaining)} left (${percent(share)}; read ${ago(now - d.at)}); ` +
          (low
            ? `at or below the ${percent(headroom)} headroom (CRM_DAILY_HEADROOM): backfill waits, webhooks and refreshes run`
            : `headroom ${percent(headroom)} (CRM_DAILY_HEADROOM)`),
      },
    ];
  });
}

/** One FAIL per tenant whose calls were refused for a permission its credentials lack. */
export function refusalLines(refusals: PermissionRefusal[], now = Date.now()): CheckResult[] {
  const byTenant = new Map<string, PermissionRefusal[]>();
  for (const r of refusals) {
    const k = `${r.crm} ${r.tenant}`;
    byTenant.set(k, [...(byTenant.get(k) ?? []), r]);
  }
  return [...byTenant].map(([name, list]) => ({
    name: `${name} permissions`,
    status: 'fail',
    detail: `lacks ${list.map((r) => r.missing.join(' or ')).join(', ')}: grant ${list.length === 1 ? 'it' : 'them'} (install the app again, or add ${list.length === 1 ? 'it' : 'them'} to the credentials' settings)`,
    more: list.map((r) => `${r.missing.join(' or ')}: ${r.operation} refused ${ago(now - r.at)}`),
  }));
}

/**
 * Reads every tenant's last limits and permission refusals from Redis; a Redis that cannot be read
 * gives no lines (checked above).
 */
export async function checkCrmLimits(
  url: string,
  prefix: string,
  headroom: number,
  timeoutMs: number,
): Promise<CheckResult[]> {
  const redis = probeClient(url, Math.min(timeoutMs, 5_000));
  redis.on('error', () => undefined);
  try {
    await withTimeout(redis.connect(), timeoutMs, 'connect');
    return [
      ...crmLimitLines(await withTimeout(readBudgets(redis, prefix), timeoutMs, 'read limits'), headroom),
      ...refusalLines(await withTimeout(readRefusals(redis, prefix), timeoutMs, 'read refusals')),
    ];
  } catch {
    return [];
  } finally {
    redis.disconnect();
  }
}
