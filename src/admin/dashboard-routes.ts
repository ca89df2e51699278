// /admin/dashboard and /admin/api/dashboard: how the accounts stand per CRM and tenant and the
// automatic-match rate, from one grouped count (fast at 250,000 accounts), and whether the provider
// holds us back now — the first page a sales-ops lead opens.
import type express from 'express';
import { readStore } from '../api/history-routes.ts';
import type { Store } from '../store/store.ts';
import { esc } from './html.ts';
import { renderConsolePage } from './layout.ts';
import type { ProviderRate } from './runs-list-routes.ts';

const STATUSES = ['enriched', 'needs_review', 'no_match', 'error'] as const;

async function dashboardData(store: Pick<Store, 'open'>, rate?: ProviderRate) {
  const [rows, shared] = await Promise.all([
    readStore(store, ({ runs }) => runs.statusByTenant(), 'the accounts'),
    rate?.().catch(() => null) ?? null,
  ]);
  const tenants = new Map<
    string,
    { crm: string; tenant: string } & Record<(typeof STATUSES)[number], number>
  >();
  for (const r of rows) {
    const key = `${r.crm}\u0000${r.tenant}`;
    const t = tenants.get(key) ?? {
      crm: r.crm,
      tenant: r.tenant,
      enriched: 0,
      needs_review: 0,
      no_match: 0,
      error: 0,
    };
    t[r.status] = r.n;
    tenants.set(key, t);
  }
  const total = Object.fromEntries(
    STATUSES.map((s) => [s, rows.filter((r) => r.status === s).reduce((a, r) => a + r.n, 0)]),
  ) as Record<(typeof STATUSES)[number], number>;
  const decided = total.enriched + total.needs_review + total.no_match;
  return {
    byTenant: [...tenants.values()],
    total,
    automaticMatchRate: decided === 0 ? null : Math.round((total.enriched / decided) * 1000) / 10,
    provider: shared,
  };
}

export function addAdminDashboardRoutes(
  router: express.Router,
  options: { store: Pick<Store, 'open'>; rate?: ProviderRate | undefined },
): void {
  router.get('/api/dashboard', async (_req, res, next) => {
    try {
      res.set('cache-control', 'no-store').json(await dashboardData(options.store, options.rate));
    } catch (err) {
      next(err);
    }
  });
  router.get('/dashboard', async (_req, res, next) => {
    try {
      const d = await dashboardData(options.store, options.rate);
      const cards = STATUSES.map(
        (s) =>
          `<div class="card"><div class="value" data-status="${s}">${d.total[s].toLocaleString('en-US')}</div>${esc(s.replace('_', ' '))}</div>`,
      ).join('');
      const rows = d.byTenant
        .map(
          (t) =>
            `<tr><td>${esc(t.crm)}</td><td>${esc(t.tenant)}</td>${STATUSES.map((s) => `<td class="num">${t[s].toLocaleString('en-US')}</td>`).join('')}</tr>`,
        )
        .join('');
      res.type('html').send(
        renderConsolePage({
          title: 'Dashboard',
          active: 'dashboard',
          body: `<h1>Dashboard</h1>
<p class="summary">Accounts by their latest outcome. Automatic-match rate: accounts enriched without a person, out of those matched, sent to review or without a match: <strong id="match-rate">${d.automaticMatchRate === null ? '—' : `${d.automaticMatchRate}%`}</strong>.
Provider: ${d.provider === null ? 'pace unknown' : d.provider.throttled ? `throttling us, ${esc(String(d.provider.ratePerSecond))} req/s shared by every worker` : `full rate, ${esc(String(d.provider.ratePerSecond))} req/s`}.</p>
<div class="cards">${cards}</div>
<h2>By CRM and tenant</h2>
<div class="scroll"><table id="by-tenant"><thead><tr><th>CRM</th><th>Tenant</th>${STATUSES.map((s) => `<th class="num">${esc(s.replace('_', ' '))}</th>`).join('')}</tr></thead><tbody>${rows || '<tr><td colspan="6">No accounts yet.</td></tr>'}</tbody></table></div>`,
        }),
      );
    } catch (err) {
      next(err);
    }
  });
}
