// The service's HTTP surface: webhooks and our API in, health, metrics and the operator pages out. Every
// request gets a request id (X-Request-Id, taken from the caller when it sends a sane one) that is on
// its log line; every error answer is JSON naming the problem.
import { randomUUID } from 'node:crypto';
import { createBullBoard } from '@bull-board/api';
import { BullMQAdapter } from '@bull-board/api/bullMQAdapter';
import { ExpressAdapter } from '@bull-board/express';
import type { Queue } from 'bullmq';
import express, { type NextFunction, type Request, type Response } from 'express';
import type { Registry } from 'prom-client';
import { adminHeaders, boardWritesFromItsPage, nonceOnPages, sameOriginOnly } from '../admin/protect.ts';
import { OPENAPI, renderApiDocs } from '../api/openapi.ts';
import { answerUnavailable, RETRY_AFTER_SECONDS } from '../api/unavailable.ts';
import { basicAuth } from '../observe/admin-auth.ts';
import type { Logger } from '../observe/logger.ts';
import { sameText } from '../shared/compare.ts';
import { firstTextProblem } from '../shared/text.ts';
import { unavailableDependency } from '../shared/unavailable.ts';

export interface HttpAppParts {
  /** Each event source's receiver (a CRM, the provider), served at /webhooks/<source>. */
  webhooks?: Record<string, express.Router>;
  /** Our API, served at /api. */
  api?: express.Router;
  /** Routes a CRM adds (e.g. its app's install flow), each at its path. */
  routes?: { path: string; router: express.Router }[];
  ready?: () => Promise<boolean>;
  /** Served at /metrics in Prometheus text format, to a caller with the bearer `token` when one is set. */
  metrics?: { registry: Registry; token?: string | undefined };
  /** Serve /api/openapi.json and /api/docs without the API key. Default: behind it. */
  apiDocsPublic?: boolean;
  /** The public URL prefix (scheme and host) the admin pages are served at, when behind a proxy. */
  publicBaseUrl?: string | undefined;
  logger?: Logger;
  /** Bull Board at /admin/queues (and other operator pages under /admin) behind basic auth. */
  admin?: { username: string; password: string; queues: Queue[]; pages?: express.Router };
}

const REQUEST_ID = /^[A-Za-z0-9._-]{8,128}$/;

/**
 * Bull Board answers a Redis outage with its own 500 and the driver's words: its error handler is
 * replaced by one giving the 503 every other route gives (Retry-After set on the way out), and
 * Bull Board's own answer to anything else.
 */
function boardOutagesAre503(board: ExpressAdapter): express.RequestHandler {
  // Its type lists only the codes Bull Board sends itself; express sends any.
  type BoardStatus = 500;
  board.setErrorHandler((err: Error & { statusCode?: number }) => {
    const down = unavailableDependency(err);
    if (down) {
      const message = `${down.dependency} is unavailable (${down.reason}); retry later`;
      return { status: 503 as BoardStatus, body: { error: down.error, message } };
    }
    return {
      status: (err.statusCode ?? 500) as BoardStatus,
      body: { error: { key: 'ERRORS.INTERNAL_SERVER_ERROR' }, message: err.message },
    };
  });
  return (_req, res, next) => {
    const status = res.status.bind(res);
    res.status = (code: number) => {
      if (code === 503) res.set('Retry-After', String(RETRY_AFTER_SECONDS));
      return status(code);
    };
    next();
  };
}

/** /metrics: the registry in Prometheus text format, to the bearer of `token` when one is set. */
export function metricsHandler(registry: Registry, token: string | undefined): express.RequestHandler {
  return async (req, res, next) => {
    const bearer = /^Bearer\s+(\S+)$/i.exec(req.get('authorization') ?? '')?.[1];
    if (token !== undefined && !(bearer && sameText(bearer, token)))
      return void res
        .status(401)
        .set('WWW-Authenticate', 'Bearer realm="metrics"')
        .json({ error: 'unauthorized', message: 'send Authorization: Bearer <METRICS_TOKEN>' });
    try {
      res.type(registry.contentType).send(await registry.metrics());
    } catch (err) {
      next(err);
    }
  };
}

export function createHttpApp(parts: HttpAppParts): express.Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', true);

  app.use((req: Request, res: Response, next: NextFunction) => {
    const given = req.get('x-request-id');
    const requestId = given && REQUEST_ID.test(given) ? given : randomUUID();
    res.locals.requestId = requestId;
    res.set('X-Request-Id', requestId);
    const started = performance.now();
    // The matched route's pattern (`/api/accounts/:crm/:accountId`), taken when the router sets
    // req.route: only then is req.baseUrl that of the router that matched (an error answered later
    // by the app's handler would see another).
    let route: string | undefined;
    let current: unknown;
    Object.defineProperty(req, 'route', {
      configurable: true,
      enumerable: true,
      get: () => current,
      set: (value: { path?: unknown } | undefined) => {
        current = value;
        if (typeof value?.path === 'string') route = `${req.baseUrl}${value.path}`;
      },
    });
    res.on('finish', () => {
      // Never the query string: a Salesforce endpoint token or an OAuth code travels in it.
      parts.logger?.info(
        {
          requestId,
          method: req.method,
          route: route ?? null,
          path: req.originalUrl.split('?')[0],
          status: res.statusCode,
          durationMs: Math.round(performance.now() - started),
          // A webhook's run and the jobs it queued (receiver.ts), linking the delivery to their lines.
          ...(res.locals.queued ?? {}),
        },
        'http request',
      );
    });
    next();
  });

  // Text no route can use (a NUL, a lone surrogate) is refused in any query before a route reads it.
  app.use((req: Request, res: Response, next: NextFunction) => {
    const problem = req.url.includes('?') ? firstTextProblem(req.query, 'query') : undefined;
    if (problem) return void res.status(400).json({ error: 'invalid_text', message: problem });
    next();
  });

  app.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  app.get('/readyz', async (_req, res) => {
    const ready = parts.ready ? await parts.ready().catch(() => false) : true;
    res.status(ready ? 200 : 503).json({ status: ready ? 'ready' : 'not ready' });
  });
  if (parts.metrics) app.get('/metrics', metricsHandler(parts.metrics.registry, parts.metrics.token));
  if (parts.admin) {
    const board = new ExpressAdapter();
    board.setBasePath('/admin/queues');
    createBullBoard({ queues: parts.admin.queues.map((q) => new BullMQAdapter(q)), serverAdapter: board });
    const guard = basicAuth(parts.admin.username, parts.admin.password);
    const sameOrigin = sameOriginOnly(parts.publicBaseUrl);
    app.use(
      '/admin/queues',
      adminHeaders({ thirdPartyUi: true }),
      guard,
      boardWritesFromItsPage(parts.publicBaseUrl),
      boardOutagesAre503(board),
      board.getRouter(),
    );
    if (parts.admin.pages)
      app.use('/admin', adminHeaders(), guard, sameOrigin, nonceOnPages, parts.admin.pages);
  }
  for (const [source, router] of Object.entries(parts.webhooks ?? {})) app.use(`/webhooks/${source}`, router);
  for (const route of parts.routes ?? []) app.use(route.path, route.router);
  if (parts.api) {
    // The description of the API is public only when configured so; otherwise the API's own
    // authentication (in parts.api) comes first.
    const docs = express.Router();
    docs.get('/openapi.json', (_req, res) => {
      res.json(OPENAPI);
    });
    docs.get('/docs', (_req, res) => {
      res.type('html').send(renderApiDocs());
    });
    if (parts.apiDocsPublic) app.use('/api', docs);
    app.use('/api', parts.api, docs);
  }
  app.use((_req, res) => {
    res.status(404).json({ error: 'not_found', message: 'no such endpoint' });
  });
  app.use((err: unknown, _req: Request, res: Response, _next: NextFunction) => {
    const e = err as { type?: string; status?: number };
    if (e.type === 'entity.too.large')
      return void res.status(413).json({ error: 'payload_too_large', message: 'the body is too large' });
    if (e.type === 'entity.parse.failed')
      return void res
        .status(400)
        .json({ error: 'malformed_json', message: `the body is not valid JSON: ${(err as Error).message}` });
    if (e.status && e.status >= 400 && e.status < 500)
      return void res
        .status(e.status)
        .json({ error: 'bad_request', message: 'the request could not be read' });
    // A dependency that is down (the Bull Board's Redis, a webhook's store) is a 503, not a bug.
    if (answerUnavailable(res, err)) return;
    parts.logger?.error({ requestId: res.locals.requestId, err }, 'unhandled error');
    res.status(500).json({ error: 'internal', message: 'internal error', requestId: res.locals.requestId });
  });
  return app;
}
