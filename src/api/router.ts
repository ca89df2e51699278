// Size: every route of the API shares the same parsing, caller and tenant checks, kept beside them; each
// route is a few lines, and the review, runs and history routes live in their own files.
// Our HTTP API for people and the CRM cards: POST /api/refresh, GET /api/jobs/:id, GET
// /api/accounts/:crm/:accountId and POST /api/accounts/:crm/:accountId/confirm (the review queue's
// routes in review-routes.ts, the runs' in runs-routes.ts, an account's write history in
// history-routes.ts, undo in undo-routes.ts). Every request is
// authenticated (authenticate.ts) over its raw bytes; a double click is one job (a per-account window
// in Redis hands back the job already queued); every refusal is JSON naming the problem.

import type { Queue } from 'bullmq';
import express, { type NextFunction, type Request, type Response } from 'express';
import type { Redis } from 'ioredis';
import { z } from 'zod';
import { crmOf } from '../../connectors/registry.ts';
import {
  AccountNotFoundError,
  type CrmConnector,
  type CrmKind,
  type InboundRequest,
} from '../../connectors/types.ts';
import { type EnrichQueueData, isBackfillJobId } from '../../queues/enrich-queue.ts';
import { PROVENANCE_FIELDS } from '../map/field-definitions.ts';
import { crmSchema, recordIdSchema, tenantIdSchema } from '../review/schemas.ts';
import { reviewService } from '../review/service.ts';
import { contentTypeProblem } from '../shared/content-type.ts';
import { formatPath } from '../shared/format-path.ts';
import { UUID } from '../shared/ids.ts';
import { firstTextProblem, jsonDepthProblem } from '../shared/text.ts';
import type { Actor } from '../store/decisions.ts';
import { entryOf, type OutcomeHistory } from '../store/history.ts';
import type { Store } from '../store/store.ts';
import { ActionProblem, refreshActions } from './actions.ts';
import { type ApiAuthOptions, authenticate, type Caller, describeCaller, mayAct } from './authenticate.ts';
import { refuseDeclaredOver } from './declared-length.ts';
import { addHistoryRoutes } from './history-routes.ts';
import { jobView } from './job-view.ts';
import { addReviewRoutes } from './review-routes.ts';
import { addRunRoutes } from './runs-routes.ts';
import { answerUnavailable, sendUnavailable } from './unavailable.ts';
import { addUndoRoutes, type UndoRouteOptions } from './undo-routes.ts';

export interface ApiOptions {
  auth: ApiAuthOptions;
  /** The public URL prefix callers use (scheme and host), when behind a proxy: signatures cover it. */
  publicBaseUrl?: string | undefined;
  queue: Queue<EnrichQueueData>;
  /** Backfill's own queue (its chunks and their accounts' jobs), where GET /api/jobs/:id looks next. */
  backfillQueue?: Queue<EnrichQueueData> | undefined;
  redis: Redis;
  prefix: string;
  history: OutcomeHistory;
  store: Pick<Store, 'open'>;
  /** The tenants served for a CRM (each CRM's canonical ids). */
  tenantsOf: (crm: CrmKind) => string[];
  connectorFor: (crm: CrmKind, tenant: string) => CrmConnector;
  attempts: number;
  /** Refresh clicks on one account within this window are one job. Default 10 s. */
  refreshWindowMs?: number;
  /** Where a real undo (POST /api/undo) is queued. */
  maintenanceQueue?: UndoRouteOptions['maintenanceQueue'];
}

const ApiProblem = ActionProblem;

const accountIdSchema = recordIdSchema;
/** A job id as jobIdOf makes them: escaped parts joined by '.'. */
const JOB_ID = /^[A-Za-z0-9_~-]{1,200}(\.[A-Za-z0-9_~-]{1,200}){1,15}$/;
const tenantSchema = tenantIdSchema.optional();
const refreshBody = z.strictObject({ crm: crmSchema, tenant: tenantSchema, accountId: accountIdSchema });
const confirmBody = z.strictObject({
  tenant: tenantSchema,
  buyerId: z.string().regex(UUID, 'must be a buyer id (a uuid)'),
});

function parse<T>(schema: z.ZodType<T, unknown>, value: unknown, what: string): T {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  throw new ApiProblem(
    400,
    'invalid_request',
    `${what} ${formatPath(issue?.path ?? [])}: ${issue?.message ?? 'invalid'}`,
  );
}

function jsonBody(raw: string): unknown {
  if (!raw.trim()) return {};
  const deep = jsonDepthProblem(raw);
  if (deep) throw new ApiProblem(400, 'malformed_json', deep);
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    throw new ApiProblem(400, 'malformed_json', 'the body is not valid JSON');
  }
  const problem = firstTextProblem(parsed, 'body');
  if (problem) throw new ApiProblem(400, 'invalid_text', problem);
  return parsed;
}

export function apiRouter(options: ApiOptions): express.Router {
  const router = express.Router();
  const actions = refreshActions(options);
  const P = PROVENANCE_FIELDS;

  /** The request's tenant: the one given (compared in its CRM's canonical form), or the only one. */
  /** Who a decision is recorded as: the API key's fingerprint, or the CRM user (in its tenant) that signed. */
  const actorOf = (caller: Caller): Actor =>
    caller.via === 'api-key'
      ? { kind: 'api-key', name: caller.key ?? 'api-key' }
      : { kind: 'crm-user', name: [caller.crm, caller.tenant, caller.user].filter(Boolean).join(' ') };

  function tenantFor(crm: CrmKind, given: string | undefined, caller: Caller): string {
    if (caller.via === 'crm' && caller.crm !== crm)
      throw new ApiProblem(403, 'forbidden', `a ${caller.crm} caller may not act on ${crm} accounts`);
    const known = options.tenantsOf(crm);
    const wanted = given ?? (caller.via === 'crm' ? caller.tenant : undefined);
    const canonical = wanted === undefined ? undefined : crmOf(crm).tenantId(wanted);
    if (wanted !== undefined && canonical === undefined)
      throw new ApiProblem(400, 'invalid_tenant', `${wanted} is not a ${crm} ${crmOf(crm).tenantNoun} id`);
    const tenant =
      wanted === undefined ? (known.length === 1 ? known[0] : undefined) : known.find((t) => t === canonical);
    if (tenant === undefined) {
      throw new ApiProblem(
        400,
        'unknown_tenant',
        wanted === undefined
          ? `give "tenant": ${known.length ? `one of ${known.join(', ')}` : `no ${crm} connection is configured`}`
          : `no ${crm} connection for tenant ${wanted}`,
      );
    }
    if (!mayAct(caller, crm, tenant))
      throw new ApiProblem(403, 'forbidden', `this caller may not act on ${crm} ${tenant}`);
    return tenant;
  }

  /** The account id in its canonical form, checked before it goes into a read or a job id. */
  const accountIdFor = (crm: CrmKind, raw: string): string => {
    const id = crmOf(crm).accountId(raw);
    if (id === undefined)
      throw new ApiProblem(400, 'invalid_account_id', `${raw} is not a ${crm} ${crmOf(crm).accountNoun} id`);
    return id;
  };

  router.use(
    (req: Request, res: Response, next: NextFunction) => {
      // A body is JSON, declared so; a bodiless request (GET, an empty POST) declares nothing.
      const declared = req.get('content-type');
      const hasBody =
        Number(req.get('content-length') ?? 0) > 0 || req.get('transfer-encoding') !== undefined;
      const problem = hasBody || declared ? contentTypeProblem(declared, ['application/json']) : undefined;
      if (problem) return void res.status(415).json({ error: 'unsupported_media_type', message: problem });
      next();
    },
    refuseDeclaredOver(64 * 1024, 'the body is larger than 64 kB'),
    express.raw({ type: () => true, limit: '64kb' }),
    async (req: Request, res: Response, next: NextFunction) => {
      const base = options.publicBaseUrl?.replace(/\/+$/, '') ?? `${req.protocol}://${req.get('host')}`;
      const headers: Record<string, string | undefined> = {};
      for (const [name, value] of Object.entries(req.headers))
        headers[name] = Array.isArray(value) ? value.join(', ') : value;
      const inbound: InboundRequest = {
        method: req.method,
        url: `${base}${req.originalUrl}`,
        headers,
        body: Buffer.isBuffer(req.body) ? req.body.toString('utf8') : '',
      };
      try {
        const outcome = await authenticate(inbound, options.auth);
        if (!outcome.ok)
          return void res.status(401).json({ error: 'unauthorized', message: outcome.message });
        const caller = outcome.caller;
        // A CRM signature that names no tenant (an older quick action) is taken only while the CRM has
        // one tenant here; where several are served it could act on any of them, so it is refused.
        if (caller.via === 'crm' && caller.tenant === undefined && options.tenantsOf(caller.crm).length !== 1)
          return void res.status(403).json({
            error: 'forbidden',
            message: `this ${caller.crm} signature names no ${crmOf(caller.crm).tenantNoun}: sign with the current version`,
          });
        res.locals.caller = caller;
        res.locals.body = inbound.body;
        next();
      } catch (err) {
        next(err);
      }
    },
  );

  const handle =
    (fn: (req: Request, res: Response, caller: Caller, body: string) => Promise<void>) =>
    (req: Request, res: Response, next: NextFunction) =>
      fn(req, res, res.locals.caller as Caller, String(res.locals.body ?? '')).catch(next);

  router.post(
    '/refresh',
    handle(async (_req, res, caller, raw) => {
      const body = parse(refreshBody, jsonBody(raw), 'body');
      const tenant = tenantFor(body.crm, body.tenant, caller);
      // The canonical id for the read as for the job (HubSpot's `021438460428` is `21438460428`).
      const accountId = accountIdFor(body.crm, body.accountId);
      // One cheap read before a job is queued: an account the CRM does not have is a 404 now, not a
      // failed job later.
      const queued = await actions.refresh(
        body.crm,
        tenant,
        accountId,
        `refresh requested via ${describeCaller(caller)}`,
        actorOf(caller),
        async () => {
          await readAccount(body.crm, tenant, accountId, []);
        },
      );
      res.status(202).json(queued);
    }),
  );

  router.get(
    '/jobs/:id',
    handle(async (req, res, caller) => {
      const id = String(req.params.id);
      // Only ids we hand out (parts joined by '.', see jobIdOf): BullMQ's own keys under the queue
      // (`meta`, `events`, `id`…) are no job and must not be read as one.
      if (!JOB_ID.test(id)) throw new ApiProblem(404, 'not_found', `no job ${id.slice(0, 40)}`);
      // The state first, then the job: a job read before its state could be "completed" without its result.
      // A backfill's chunk or account is on the backfill queue (one queued before it existed: on the
      // enrich queue), anything else on the enrich queue.
      const { backfillQueue } = options;
      const queues = !backfillQueue
        ? [options.queue]
        : isBackfillJobId(id)
          ? [backfillQueue, options.queue]
          : [options.queue, backfillQueue];
      let queue = options.queue;
      let state = 'unknown';
      for (queue of queues) {
        state = await queue.getJobState(id);
        if (state !== 'unknown') break;
      }
      const job = await queue.getJob(id);
      if (!job || !mayAct(caller, job.data.crm, job.data.tenant))
        throw new ApiProblem(404, 'not_found', `no job ${id}`);
      res.json(jobView(job, state));
    }),
  );

  router.get(
    '/accounts/:crm/:accountId',
    handle(async (req, res, caller) => {
      const crm = parse(crmSchema, req.params.crm, 'crm');
      const accountId = accountIdFor(crm, parse(accountIdSchema, req.params.accountId, 'accountId'));
      const tenant = tenantFor(crm, parse(tenantSchema, req.query.tenant, 'tenant'), caller);
      const account = await readAccount(crm, tenant, accountId);
      const f = account.fields;
      // One read of the stored outcome: the candidates, and whether a person pinned it (a rejection).
      const { outcomes } = await options.store.open();
      const outcome = await outcomes.get({ crm, tenant, accountId });
      const last = outcome ? entryOf(outcome).entry : null;
      const status = f[P.status] ?? 'never';
      const confidence = f[P.matchConfidence] ? Number(f[P.matchConfidence]) : null;
      res.json({
        crm,
        tenant,
        accountId,
        name: account.name,
        state: account.state,
        status,
        pinned: outcome?.pinned ?? false,
        buyerId: f[P.buyerId] ?? null,
        buyerName: f[P.buyerName] ?? null,
        confidence: Number.isFinite(confidence) ? confidence : null,
        explanation: f[P.matchReason] ?? null,
        lastEnrichedAt: f[P.lastEnrichedAt] ?? null,
        candidates: status === 'needs_review' ? (last?.result?.match.candidates ?? []) : [],
      });
    }),
  );

  router.post(
    '/accounts/:crm/:accountId/confirm',
    handle(async (req, res, caller, raw) => {
      const crm = parse(crmSchema, req.params.crm, 'crm');
      const accountId = accountIdFor(crm, parse(accountIdSchema, req.params.accountId, 'accountId'));
      const body = parse(confirmBody, jsonBody(raw), 'body');
      const tenant = tenantFor(crm, body.tenant, caller);
      const queued = await actions.confirm(
        crm,
        tenant,
        accountId,
        body.buyerId,
        `buyer ${body.buyerId} confirmed via ${describeCaller(caller)}`,
        actorOf(caller),
      );
      res.status(202).json({ jobId: queued.jobId });
    }),
  );

  addRunRoutes(router, { parse, handle, store: options.store });
  addUndoRoutes(router, {
    parse,
    handle,
    jsonBody,
    tenantFor,
    actorOf,
    crmSchema,
    store: options.store,
    connectorFor: options.connectorFor,
    maintenanceQueue: options.maintenanceQueue,
  });
  addHistoryRoutes(router, { parse, handle, tenantFor, store: options.store, crmSchema, accountIdSchema });

  addReviewRoutes(router, {
    review: reviewService(options),
    parse,
    jsonBody,
    tenantFor,
    actorOf,
    handle,
  });

  async function readAccount(
    crm: CrmKind,
    tenant: string,
    accountId: string,
    fields: readonly string[] = Object.values(P),
  ) {
    // The CRM's call budget lives in Redis, and a connector's connection waits for Redis to come back
    // (a worker's must): a read while it is down would hang the request, so it is answered now.
    if (options.redis.status !== 'ready')
      throw new ApiProblem(503, 'queue_unavailable', 'Redis is unavailable (not connected); retry later');
    try {
      return await options.connectorFor(crm, tenant).getAccount(accountId, fields);
    } catch (err) {
      if (err instanceof AccountNotFoundError)
        throw new ApiProblem(404, 'account_not_found', `no ${crm} account ${accountId}`);
      throw new ApiProblem(502, 'crm_unavailable', `could not read the account from ${crm}; try again`);
    }
  }

  router.use((err: unknown, _req: Request, res: Response, next: NextFunction) => {
    if (err instanceof ActionProblem && err.status === 503)
      return sendUnavailable(res, err.code, err.message);
    if (err instanceof ActionProblem)
      return void res.status(err.status).json({ error: err.code, message: err.message });
    if (answerUnavailable(res, err)) return;
    if ((err as { type?: string }).type === 'entity.too.large')
      return void res
        .status(413)
        .json({ error: 'payload_too_large', message: 'the body is larger than 64 kB' });
    next(err);
  });
  return router;
}
