// OAuth token endpoints, and an access token's metadata (its user). `POST /oauth/v1/token` is what @hubspot/api-client's tokensApi.create calls;
// `POST /oauth/v3/token` is the one in oauth-v3.json (its answer adds token_use, hub_id, user_id and
// scopes). Both take application/x-www-form-urlencoded only; a JSON body answers 415.
// HubSpot retires v1 in February 2027 (reference crm-facts.md: "v1 is deprecated Feb 2027"); how a
// retired endpoint answers is not documented, so with `oauthV1Retired` it answers as a route that no
// longer exists (404, the unknown-route body) — the strictest reading: nothing is granted there.

import { randomUUID } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';
import express, { type Request, type Response, type Router } from 'express';
import {
  faultError,
  HubSpotError,
  notAnAccessToken,
  rateLimited,
  resourceNotFound,
  sendHubSpotError,
  sendJson,
} from '../errors.ts';
import type { OperationContext } from '../operation.ts';

export function registerOAuthRoutes(router: Router, ctx: OperationContext): void {
  const form = express.urlencoded({ extended: false, limit: '64kb' });

  const token = (version: 'v1' | 'v3') => async (req: Request, res: Response) => {
    const operation = version === 'v1' ? 'oauth.tokensApi.create' : 'oauth.v3.token';
    res.on('finish', () => ctx.stats.record(operation, res.statusCode));
    try {
      if (version === 'v1' && ctx.auth.oauthV1Retired) throw resourceNotFound();
      const { latencyMs } = ctx.faults.settings;
      if (latencyMs > 0) await delay(latencyMs);
      const fault = ctx.faults.next(operation);
      // A 429 is the documented rate-limit body (usage guidelines), as on the CRM routes.
      if (fault?.kind === 'status')
        throw fault.status === 429
          ? rateLimited('TEN_SECONDLY_ROLLING', randomUUID())
          : faultError(fault.status, fault.retryAfterSeconds);
      if (fault?.kind === 'delay') await delay(fault.ms);
      if (!req.is('application/x-www-form-urlencoded')) {
        throw new HubSpotError(415, {
          status: 'error',
          message: 'Unsupported Media Type: the token endpoint accepts application/x-www-form-urlencoded',
          category: 'VALIDATION_ERROR',
        });
      }
      const body = (req.body ?? {}) as Record<string, unknown>;
      const fields = Object.fromEntries(
        Object.entries(body).map(([k, v]) => [k, typeof v === 'string' ? v : undefined]),
      ) as Record<string, string | undefined>;
      const tokens = ctx.auth.grant(fields);
      if (version === 'v1') {
        return sendJson(res, 200, {
          token_type: tokens.token_type,
          refresh_token: tokens.refresh_token,
          access_token: tokens.access_token,
          expires_in: tokens.expires_in,
        });
      }
      return sendJson(res, 200, {
        access_token: tokens.access_token,
        refresh_token: tokens.refresh_token,
        expires_in: tokens.expires_in,
        token_type: tokens.token_type,
        token_use: 'access_token',
        hub_id: tokens.hub_id,
        user_id: tokens.user_id,
        scopes: tokens.scopes,
      });
    } catch (err) {
      if (err instanceof HubSpotError) return sendHubSpotError(res, err);
      throw err;
    }
  };

  // Access token metadata (HubSpot OAuth guide, "Retrieve access token metadata"): the installing
  // user's email (`user`) and id. A private-app token is no OAuth token and has no user: HubSpot answers
  // it 400 "The access token must have the correct format" (hubspot-api-nodejs#530); an unknown or
  // expired token, for which nothing is documented, the same.
  router.get('/oauth/v1/access-tokens/:token', (req: Request, res: Response) => {
    res.on('finish', () => ctx.stats.record('oauth.accessTokensApi.get', res.statusCode));
    const info = ctx.auth.accessTokenInfo(String(req.params.token));
    if (!info) return sendHubSpotError(res, notAnAccessToken());
    return sendJson(res, 200, info);
  });
  router.post('/oauth/v1/token', form, token('v1'));
  router.post('/oauth/v3/token', form, token('v3'));
}
