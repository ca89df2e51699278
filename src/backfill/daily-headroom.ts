// Backfill leaves the customer's other integrations their share of the CRM's daily allocation: while
// a tenant's last known remaining allocation is at or below the headroom (CRM_DAILY_HEADROOM, a share
// of the allocation), its backfill jobs wait — moved back to delayed without spending an attempt, the
// way a CRM tenant's rate limit delays a job (queues/failure.ts) — and run again by themselves once an
// answer shows the allocation freed. Webhook jobs and a person's refresh still run, and their answers
// keep the reading current. A reading nothing refreshed for `recheckMs` (a quiet tenant, a daily reset
// since) lets one backfill job through as a probe. Logged once per tenant when backfill pauses and
// when it resumes, not per job.
import type { Redis } from 'ioredis';
import { budgetKey, dailyHeadroom, readBudget } from '../../connectors/limits.ts';
import { crmOf, isCrmKind } from '../../connectors/registry.ts';
import { IntegrationError } from '../shared/errors.ts';
import type { LogPort } from '../shared/log.ts';

/** CRM_DAILY_HEADROOM's default: a fifth of the allocation stays with the customer's other integrations. */
export const DEFAULT_DAILY_HEADROOM = 0.2;
/** How often a paused tenant's allocation is looked at again. */
export const DAILY_RECHECK_MS = 15 * 60_000;

export class DailyHeadroomReached extends IntegrationError {
  declare readonly retryAfterMs: number;
  constructor(message: string, retryAfterMs: number) {
    // One tenant's allocation: only that tenant's backfill waits.
    super(message, { permanent: false, retryAfterMs, limit: 'tenant' });
  }
}

/** What `backfill` and the logs say about a paused tenant. */
export interface BackfillPause {
  remaining: number;
  limit: number;
  headroom: number;
  /** When its jobs look again (ms). */
  until: number;
}

/** Jobs name a tenant in any of its CRM's forms (a Salesforce org in 15 or 18 characters); budgets in one. */
const canonical = (crm: string, tenant: string) =>
  (isCrmKind(crm) ? crmOf(crm).tenantId(tenant) : undefined) ?? tenant;

const pauseKey = (prefix: string, crm: string, tenant: string) =>
  `${budgetKey(prefix, crm, canonical(crm, tenant))}:backfill-paused`;

/** The pause of a tenant's backfill, if its allocation holds it now. */
export async function readBackfillPause(
  redis: Redis,
  prefix: string,
  crm: string,
  tenant: string,
): Promise<BackfillPause | undefined> {
  const raw = await redis.get(pauseKey(prefix, crm, tenant));
  if (!raw) return undefined;
  try {
    return JSON.parse(raw) as BackfillPause;
  } catch {
    return undefined;
  }
}

export const describePause = (p: BackfillPause) =>
  `${p.remaining} of ${p.limit} daily CRM calls left (${percent(p.remaining / p.limit)}), at or below the ${percent(p.headroom)} kept for other integrations; backfill waits`;

const percent = (share: number) => `${Math.round(share * 1000) / 10} %`;

export function dailyHeadroomGate(options: {
  redis: Redis;
  prefix: string;
  /** The share of the daily allocation backfill leaves (0: backfill never waits). */
  headroom: number;
  recheckMs?: number;
  log?: LogPort;
  now?: () => number;
}): (job: { crm: string; tenant: string; trigger: string }) => Promise<void> {
  const { redis, prefix, headroom, log } = options;
  const recheckMs = options.recheckMs ?? DAILY_RECHECK_MS;
  const now = options.now ?? Date.now;
  return async ({ crm, tenant, trigger }) => {
    // Re-enrichment is bulk work like a backfill: it leaves the same share to other integrations.
    if ((trigger !== 'backfill' && trigger !== 'reenrich') || headroom <= 0) return;
    const state = await readBudget(redis, prefix, crm, canonical(crm, tenant));
    const share = dailyHeadroom(state);
    const key = pauseKey(prefix, crm, tenant);
    if (share === undefined || !state.daily || share > headroom) {
      if (await redis.del(key))
        log?.info('backfill resumes: the CRM daily allocation has room again', {
          crm,
          tenant,
          ...(state.daily ? { remaining: state.daily.remaining, limit: state.daily.limit } : {}),
        });
      return;
    }
    const t = now();
    // Nothing refreshed the reading for a while: one job goes out and its answers tell.
    if (
      t - state.daily.at >= recheckMs &&
      (await redis.set(`${key}:probe`, '1', 'PX', recheckMs, 'NX')) === 'OK'
    )
      return;
    const pause: BackfillPause = {
      remaining: state.daily.remaining,
      limit: state.daily.limit,
      headroom,
      until: t + recheckMs,
    };
    const before = await redis.set(key, JSON.stringify(pause), 'PX', recheckMs * 2, 'GET');
    if (before === null) log?.warn(`backfill paused: ${describePause(pause)}`, { crm, tenant });
    throw new DailyHeadroomReached(`${crm} ${tenant}: ${describePause(pause)}`, recheckMs);
  };
}
