// /admin/accounts (accounts-page.ts) and /admin/export/accounts.csv: the outcomes table through the
// store's keyset listing and count, so a page costs one limited query and one count at any size, and an
// export streams 500 rows a query with backpressure, its first page read before the first byte (constant memory however many accounts).
import type express from 'express';
import { z } from 'zod';
import { readStore } from '../api/history-routes.ts';
import type { OutcomeFilter } from '../store/outcomes.ts';
import { COHORTS } from '../store/schema.ts';
import type { Store } from '../store/store.ts';
import { type AccountsFilterView, filterQuery, renderAccountsPage } from './accounts-page.ts';
import { keysetPages, streamCsv } from './csv.ts';
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
      await options.recordUrl?.prepare?.(rows);
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
    try {
      const filter = outcomeFilter(valid(filterSchema, queryOf(req.query), 'query'));
      // Each page through readStore, the first before any byte is sent: a store that stops answering
      // is a 503 naming it, not a 200 cut off after the header (streamCsv, as review.csv does).
      const pages = keysetPages((after) =>
        readStore(
          store,
          ({ outcomes }) => outcomes.list(filter, { sort: 'date', direction: 'desc', limit: 500, after }),
          'the accounts',
        ),
      );
      await streamCsv(res, 'accounts.csv', HEADER, pages, (o) => [
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
      ]);
    } catch (err) {
      next(err);
    }
  });
}
