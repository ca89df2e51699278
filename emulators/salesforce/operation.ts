// Every REST operation runs through the same steps: count it, add latency, check the session (401
// INVALID_SESSION_ID), count it against the org's rolling 24-hour API allocation (403
// REQUEST_LIMIT_EXCEEDED past it), apply a scripted or random fault, then run the handler. Every answer
// carries `Sforce-Limit-Info: api-usage=N/M`.
import { setTimeout as delay } from 'node:timers/promises';
import type { Request, Response, Router } from 'express';
import type { CallStats, FaultPlan, SlidingWindowLimiter } from '../shared/faults.ts';
import type { AuthRegistry, Caller } from './auth.ts';
import {
  faultError,
  requestLimitExceeded,
  SalesforceError,
  sendJson,
  sendSalesforceError,
} from './errors.ts';
import type { SalesforceStore } from './store.ts';

export interface QueryCursorSettings {
  /** Records per query batch. Salesforce's default is 2000. */
  batchSize: number;
}

export interface OperationContext {
  store: SalesforceStore;
  auth: AuthRegistry;
  faults: FaultPlan;
  stats: CallStats;
  apiUsage: SlidingWindowLimiter;
  query: QueryCursorSettings;
}

export type OperationHandler = (req: Request, res: Response, caller: Caller) => unknown;

export type DefineOperation = (
  method: 'get' | 'post' | 'patch' | 'delete',
  path: string,
  operation: string,
  handler: OperationHandler,
) => void;

export type RouteModule = (define: DefineOperation, ctx: OperationContext) => void;

export const LIMIT_INFO_HEADER = 'Sforce-Limit-Info';

/** The API version of the request path (`/services/data/v62.0/...`), e.g. "62.0". */
export function apiVersion(req: Request): string {
  return String(req.params.version ?? '');
}

export function registerOperations(router: Router, ctx: OperationContext, modules: RouteModule[]): void {
  const define: DefineOperation = (method, path, operation, handler) => {
    router[method](`/services/data/v:version${path}`, async (req, res, next) => {
      res.on('finish', () => ctx.stats.record(operation, res.statusCode));
      try {
        const version = Number(req.params.version);
        if (!/^\d+\.\d$/.test(String(req.params.version)) || version < 50) {
          throw new SalesforceError(404, [
            { errorCode: 'NOT_FOUND', message: 'The requested resource does not exist' },
          ]);
        }
        const { latencyMs } = ctx.faults.settings;
        if (latencyMs > 0) await delay(latencyMs);

        const caller = ctx.auth.authenticate(req.headers.authorization);

        const admitted = ctx.apiUsage.hit(ctx.store.orgId);
        const used = admitted.ok ? ctx.apiUsage.limit - admitted.remaining : ctx.apiUsage.limit;
        res.setHeader(LIMIT_INFO_HEADER, `api-usage=${used}/${ctx.apiUsage.limit}`);
        if (!admitted.ok) throw requestLimitExceeded();

        const fault = ctx.faults.next(operation);
        if (fault?.kind === 'status') throw faultError(fault.status);
        if (fault?.kind === 'malformed-json') {
          // A deliberately broken answer: the conformance check leaves it alone.
          res.locals.injectedFault = true;
          res.status(200).setHeader('Content-Type', 'application/json;charset=UTF-8');
          res.send(Buffer.from('{"totalSize":1,"done":true,"records":[{"attributes":'));
          return;
        }
        if (fault?.kind === 'delay') await delay(fault.ms);

        const result = await handler(req, res, caller);
        if (result !== undefined && !res.headersSent) sendJson(res, res.statusCode, result);
      } catch (err) {
        if (err instanceof SalesforceError) return sendSalesforceError(res, err);
        next(err);
      }
    });
  };
  for (const register of modules) register(define, ctx);
}
