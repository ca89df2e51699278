// The review queue's API under /api (same authentication as the rest): the queue (counts and a page),
// duplicates groups, bulk approve (with preview), and reject / clear / re-search of one account. A
// CRM-signed caller sees and acts on its own CRM (and tenant) only.
import type express from 'express';
import type { z } from 'zod';
import type { CrmKind } from '../../connectors/types.ts';
import { ActionProblem } from '../review/problem.ts';
import {
  type approveFilterSchema,
  approveSchemaFor,
  type approveSelectionSchema,
  clearBodySchema,
  crmSchema,
  decodeGroupCursor,
  duplicatesQuerySchema,
  encodeGroupCursor,
  outcomeFilterOf,
  pageOf,
  recordIdSchema,
  rejectBodySchema,
  researchBodySchema,
  reviewQuerySchema,
} from '../review/schemas.ts';
import type { ReviewService } from '../review/service.ts';
import type { Actor } from '../store/decisions.ts';
import type { Caller } from './authenticate.ts';

export interface ReviewRouteContext {
  review: ReviewService;
  parse: <T>(schema: z.ZodType<T, unknown>, value: unknown, what: string) => T;
  jsonBody: (raw: string) => unknown;
  tenantFor: (crm: CrmKind, given: string | undefined, caller: Caller) => string;
  actorOf: (caller: Caller) => Actor;
  handle: (
    fn: (req: express.Request, res: express.Response, caller: Caller, body: string) => Promise<void>,
  ) => express.RequestHandler;
}

/** Where a listing may look: an API key anywhere it asks; a CRM caller in its own CRM and tenant. */
function scopeOf(caller: Caller, crm: CrmKind | undefined, tenant: string | undefined) {
  if (caller.via === 'api-key') return { crm, tenant };
  if (crm !== undefined && crm !== caller.crm)
    throw new ActionProblem(403, 'forbidden', `a ${caller.crm} caller may not see ${crm} accounts`);
  if (caller.tenant !== undefined && tenant !== undefined && tenant !== caller.tenant)
    throw new ActionProblem(403, 'forbidden', `this caller may not see ${caller.crm} ${tenant}`);
  return { crm: caller.crm, tenant: caller.tenant ?? tenant };
}

/** A query string as one value per name (a name given twice is refused: the message says which). */
export const plainQuery = (q: express.Request['query']): Record<string, unknown> => {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(q)) {
    if (Array.isArray(v)) throw new ActionProblem(400, 'invalid_request', `query ${k}: give it once`);
    out[k] = v;
  }
  return out;
};

export function addReviewRoutes(router: express.Router, ctx: ReviewRouteContext): void {
  const { review, parse, jsonBody, tenantFor, actorOf, handle } = ctx;

  router.get(
    '/review',
    handle(async (req, res, caller) => {
      const query = parse(reviewQuerySchema, plainQuery(req.query), 'query');
      const scope = scopeOf(caller, query.crm, query.tenant);
      const { sort, direction, after, limit, ...filter } = query;
      const listed = await review.list(
        outcomeFilterOf({ ...filter, ...scope }),
        pageOf({ sort, direction, after, limit }),
      );
      res.json(listed);
    }),
  );

  router.get(
    '/review/duplicates',
    handle(async (req, res, caller) => {
      const query = parse(duplicatesQuerySchema, plainQuery(req.query), 'query');
      const after = query.after === undefined ? undefined : decodeGroupCursor(query.after);
      if (after === null)
        throw new ActionProblem(400, 'invalid_request', 'query after: must be the `next` of a previous page');
      const found = await review.duplicates(scopeOf(caller, query.crm, query.tenant), {
        limit: query.limit,
        after,
      });
      res.json({ groups: found.groups, next: found.next ? encodeGroupCursor(found.next) : null });
    }),
  );

  router.post(
    '/review/approve',
    handle(async (_req, res, caller, raw) => {
      const given = jsonBody(raw);
      const body: z.infer<typeof approveSelectionSchema> | z.infer<typeof approveFilterSchema> = parse(
        approveSchemaFor(given) as z.ZodType<
          z.infer<typeof approveSelectionSchema> | z.infer<typeof approveFilterSchema>,
          unknown
        >,
        given,
        'body',
      );
      const actor = actorOf(caller);
      const result =
        'accounts' in body
          ? await review.approve(
              {
                accounts: body.accounts.map((a) => ({
                  crm: a.crm,
                  tenant: tenantFor(a.crm, a.tenant, caller),
                  accountId: a.accountId,
                })),
              },
              actor,
              body.preview,
            )
          : await review.approve(
              {
                filter: outcomeFilterOf({
                  ...body.filter,
                  ...scopeOf(caller, body.filter.crm, body.filter.tenant),
                }),
                floor: body.floor,
              },
              actor,
              body.preview,
            );
      res.status(result.preview ? 200 : 202).json(result);
    }),
  );

  const account = (req: express.Request, caller: Caller, tenant: string | undefined) => {
    const crm = parse(crmSchema, req.params.crm, 'crm');
    const accountId = parse(recordIdSchema, req.params.accountId, 'accountId');
    return { crm, tenant: tenantFor(crm, tenant, caller), accountId };
  };

  router.post(
    '/accounts/:crm/:accountId/reject',
    handle(async (req, res, caller, raw) => {
      const body = parse(rejectBodySchema, jsonBody(raw), 'body');
      res
        .status(202)
        .json(await review.reject(account(req, caller, body.tenant), body.reason, actorOf(caller)));
    }),
  );
  router.post(
    '/accounts/:crm/:accountId/clear',
    handle(async (req, res, caller, raw) => {
      const body = parse(clearBodySchema, jsonBody(raw), 'body');
      res.status(202).json(await review.clear(account(req, caller, body.tenant), actorOf(caller)));
    }),
  );
  router.post(
    '/accounts/:crm/:accountId/research',
    handle(async (req, res, caller, raw) => {
      const body = parse(researchBodySchema, jsonBody(raw), 'body');
      const { tenant, ...edit } = body;
      res.status(202).json(await review.research(account(req, caller, tenant), edit, actorOf(caller)));
    }),
  );
}
