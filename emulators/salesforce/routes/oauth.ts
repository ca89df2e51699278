// POST /services/oauth2/token (on the login URL; the emulator is login and instance URL at once). Takes
// application/x-www-form-urlencoded, as jsforce's OAuth2 sends it; grants refresh_token and the JWT
// bearer flow. Not counted against the API allocation.
import { setTimeout as delay } from 'node:timers/promises';
import express, { type Request, type Response, type Router } from 'express';
import { OAuthError, sendJson, sendOAuthError } from '../errors.ts';
import type { OperationContext } from '../operation.ts';

export function registerOAuthRoutes(router: Router, ctx: OperationContext): void {
  const form = express.urlencoded({ extended: false, limit: '64kb' });
  router.post('/services/oauth2/token', form, async (req: Request, res: Response) => {
    const operation = 'oauth2.token';
    res.on('finish', () => ctx.stats.record(operation, res.statusCode));
    try {
      const { latencyMs } = ctx.faults.settings;
      if (latencyMs > 0) await delay(latencyMs);
      const fault = ctx.faults.next(operation);
      if (fault?.kind === 'status') throw new OAuthError(fault.status, 'unknown_error', 'retry your request');
      if (fault?.kind === 'delay') await delay(fault.ms);
      if (!req.is('application/x-www-form-urlencoded'))
        throw new OAuthError(400, 'unsupported_grant_type', 'grant type not supported');
      const body = (req.body ?? {}) as Record<string, unknown>;
      const params = Object.fromEntries(
        Object.entries(body).map(([k, v]) => [k, typeof v === 'string' ? v : undefined]),
      ) as Record<string, string | undefined>;
      const baseUrl = `${req.protocol}://${req.get('host') ?? 'localhost'}`;
      sendJson(res, 200, ctx.auth.grant(params, baseUrl));
    } catch (err) {
      if (err instanceof OAuthError) return sendOAuthError(res, err);
      throw err;
    }
  });
}
