// Express app that emulates the Public-Sector Buyer Intelligence API on a seeded data set: every
// operation of the spec and the reference, bearer auth (401/403), 415 for non-JSON bodies, 429 past a
// configurable request rate, and fault knobs for tests and benchmarks under `/__sandbox`.

import { randomUUID } from 'node:crypto';
import express, { type NextFunction, type Request, type Response } from 'express';
import { conformanceCheck } from '../shared/conformance.ts';
import { mountStatsAndFaults } from '../shared/control.ts';
import { CallStats, FaultPlan, type FaultSettings, TokenBucketLimiter } from '../shared/faults.ts';
import { buildDataset, type SandboxDataset } from './data/dataset.ts';
import { HttpError, sendError } from './http-error.ts';
import {
  countArrivals,
  type OperationContext,
  type RowStatusChange,
  registerOperations,
} from './operation.ts';
import { BUYER_INTEL_REFERENCE } from './reference.ts';
import { registerBridgeRoutes } from './routes/bridges.ts';
import { registerBuyerRoutes } from './routes/buyers.ts';
import { registerFeedRoutes } from './routes/feeds.ts';
import { mountWebhookControl, SandboxWebhookSender, type WebhookSenderOptions } from './webhook-sender.ts';

export const DEFAULT_SANDBOX_TOKEN = 'sandbox-token';
export const DEFAULT_RESTRICTED_TOKEN = 'sandbox-restricted-token';

export interface BuyerIntelSandboxOptions {
  /** A prebuilt data set (tests share one to save start-up time), or the seed to build one. */
  dataset?: SandboxDataset;
  seed?: number;
  buyerCount?: number;
  /** Tokens with access to every bridge. */
  tokens?: string[];
  /** Tokens that only see bridges shared with everyone; other bridges answer 403. */
  restrictedTokens?: string[];
  /**
   * The rate enforced per token (a token bucket); `false` disables. Default 10 requests/s (600 a
   * minute, the sandbox's published rate) with a burst of 1: the provider documents no threshold nor
   * burst ("Rate limit thresholds and window: not shown"), so the emulator is the strictest reading.
   */
  rateLimit?: BuyerIntelRateLimit | false;
  faults?: Partial<FaultSettings>;
  /** Largest accepted JSON body. Default 1 MiB. */
  maxBodyBytes?: number;
  /** The emulated webhook column's keys and retry schedule (see webhook-sender.ts). */
  webhooks?: WebhookSenderOptions;
  /**
   * Serve only the operations a document shows the shape of: no `searchBuyersByCriteria` and no
   * `getBuyerSchema` (routes/buyers.ts): their routes answer 404 as an unknown route does. Off by
   * default: the contract names both as operations of the provider.
   */
  documentedOnly?: boolean;
}

export interface BuyerIntelRateLimit {
  ratePerSecond: number;
  burst: number;
}

export const DEFAULT_BUYER_INTEL_RATE_LIMIT: BuyerIntelRateLimit = { ratePerSecond: 10, burst: 1 };

export interface BuyerIntelSandbox {
  app: express.Express;
  dataset: SandboxDataset;
  faults: FaultPlan;
  stats: CallStats;
  tokens: { full: string[]; restricted: string[] };
  /** Sends the provider's bridge row webhooks; `configure({ url })` to turn it on. */
  webhooks: SandboxWebhookSender;
  /** Every row status setBridgeRowStatus set, oldest first (tests and the demo read them here). */
  statusChanges: readonly RowStatusChange[];
}

export function createBuyerIntelSandbox(options: BuyerIntelSandboxOptions = {}): BuyerIntelSandbox {
  const dataset =
    options.dataset ??
    buildDataset({
      ...(options.seed === undefined ? {} : { seed: options.seed }),
      ...(options.buyerCount === undefined ? {} : { buyerCount: options.buyerCount }),
    });
  const tokens = {
    full: options.tokens ?? [DEFAULT_SANDBOX_TOKEN],
    restricted: options.restrictedTokens ?? [DEFAULT_RESTRICTED_TOKEN],
  };
  const faults = new FaultPlan(options.faults);
  const stats = new CallStats();
  const rate = options.rateLimit ?? DEFAULT_BUYER_INTEL_RATE_LIMIT;
  const limiter = rate ? new TokenBucketLimiter(rate.ratePerSecond, rate.burst) : null;
  const webhooks = new SandboxWebhookSender(options.webhooks);

  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.use(countArrivals(limiter));
  app.use(conformanceCheck(BUYER_INTEL_REFERENCE));
  app.use((_req, res, next) => {
    res.setHeader('X-Request-Id', randomUUID());
    next();
  });

  mountControlPlane(app, { faults, stats, dataset, webhooks });

  // A body must be JSON: anything else is 415 before it is parsed.
  app.use((req, res, next) => {
    const hasBody =
      Number(req.headers['content-length'] ?? 0) > 0 || req.headers['transfer-encoding'] !== undefined;
    if (hasBody && !req.is('application/json')) {
      sendError(
        res,
        415,
        'request.media_type.unsupported',
        'request bodies must be JSON (Content-Type: application/json)',
      );
      return;
    }
    next();
  });
  app.use(express.json({ limit: options.maxBodyBytes ?? 1024 * 1024, strict: false }));

  const statusChanges: RowStatusChange[] = [];
  const ctx: OperationContext = {
    dataset,
    faults,
    stats,
    tokens,
    webhooks,
    statusChanges,
    documentedOnly: options.documentedOnly ?? false,
  };
  const router = express.Router();
  registerOperations(router, ctx, [registerBuyerRoutes, registerBridgeRoutes, registerFeedRoutes]);
  app.use(router);

  app.use((_req, res) => sendError(res, 404, 'resource.route.not_found', 'no such endpoint'));
  app.use((err: unknown, _req: Request, res: Response, _next: NextFunction) => {
    if (err instanceof HttpError) return sendError(res, err.status, err.code, err.message);
    const e = err as { type?: string; status?: number };
    if (e.type === 'entity.parse.failed')
      return sendError(res, 400, 'request.body.malformed', 'request body is not valid JSON');
    if (e.type === 'entity.too.large')
      return sendError(res, 413, 'request.body.too_large', 'request body is too large');
    sendError(res, 500, 'server.error', 'internal server error');
  });

  return { app, dataset, faults, stats, tokens, webhooks, statusChanges };
}

/**
 * Sandbox-only control endpoints (not part of the provider's API): read call counts and script faults
 * from another process, e.g. a benchmark or a reliability test.
 */
function mountControlPlane(
  app: express.Express,
  parts: { faults: FaultPlan; stats: CallStats; dataset: SandboxDataset; webhooks: SandboxWebhookSender },
): void {
  const control = express.Router();
  control.use(express.json());
  mountStatsAndFaults(control, parts);
  mountWebhookControl(control, parts);
  app.use('/__sandbox', control);
}
