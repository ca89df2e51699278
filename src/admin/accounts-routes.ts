// /admin/accounts (accounts-page.ts) and /admin/export/accounts.csv: the outcomes table through the
// store's keyset listing and count, so a page costs one limited query and one count at any size, and an
// export streams 500 rows a query with backpressure (constant memory however many accounts).
import type express from 'express';
import { z } from 'zod';
import { readStore } from '../api/history-routes.ts';
import type { OutcomeFilter } from '../store/outcomes.ts';
import { COHORTS } from '../store/schema.ts';
import type { Store } from '../store/store.ts';
import { type AccountsFilterView, filterQuery, renderAccountsPage } from './accounts-page.ts';
import { csvLine, writeWithBackpressure } from './csv.ts';
import { queryOf, valid } from './query.ts';
import type { RecordUrl } from './record-link.ts';

const PAGE = 50;
const short = z.string().trim().min(1).max(100);
const filterSchema = z.strictObject({
  q: z.string().trim().max(200).optional(),
  cohort: z.enum(COHORTS).optional(),
  crm: short.optional(),
  tenant: short.optional(),
  buyerType: short.optional(),
  state: short.optional(),
  minConfidence: z.coerce.number().min(0).max(1).optional(),
});
const pageSchema = filterSchema.extend({
  after: z.string().max(200).optional(),
  trail: z
    .string()
    .max(20_000)
    .regex(/^[A-Za-z0-9_.-]*$/)
    .optional(),
});

const outcomeFilter = (f: AccountsFilterView): OutcomeFilter => ({
  name: f.q,
  cohort: f.cohort as OutcomeFilter['cohort'],
  crm: f.crm,
  tenant: f.tenant,
  buyerType: f.buyerType,
  state: f.state,
  minConfidence: f.minConfidence,
});

const HEADER = [
  'crm',
  'tenant',
  'account_id',
  'account_name',
  'status',
  'cohort',
  'buyer_id',
  'buyer_name',
  'buyer_type',
  'state',
  'confidence',
  'updated_at',
];

export function addAdminAccountsRoutes(
  router: express.Router,
  options: { store: Pick<Store, 'open'>; recordUrl?: RecordUrl | undefined },
): void {
  const { store } = options;

  router.get('/accounts', async (req, res, next) => {
    try {
      const { after, trail: trailText, ...filter } = valid(pageSchema, queryOf(req.query), 'query');
      const trail = trailText ? trailText.split('.').filter(Boolean) : [];
      const {
        rows,
        next: cursor,
        total,
      } = await readStore(
        store,
        async ({ outcomes }) => {
          const f = outcomeFilter(filter);
          const [page, total] = await Promise.all([
            outcomes.list(f, { sort: 'date', direction: 'desc', limit: PAGE, after }),
            outcomes.count(f),
          ]);
          return { ...page, total };
        },
        'the accounts',
      );
      const offset = after ? (trail.length + 1) * PAGE : 0;
      const href = (a: string | undefined, t: string[]) =>
        `/admin/accounts${filterQuery(filter, { ...(a ? { after: a } : {}), ...(t.length ? { trail: t.join('.') } : {}) })}`;
      res.type('html').send(
        renderAccountsPage({
          recordUrl: options.recordUrl,
          filter,
          rows,
          total,
          offset,
          next: cursor ? href(cursor, after ? [...trail, after] : []) : null,
          prev: after ? href(trail.at(-1), trail.slice(0, -1)) : null,
        }),
      );
    } catch (err) {
      next(err);
    }
  });

  router.get('/export/accounts.csv', async (req, res, next) => {
    let started = false;
    try {
      const filter = outcomeFilter(valid(filterSchema, queryOf(req.query), 'query'));
      const { outcomes } = await readStore(store, async (repos) => repos, 'the accounts');
      res.status(200);
      res.setHeader('content-type', 'text/csv; charset=utf-8');
      res.setHeader('content-disposition', 'attachment; filename="accounts.csv"');
      started = true;
      await writeWithBackpressure(res, csvLine(HEADER));
      let after: string | undefined;
      do {
        if (res.destroyed) return;
        const page = await outcomes.list(filter, { sort: 'date', direction: 'desc', limit: 500, after });
        const chunk = page.rows
          .map((o) =>
            csvLine([
              o.crm,
              o.tenant,
              o.accountId,
              o.accountName,
              o.status,
              o.cohort,
              o.buyerId,
              o.buyerName,
              o.buyerType,
              o.state,
              o.confidence,
              o.updatedAt.toISOString(),
            ]),
          )
          .join('');
        if (chunk) await writeWithBackpressure(res, chunk);
        after = page.next ?? undefined;
      } while (after);
      res.end();
    } catch (err) {
      if (started) res.destroy(err instanceof Error ? err : undefined);
      else next(err);
    }
  });
}
