// The service's HTTP surface: webhooks in, health out. Every error answer is JSON naming the problem.
import express, { type NextFunction, type Request, type Response } from 'express';
import type { CrmKind } from '../../connectors/types.ts';

export interface HttpAppParts {
  /** Each CRM's event receiver, served at /webhooks/<crm>. */
  webhooks?: Partial<Record<CrmKind, express.Router>>;
  /** Our API, served at /api. */
  api?: express.Router;
  ready?: () => Promise<boolean>;
}

export function createHttpApp(parts: HttpAppParts): express.Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', true);
  app.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  app.get('/readyz', async (_req, res) => {
    const ready = parts.ready ? await parts.ready().catch(() => false) : true;
    res.status(ready ? 200 : 503).json({ status: ready ? 'ready' : 'not ready' });
  });
  for (const [crm, router] of Object.entries(parts.webhooks ?? {})) app.use(`/webhooks/${crm}`, router);
  if (parts.api) app.use('/api', parts.api);
  app.use((_req, res) => {
    res.status(404).json({ error: 'not_found', message: 'no such endpoint' });
  });
  app.use((err: unknown, _req: Request, res: Response, _next: NextFunction) => {
    const e = err as { type?: string; status?: number };
    if (e.type === 'entity.too.large')
      return void res.status(413).json({ error: 'payload_too_large', message: 'the body is too large' });
    if (e.status && e.status >= 400 && e.status < 500)
      return void res
        .status(e.status)
        .json({ error: 'bad_request', message: 'the request could not be read' });
    res.status(500).json({ error: 'internal', message: 'internal error' });
  });
  return app;
}
