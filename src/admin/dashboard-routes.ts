// /admin/dashboard and /admin/api/dashboard (dashboard-data.ts, dashboard-page.ts), and the two
// scripts the page loads from our own origin — the CSP allows 'self' and no CDN: chart.js's UMD build,
// sent from node_modules as installed (resolved through the package, so its version is the lockfile's),
// and our script that draws the charts (dashboard-script.ts).
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type express from 'express';
import type { Store } from '../store/store.ts';
import { type BudgetSources, dashboardData } from './dashboard-data.ts';
import { renderDashboard } from './dashboard-page.ts';
import { DASHBOARD_SCRIPT } from './dashboard-script.ts';
import type { ProviderRate } from './runs-list-routes.ts';

const CHART_JS = join(dirname(createRequire(import.meta.url).resolve('chart.js')), 'chart.umd.min.js');

export function addAdminDashboardRoutes(
  router: express.Router,
  options: {
    store: Pick<Store, 'open'>;
    rate?: ProviderRate | undefined;
    budgets?: BudgetSources | undefined;
  },
): void {
  const budgets = options.budgets ?? {};
  router.get('/api/dashboard', async (_req, res, next) => {
    try {
      res.set('cache-control', 'no-store').json(await dashboardData(options.store, options.rate, budgets));
    } catch (err) {
      next(err);
    }
  });
  router.get('/dashboard', async (_req, res, next) => {
    try {
      const now = new Date();
      res
        .set('cache-control', 'no-store')
        .type('html')
        .send(renderDashboard(await dashboardData(options.store, options.rate, budgets, now), now));
    } catch (err) {
      next(err);
    }
  });
  router.get('/assets/chart.umd.min.js', (_req, res, next) => {
    res.sendFile(
      CHART_JS,
      { maxAge: '1d', headers: { 'content-type': 'text/javascript; charset=utf-8' } },
      (err) => {
        if (err) next(err);
      },
    );
  });
  router.get('/assets/dashboard.js', (_req, res) => {
    res.set('cache-control', 'private, max-age=300').type('text/javascript').send(DASHBOARD_SCRIPT);
  });
}
