// `doctor`'s line per CRM tenant about its daily API allocation: what the CRM's last answer (any
// worker's) said is used and left, and the headroom backfill leaves to the customer's other
// integrations (CRM_DAILY_HEADROOM). WARN at or below it: that tenant's backfill jobs wait.

import { type BudgetState, dailyHeadroom, readBudgets } from '../../connectors/limits.ts';
import { redisClient } from '../../queues/redis-url.ts';
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

/** Reads every tenant's last limits from Redis; a Redis that cannot be read gives no lines (checked above). */
export async function checkCrmLimits(
  url: string,
  prefix: string,
  headroom: number,
  timeoutMs: number,
): Promise<CheckResult[]> {
  const redis = redisClient(url, {
    lazyConnect: true,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
    connectTimeout: Math.min(timeoutMs, 5_000),
  });
  redis.on('error', () => undefined);
  try {
    await withTimeout(redis.connect(), timeoutMs, 'connect');
    return crmLimitLines(await withTimeout(readBudgets(redis, prefix), timeoutMs, 'read limits'), headroom);
  } catch {
    return [];
  } finally {
    redis.disconnect();
  }
}
