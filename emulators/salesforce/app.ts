// Express app that emulates the Salesforce APIs the product uses — OAuth token endpoint, REST sObject
// rows, sObject Collections, SOQL query with paging, the Metadata API's CustomField upsert and read
// (SOAP, metadata.ts) — closely enough for the unmodified jsforce 3 to run against it, plus Outbound
// Messages, the Streaming API's Account change events (CometD, streaming.ts) and sandbox-only knobs
// under /__sandbox. Errors use Salesforce's array bodies; every REST answer carries Sforce-Limit-Info.
import express, { type NextFunction, type Request, type Response } from 'express';
import { conformanceCheck } from '../shared/conformance.ts';
import { CallStats, FaultPlan, type FaultSettings, SlidingWindowLimiter } from '../shared/faults.ts';
import { type AuthOptions, AuthRegistry } from './auth.ts';
import { controlPlane } from './control.ts';
import { jsonParserError, notFound, SalesforceError, sendSalesforceError } from './errors.ts';
import { registerMetadataRoutes } from './metadata.ts';
import { LIMIT_INFO_HEADER, type OperationContext, registerOperations } from './operation.ts';
import { OutboundSender, type OutboundSettings } from './outbound.ts';
import { SALESFORCE_REFERENCE } from './reference.ts';
import { registerCompositeRoutes } from './routes/composite.ts';
import { registerOAuthRoutes } from './routes/oauth.ts';
import { registerQueryRoutes } from './routes/query.ts';
import { registerSObjectRoutes } from './routes/sobjects.ts';
import { registerUserInfoRoutes } from './routes/userinfo.ts';
import { SalesforceStore, type StoreOptions } from './store.ts';
import { StreamingServer, type StreamingSettings } from './streaming.ts';

export interface SalesforceSandboxOptions extends StoreOptions {
  store?: SalesforceStore;
  auth?: AuthOptions;
  /** API requests allowed per rolling 24 hours. Default 15,000 (Developer Edition). */
  dailyApiRequests?: number;
  /** Records per query batch. Default 2000. */
  queryBatchSize?: number;
  faults?: Partial<FaultSettings>;
  faultSeed?: number;
  outbound?: OutboundSettings;
  /** Streaming API (CometD) knobs: connect hold time, event retention. */
  streaming?: StreamingSettings;
  /** The URL the org is reached at (for Outbound Message URLs); set by startSalesforceSandbox. */
  instanceUrl?: () => string;
  /** Largest accepted JSON body. Default 50 MB. */
  maxBodyBytes?: number;
}

export interface SalesforceSandbox {
  app: express.Express;
  store: SalesforceStore;
  auth: AuthRegistry;
  faults: FaultPlan;
  stats: CallStats;
  apiUsage: SlidingWindowLimiter;
  outbound: OutboundSender;
  streaming: StreamingServer;
}

export function createSalesforceSandbox(options: SalesforceSandboxOptions = {}): SalesforceSandbox {
  const store = options.store ?? new SalesforceStore(options);
  const auth = new AuthRegistry(store.orgId, store.userId, options.auth);
  const faults = new FaultPlan(options.faults, options.faultSeed);
  const stats = new CallStats();
  const apiUsage = new SlidingWindowLimiter(options.dailyApiRequests ?? 15_000, 24 * 3600 * 1000);
  const outbound = new OutboundSender(
    store,
    options.instanceUrl ?? (() => 'http://127.0.0.1'),
    options.outbound,
  );

  const streaming = new StreamingServer(store, auth, options.streaming);

  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);

  app.use('/__sandbox', controlPlane({ store, auth, faults, stats, outbound, streaming }));
  app.use(conformanceCheck(SALESFORCE_REFERENCE));

  const ctx: OperationContext = {
    store,
    auth,
    faults,
    stats,
    apiUsage,
    query: { batchSize: options.queryBatchSize ?? 2000 },
  };
  const oauth = express.Router();
  registerOAuthRoutes(oauth, ctx);
  registerUserInfoRoutes(oauth, ctx);
  app.use(oauth);

  const maxBodyBytes = options.maxBodyBytes ?? 50 * 1024 * 1024;
  const soap = express.Router();
  registerMetadataRoutes(soap, ctx, maxBodyBytes);
  app.use(soap);

  // Streaming has its own limits and answers Bayeux replies, not REST errors.
  app.use(streaming.router());

  // Every REST answer carries the org's usage, refusals before the count too (a 401, a body that is no
  // JSON, an unknown path): the operation sets it again once the call is counted.
  app.use('/services/data', (_req, res, next) => {
    res.setHeader(LIMIT_INFO_HEADER, `api-usage=${apiUsage.used(store.orgId)}/${apiUsage.limit}`);
    next();
  });
  app.use(express.json({ limit: maxBodyBytes }));
  const router = express.Router();
  registerOperations(router, ctx, [registerSObjectRoutes, registerCompositeRoutes, registerQueryRoutes]);
  app.use(router);

  app.use((_req, res) => sendSalesforceError(res, notFound()));
  app.use((err: unknown, _req: Request, res: Response, _next: NextFunction) => {
    if (err instanceof SalesforceError) return sendSalesforceError(res, err);
    const e = err as { type?: string; message?: string };
    if (e.type === 'entity.parse.failed') return sendSalesforceError(res, jsonParserError(e.message ?? ''));
    if (e.type === 'entity.too.large')
      return sendSalesforceError(
        res,
        new SalesforceError(413, [
          { message: 'Request entity too large', errorCode: 'REQUEST_ENTITY_TOO_LARGE' },
        ]),
      );
    sendSalesforceError(
      res,
      new SalesforceError(500, [
        { message: 'An unexpected error occurred.', errorCode: 'UNKNOWN_EXCEPTION' },
      ]),
    );
  });

  return { app, store, auth, faults, stats, apiUsage, outbound, streaming };
}
