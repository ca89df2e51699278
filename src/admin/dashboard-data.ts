// What the dashboard shows, gathered in one go: accounts per CRM, tenant and status, the
// automatic-match rate, the review backlog and its age, signal notes per week, and how the upstream
// budgets are used (the provider's shared pace now, each CRM tenant's last reported limits, and the
// calls, 429s and waits per hour of every process: src/observe/usage.ts). Each store read is a few
// rows or one index range (src/store/dashboard.ts); what Redis cannot say is shown as unknown.
import type { BudgetState } from '../../connectors/limits.ts';
import { readStore } from '../api/history-routes.ts';
import type { BacklogAge } from '../store/dashboard.ts';
import type { Store } from '../store/store.ts';
import type { ProviderRate } from './runs-list-routes.ts';

export const STATUSES = ['enriched', 'needs_review', 'no_match', 'error'] as const;
export type Status = (typeof STATUSES)[number];

export interface UsageHour {
  hour: string;
  counts: Record<string, number>;
}

/** What Redis holds of the budgets; each part absent when it cannot be read. */
export interface BudgetSources {
  crmLimits?: () => Promise<BudgetState[]>;
  usage?: () => Promise<UsageHour[]>;
  /** The provider rate the configuration allows (req/s), to say how much of it is in use. */
  configuredRate?: number | undefined;
}

export interface DashboardData {
  byTenant: ({ crm: string; tenant: string } & Record<Status, number>)[];
  total: Record<Status, number>;
  automaticMatchRate: number | null;
  provider: { ratePerSecond: number; throttled: boolean; configured: number | null } | null;
  backlog: BacklogAge;
  signalsPerWeek: { week: string; n: number }[];
  crmLimits: BudgetState[] | null;
  usage: UsageHour[] | null;
}

const rateOf = (enriched: number, decided: number) =>
  decided === 0 ? null : Math.round((enriched / decided) * 1000) / 10;

export const matchRateOf = (t: Record<Status, number>) =>
  rateOf(t.enriched, t.enriched + t.needs_review + t.no_match);

export async function dashboardData(
  store: Pick<Store, 'open'>,
  rate: ProviderRate | undefined,
  budgets: BudgetSources,
  now = new Date(),
): Promise<DashboardData> {
  const soft = <T>(read: (() => Promise<T>) | undefined): Promise<T | null> =>
    read ? read().catch(() => null) : Promise.resolve(null);
  const [stored, shared, crmLimits, usage] = await Promise.all([
    readStore(
      store,
      async ({ dashboard }) => {
        const [rows, backlog, signalsPerWeek] = await Promise.all([
          dashboard.statusByTenant(),
          dashboard.reviewBacklog(now),
          dashboard.notesPerWeek(12, now),
        ]);
        return { rows, backlog, signalsPerWeek };
      },
      'the dashboard',
    ),
    soft(rate),
    soft(budgets.crmLimits),
    soft(budgets.usage),
  ]);
  const tenants = new Map<string, DashboardData['byTenant'][number]>();
  for (const r of stored.rows) {
    const key = `${r.crm}\u0000${r.tenant}`;
    const t = tenants.get(key) ?? {
      crm: r.crm,
      tenant: r.tenant,
      enriched: 0,
      needs_review: 0,
      no_match: 0,
      error: 0,
    };
    t[r.status] += r.n;
    tenants.set(key, t);
  }
  const byTenant = [...tenants.values()];
  const total = Object.fromEntries(
    STATUSES.map((s) => [s, byTenant.reduce((a, t) => a + t[s], 0)]),
  ) as Record<Status, number>;
  return {
    byTenant,
    total,
    automaticMatchRate: matchRateOf(total),
    provider: shared ? { ...shared, configured: budgets.configuredRate ?? null } : null,
    backlog: stored.backlog,
    signalsPerWeek: stored.signalsPerWeek,
    crmLimits,
    usage,
  };
}
