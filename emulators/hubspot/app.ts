// Express app that emulates the HubSpot CRM APIs the product uses — companies, notes, properties and
// property groups (v3), associations (v4), owners (v3), the account's details (account-info v3),
// OAuth tokens — closely enough for the unmodified @hubspot/api-client to run against it, plus
// HubSpot-style webhooks and sandbox-only knobs under /__sandbox. Every response carries
// X-HubSpot-Correlation-Id; errors use HubSpot's bodies.

import { randomUUID } from 'node:crypto';
import express, { type NextFunction, type Request, type Response } from 'express';
import { conformanceCheck } from '../shared/conformance.ts';
import { CallStats, FaultPlan, type FaultSettings } from '../shared/faults.ts';
import { type AuthOptions, AuthRegistry } from './auth.ts';
import { controlPlane } from './control.ts';
import {
  CORRELATION_HEADER,
  HubSpotError,
  malformedJson,
  resourceNotFound,
  sendHubSpotError,
} from './errors.ts';
import { type OperationContext, registerOperations } from './operation.ts';
import { HubSpotRateLimits, type RateLimitOptions } from './rate-limit.ts';
import { HUBSPOT_REFERENCE } from './reference.ts';
import { registerAccountInfoRoutes } from './routes/account-info.ts';
import { registerAssociationRoutes } from './routes/associations.ts';
import { registerCompanyRoutes } from './routes/companies.ts';
import { registerNoteRoutes } from './routes/notes.ts';
import { registerOAuthRoutes } from './routes/oauth.ts';
import { registerOwnerRoutes } from './routes/owners.ts';
import { registerPropertyRoutes } from './routes/properties.ts';
import { registerTaskRoutes } from './routes/tasks.ts';
import { type ChangeSource, HubSpotStore, type StoreOptions } from './store.ts';
import { WebhookSender, type WebhookSettings } from './webhooks.ts';

export interface HubSpotSandboxOptions extends StoreOptions {
  /** A prepared portal; otherwise one is created from the store options. */
  store?: HubSpotStore;
  auth?: AuthOptions;
  /** HubSpot's limits; `false` makes them unreachable (headers are still sent). */
  rateLimits?: RateLimitOptions | false;
  faults?: Partial<FaultSettings>;
  /** Seed for the random fault dice. */
  faultSeed?: number;
  webhooks?: WebhookSettings;
  /** changeSource of writes made through the API. Default INTEGRATION (sourceId: the app id). */
  apiChangeSource?: ChangeSource;
  /** Largest accepted JSON body. Default 4 MiB. */
  maxBodyBytes?: number;
}

export interface HubSpotSandbox {
  app: express.Express;
  store: HubSpotStore;
  auth: AuthRegistry;
  limits: HubSpotRateLimits;
  faults: FaultPlan;
  stats: CallStats;
  webhooks: WebhookSender;
}

const UNREACHABLE: RateLimitOptions = {
  tenSecondly: Number.MAX_SAFE_INTEGER,
  oauthTenSecondly: Number.MAX_SAFE_INTEGER,
  daily: Number.MAX_SAFE_INTEGER,
  search: false,
};

export function createHubSpotSandbox(options: HubSpotSandboxOptions = {}): HubSpotSandbox {
  const store = options.store ?? new HubSpotStore(options);
  const auth = new AuthRegistry(store.portalId, store.userId, options.auth);
  const limits = new HubSpotRateLimits(options.rateLimits === false ? UNREACHABLE : options.rateLimits);
  const faults = new FaultPlan(options.faults, options.faultSeed);
  const stats = new CallStats();
  const webhooks = new WebhookSender(
    store,
    { appId: auth.appId, portalId: store.portalId, clientSecret: auth.clientSecret },
    options.webhooks,
  );

  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.use(conformanceCheck(HUBSPOT_REFERENCE));
  app.use((_req, res, next) => {
    res.setHeader(CORRELATION_HEADER, randomUUID());
    next();
  });

  app.use('/__sandbox', controlPlane({ store, auth, faults, stats, webhooks }));

  const ctx: OperationContext = {
    store,
    auth,
    limits,
    faults,
    stats,
    apiChangeSource: options.apiChangeSource ?? 'INTEGRATION',
  };
  const oauth = express.Router();
  registerOAuthRoutes(oauth, ctx);
  app.use(oauth);

  // CRM bodies are JSON; anything else is 415 before it is parsed.
  app.use((req, res, next) => {
    const hasBody =
      Number(req.headers['content-length'] ?? 0) > 0 || req.headers['transfer-encoding'] !== undefined;
    if (hasBody && !req.is('application/json')) {
      return sendHubSpotError(
        res,
        new HubSpotError(415, {
          status: 'error',
          message: `Unsupported Media Type: ${req.headers['content-type'] ?? 'none'}; send application/json`,
          category: 'VALIDATION_ERROR',
        }),
      );
    }
    next();
  });
  app.use(express.json({ limit: options.maxBodyBytes ?? 4 * 1024 * 1024 }));

  const router = express.Router();
  registerOperations(router, ctx, [
    registerCompanyRoutes,
    registerNoteRoutes,
    registerTaskRoutes,
    registerPropertyRoutes,
    registerAssociationRoutes,
    registerOwnerRoutes,
    registerAccountInfoRoutes,
  ]);
  app.use(router);

  app.use((_req, res) => sendHubSpotError(res, resourceNotFound()));
  app.use((err: unknown, _req: Request, res: Response, _next: NextFunction) => {
    if (err instanceof HubSpotError) return sendHubSpotError(res, err);
    const e = err as { type?: string; message?: string };
    if (e.type === 'entity.parse.failed')
      return sendHubSpotError(res, malformedJson(e.message ?? 'malformed JSON'));
    if (e.type === 'entity.too.large') {
      return sendHubSpotError(
        res,
        new HubSpotError(413, {
          status: 'error',
          message: 'Request entity too large',
          category: 'VALIDATION_ERROR',
        }),
      );
    }
    sendHubSpotError(
      res,
      new HubSpotError(500, { status: 'error', message: 'internal error', category: 'INTERNAL_ERROR' }),
    );
  });

  return { app, store, auth, limits, faults, stats, webhooks };
}
