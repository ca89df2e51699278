// Every sandbox operation runs through the same steps: count it, add latency, check the bearer token,
// apply the rate limit (counted as the request arrived: countArrivals), apply a scripted or random
// fault, then run the handler and send its JSON.
import { setTimeout as delay } from 'node:timers/promises';
import type { Request, RequestHandler, Response, Router } from 'express';
import type { CallStats, FaultPlan, TokenBucketLimiter } from '../shared/faults.ts';
import type { SandboxDataset } from './data/dataset.ts';
import { HttpError, sendError } from './http-error.ts';
import type { SandboxWebhookSender } from './webhook-sender.ts';

export interface OperationContext {
  dataset: SandboxDataset;
  faults: FaultPlan;
  stats: CallStats;
  tokens: { full: string[]; restricted: string[] };
  /** Row changes made through the API send their webhook (when configured). */
  webhooks?: SandboxWebhookSender;
  /** Every status change setBridgeRowStatus made, oldest first (the feeds show the new status). */
  statusChanges?: RowStatusChange[];
  /** Only the operations whose shapes a document shows are routed (BuyerIntelSandboxOptions). */
  documentedOnly?: boolean;
}

export interface RowStatusChange {
  bridgeId: string;
  rowId: string;
  from: string;
  to: string;
  at: string;
}

export interface Caller {
  token: string;
  /** Sees only bridges shared with everyone. */
  restricted: boolean;
}

export type OperationHandler = (req: Request, res: Response, caller: Caller) => unknown;
export type DefineOperation = (
  method: 'get' | 'put' | 'patch' | 'post',
  path: string,
  operation: string,
  handler: OperationHandler,
) => void;
export type RouteModule = (define: DefineOperation, ctx: OperationContext) => void;

/**
 * The code of an injected status, in the family the emulator's own answers of that status use (the
 * document gives each status one meaning, buyer-intelligence-api.md, Errors): a 415 fault is a media type
 * refusal, not a server error.
 */
const FAULT_CODES: Record<number, string> = {
  400: 'request.invalid',
  401: 'auth.token.invalid',
  403: 'access.denied',
  404: 'resource.not_found',
  415: 'request.media_type.unsupported',
  429: 'rate_limit.exceeded',
};

function bearer(req: Request): string | undefined {
  const header = req.headers.authorization;
  const match = header ? /^Bearer\s+(\S+)\s*$/i.exec(header) : null;
  return match?.[1];
}

type Verdict = ReturnType<TokenBucketLimiter['hit']>;

/**
 * The rate limit counts a request as it arrives, as a provider's edge does: the app's first
 * middleware, before the conformance check, the body's read and the route. Counted in the route's
 * handler, a request met the bucket up to 14–17 ms after it began whenever this process's loop was
 * busy, and the next one on time, so two requests sent 111.7 ms apart were counted 97.8 ms apart and
 * refused (bench/send-probe-report.ts, issue #42). Every request with a bearer token counts, an
 * unknown route's too (an edge does not know the routes); the control plane (`/__sandbox`) never.
 */
export function countArrivals(limiter: TokenBucketLimiter | null): RequestHandler {
  return (req, res, next) => {
    const token = limiter && !req.path.startsWith('/__sandbox') ? bearer(req) : undefined;
    if (token && limiter) res.locals.rateVerdict = limiter.hit(token) satisfies Verdict;
    next();
  };
}

export function registerOperations(router: Router, ctx: OperationContext, modules: RouteModule[]): void {
  const define: DefineOperation = (method, path, operation, handler) => {
    router[method](path, async (req, res, next) => {
      res.on('finish', () => ctx.stats.record(operation, res.statusCode));
      try {
        // The limit counted the request as it arrived (countArrivals); the added latency (the
        // network's and the server's) then delays every answer, a 429's too.
        const token = bearer(req);
        const verdict = res.locals.rateVerdict as Verdict | undefined;
        const { latencyMs } = ctx.faults.settings;
        if (latencyMs > 0) await delay(latencyMs);

        const restricted = token !== undefined && ctx.tokens.restricted.includes(token);
        if (!token || (!restricted && !ctx.tokens.full.includes(token))) {
          res.setHeader('WWW-Authenticate', `Bearer realm="api", error="invalid_token"`);
          return sendError(
            res,
            401,
            'auth.token.invalid',
            token ? 'the access token is not valid' : 'missing bearer token',
          );
        }

        if (verdict && !verdict.ok) {
          // delay-seconds is a whole number (RFC 9110 §10.2.3): the wait for the next token, rounded up.
          res.setHeader('Retry-After', String(Math.max(1, Math.ceil(verdict.retryAfterMs / 1000))));
          return sendError(res, 429, 'rate_limit.exceeded', 'rate limit exceeded; retry later');
        }

        const fault = ctx.faults.next(operation);
        if (fault?.kind === 'status') {
          if (fault.retryAfterSeconds !== undefined)
            res.setHeader('Retry-After', String(fault.retryAfterSeconds));
          return sendError(
            res,
            fault.status,
            FAULT_CODES[fault.status] ?? 'server.error',
            fault.status === 429 ? 'rate limit exceeded; retry later' : 'injected fault',
          );
        }
        if (fault?.kind === 'malformed-json') {
          res.locals.injectedFault = true;
          return res.status(200).type('application/json').send('{"result": [{"rowId": ');
        }
        if (fault?.kind === 'delay') await delay(fault.ms);
        if (fault?.kind === 'drop-field') {
          // A deliberately broken answer: the conformance check leaves it alone.
          res.locals.injectedFault = true;
          const json = res.json.bind(res);
          res.json = (body: unknown) => {
            if (body && typeof body === 'object' && !Array.isArray(body)) {
              const { [fault.field]: _dropped, ...rest } = body as Record<string, unknown>;
              return json(rest);
            }
            return json(body);
          };
        }

        const result = await handler(req, res, { token, restricted });
        if (result !== undefined && !res.headersSent) res.json(result);
      } catch (err) {
        if (err instanceof HttpError) return sendError(res, err.status, err.code, err.message);
        next(err);
      }
    });
  };
  for (const register of modules) register(define, ctx);
}
