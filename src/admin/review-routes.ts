// /admin/review and its decisions (/admin/api/review/*): the review service with the admin user as the
// actor. The page's query goes through the same schema as the API's; bodies must be JSON.
import type express from 'express';
import { z } from 'zod';
import { readStore } from '../api/history-routes.ts';
import { ActionProblem } from '../review/problem.ts';
import {
  approveFilterSchema,
  approveSelectionSchema,
  canonicalAccount,
  crmSchema,
  decodeGroupCursor,
  encodeGroupCursor,
  outcomeFilterOf,
  pageOf,
  recordIdSchema,
  reviewQuerySchema,
  tenantIdSchema,
} from '../review/schemas.ts';
import type { ReviewService } from '../review/service.ts';
import type { Actor } from '../store/decisions.ts';
import type { Store } from '../store/store.ts';
import { queryOf, valid } from './query.ts';
import type { RecordUrl } from './record-link.ts';
import { groupViewOf } from './review-groups.ts';
import { renderReviewPage } from './review-page.ts';

const account = z.strictObject({ crm: crmSchema, tenant: tenantIdSchema, accountId: recordIdSchema });
const confirmBody = account.extend({ buyerId: recordIdSchema });
const rejectBody = account.extend({ reason: z.string().trim().min(1).max(500) });
const researchBody = account
  .extend({
    name: z.string().trim().min(1).max(300).optional(),
    state: z.string().trim().min(1).max(64).optional(),
  })
  .refine((b) => b.name !== undefined || b.state !== undefined, 'give a name or a state to search with');
// Previous goes back through the cursors of the pages before (keyset paging has no offsets).
const trailSchema = z
  .string()
  .max(20_000)
  .regex(/^[A-Za-z0-9_.-]*$/, 'must be the trail of a previous page')
  .optional();

// The page always names the tenant of each account it shows.
const approveBody = z.union([
  approveSelectionSchema.extend({
    accounts: z.array(account).min(1).max(1000),
  }),
  approveFilterSchema,
]);

/** The duplicates tab: groups, keyset-paged by the group cursor the API hands out too. */
async function groupsPage(
  review: ReviewService,
  sort: 'confidence' | 'date',
  after: string | undefined,
  limit: number,
): Promise<string> {
  const key = after === undefined ? undefined : decodeGroupCursor(after);
  if (key === null)
    throw new ActionProblem(400, 'invalid_request', 'after: must be the `next` of a previous page');
  const [counts, found] = await Promise.all([
    review.counts({}),
    review.duplicates({}, { limit: Math.min(limit, 200), after: key }),
  ]);
  return renderReviewPage({
    filter: { cohort: 'duplicates' },
    sort,
    counts,
    rows: [],
    next: found.next ? encodeGroupCursor(found.next) : null,
    groups: found.groups.map(groupViewOf),
  });
}

export function addAdminReviewRoutes(
  router: express.Router,
  options: {
    review: ReviewService;
    /** The page's total and one account's outcome (a re-search shown in place) are read from it. */
    store: Pick<Store, 'open'>;
    actor: Actor;
    recordUrl?: RecordUrl | undefined;
    json: express.RequestHandler;
    body: <T>(schema: z.ZodType<T>, req: express.Request) => T;
  },
): void {
  const { review, store, actor, json, body } = options;
  const key = (a: z.infer<typeof account>) => ({ crm: a.crm, tenant: a.tenant, accountId: a.accountId });

  router.get('/review', async (req, res, next) => {
    try {
      const { trail: trailText, ...query } = queryOf(req.query);
      const trail = (valid(trailSchema, trailText, 'query trail') ?? '').split('.').filter(Boolean);
      const parsed = reviewQuerySchema.safeParse({ cohort: 'needs_review', ...query });
      if (!parsed.success) {
        const issue = parsed.error.issues[0];
        throw new ActionProblem(
          400,
          'invalid_request',
          `${issue?.path.join('.') ?? 'query'}: ${issue?.message ?? 'invalid'}`,
        );
      }
      const { sort, direction, after, limit, ...filter } = parsed.data;
      if (filter.cohort === 'duplicates') {
        res.type('html').send(await groupsPage(review, sort, after, limit));
        return;
      }
      const outcomeFilter = outcomeFilterOf(filter);
      const [listed, total] = await Promise.all([
        review.list(outcomeFilter, pageOf({ sort, direction, after, limit })),
        readStore(store, ({ outcomes }) => outcomes.count(outcomeFilter), 'the review queue'),
      ]);
      await options.recordUrl?.prepare?.(listed.rows);
      res.type('html').send(
        renderReviewPage({
          recordUrl: options.recordUrl,
          limit,
          total,
          offset: after ? (trail.length + 1) * limit : 0,
          trail,
          after,
          filter,
          sort,
          ...listed,
        }),
      );
    } catch (err) {
      next(err);
    }
  });

  // One account's outcome as the review page shows it: the page polls it after a re-search.
  router.get('/api/review/outcome', async (req, res, next) => {
    try {
      const a = valid(account, queryOf(req.query), 'query');
      const one = canonicalAccount(key(a));
      const o = await readStore(store, ({ outcomes }) => outcomes.get(one), 'the account');
      if (!o)
        throw new ActionProblem(404, 'not_found', `no outcome recorded for ${a.crm} account ${a.accountId}`);
      res.set('cache-control', 'no-store').json({
        status: o.status,
        cohort: o.cohort,
        updatedAt: o.updatedAt.toISOString(),
        reason: o.reason,
        error: o.error,
        buyerName: o.buyerName,
        confidence: o.confidence,
        candidates: [...o.candidates].sort((x, y) => y.score - x.score).slice(0, 5),
      });
    } catch (err) {
      next(err);
    }
  });

  const act =
    (fn: (req: express.Request) => Promise<unknown>): express.RequestHandler =>
    async (req, res, next) => {
      try {
        const result = await fn(req);
        res.status(202).json(result);
      } catch (err) {
        next(err);
      }
    };

  router.post(
    '/api/review/confirm',
    json,
    act(async (req) => {
      const a = body(confirmBody, req);
      return review.confirm(key(a), a.buyerId, actor);
    }),
  );
  router.post(
    '/api/review/reject',
    json,
    act(async (req) => {
      const a = body(rejectBody, req);
      return review.reject(key(a), a.reason, actor);
    }),
  );
  router.post(
    '/api/review/research',
    json,
    act(async (req) => {
      const a = body(researchBody, req);
      return review.research(key(a), { name: a.name, state: a.state }, actor);
    }),
  );
  router.post(
    '/api/review/approve',
    json,
    act(async (req) => {
      const a = body(approveBody, req);
      if ('accounts' in a) return review.approve({ accounts: a.accounts.map(key) }, actor, a.preview);
      return review.approve({ filter: outcomeFilterOf(a.filter), floor: a.floor }, actor, a.preview);
    }),
  );
}
