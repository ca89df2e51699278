// Every HubSpot operation runs through the same steps: count it, add latency, authenticate the bearer
// token (401), apply the rate limits (429 with HubSpot's body and headers), check the token's scopes
// (403, scopes.ts), apply a scripted or random fault, then run the handler and send its JSON.
import { randomUUID } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';
import type { Request, Response, Router } from 'express';
import type { CallStats, FaultPlan } from '../shared/faults.ts';
import type { AuthRegistry, Caller } from './auth.ts';
import {
  faultError,
  HubSpotError,
  missingScopes,
  rateLimited,
  sendHubSpotError,
  sendJson,
  sendRaw,
} from './errors.ts';
import type { HubSpotRateLimits } from './rate-limit.ts';
import { scopeNeeds, unmetNeeds } from './scopes.ts';
import type { ChangeSource, HubSpotStore, WriteOptions } from './store.ts';

export interface OperationContext {
  store: HubSpotStore;
  auth: AuthRegistry;
  limits: HubSpotRateLimits;
  faults: FaultPlan;
  stats: CallStats;
  /** The changeSource of writes made through the API. Default INTEGRATION (with the app id as sourceId). */
  apiChangeSource: ChangeSource;
}

export type OperationHandler = (req: Request, res: Response, caller: Caller) => unknown;

export interface OperationOptions {
  /** The search endpoints: their own per-second limit, and no X-HubSpot-RateLimit-* headers. */
  search?: boolean;
}

export type DefineOperation = (
  method: 'get' | 'put' | 'patch' | 'post' | 'delete',
  path: string,
  operation: string,
  handler: OperationHandler,
  options?: OperationOptions,
) => void;

export type RouteModule = (define: DefineOperation, ctx: OperationContext) => void;

/** How a write by this caller is attributed (webhook changeSource / property history sourceType). */
export function writeSource(ctx: OperationContext, caller: Caller): WriteOptions {
  return { source: ctx.apiChangeSource, sourceId: String(caller.appId) };
}

export function registerOperations(router: Router, ctx: OperationContext, modules: RouteModule[]): void {
  const define: DefineOperation = (method, path, operation, handler, options = {}) => {
    router[method](path, async (req, res, next) => {
      res.on('finish', () => ctx.stats.record(operation, res.statusCode));
      try {
        const { latencyMs } = ctx.faults.settings;
        if (latencyMs > 0) await delay(latencyMs);

        const caller = ctx.auth.authenticate(req.headers.authorization);

        const admission = ctx.limits.admit(caller, { search: options.search === true });
        if (!options.search)
          for (const [name, value] of Object.entries(admission.headers)) res.setHeader(name, value);
        if (admission.blocked) throw rateLimited(admission.blocked, randomUUID());
        // After the limits: a refused call still counts against them (HubSpot does not say; the
        // stricter reading).
        const [unmet] = unmetNeeds(scopeNeeds(method, path, req.params), caller.scopes);
        if (unmet) throw missingScopes(unmet);

        const fault = ctx.faults.next(operation);
        if (fault?.kind === 'status') {
          throw fault.status === 429
            ? rateLimited('TEN_SECONDLY_ROLLING', randomUUID())
            : faultError(fault.status, fault.retryAfterSeconds);
        }
        if (fault?.kind === 'malformed-json') {
          // A deliberately broken answer: the conformance check leaves it alone.
          res.locals.injectedFault = true;
          sendRaw(res, 200, '{"status":"COMPLETE","results":[{"id":');
          return;
        }
        if (fault?.kind === 'delay') await delay(fault.ms);
        if (fault?.kind === 'drop-field') {
          // A deliberately broken answer: the conformance check leaves it alone.
          res.locals.injectedFault = true;
          const send = res.send.bind(res);
          res.send = (body: unknown) => {
            const text = Buffer.isBuffer(body) ? body.toString('utf8') : body;
            if (typeof text === 'string' && text.startsWith('{')) {
              const { [fault.field]: _dropped, ...rest } = JSON.parse(text) as Record<string, unknown>;
              return send(Buffer.from(JSON.stringify(rest), 'utf8'));
            }
            return send(body);
          };
        }

        const result = await handler(req, res, caller);
        if (result !== undefined && !res.headersSent) sendJson(res, res.statusCode, result);
      } catch (err) {
        if (err instanceof HubSpotError) {
          if (err.httpStatus === 401) res.setHeader('X-HubSpot-Auth-Failure', '401 Unauthorized');
          return sendHubSpotError(res, err);
        }
        next(err);
      }
    });
  };
  for (const register of modules) register(define, ctx);
}
