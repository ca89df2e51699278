// The HubSpot app's install flow (OAuth authorization code): /oauth/hubspot/install sends the person to
// HubSpot's consent page with a single-use state kept in Redis; /oauth/hubspot/callback exchanges the
// code (POST /oauth/v3/token, which names the portal as hub_id) and stores the portal as a tenant, its
// tokens encrypted. Running services pick it up at once here and within 30 s elsewhere.
import { randomBytes } from 'node:crypto';
import express, { type Request, type Response } from 'express';
import type { Redis } from 'ioredis';
import { z } from 'zod';
import type { CrmFeatures } from '../descriptor.ts';
import { hubspotInstallScopes, missingHubSpotScopes } from './scopes.ts';

const STATE_TTL_SECONDS = 600;
const tokenAnswer = z.object({
  access_token: z.string().min(1),
  refresh_token: z.string().min(1),
  hub_id: z.union([z.number().int().positive(), z.string().regex(/^\d+$/)]).transform(String),
  scopes: z.array(z.string()).optional(),
  expires_in: z.number().int().positive().optional(),
});

export interface HubSpotInstallOptions {
  clientId: string;
  clientSecret: string;
  /** HubSpot's API base (the token endpoint), e.g. https://api.hubapi.com. */
  basePath: string;
  /** The consent page. Default https://app.hubspot.com/oauth/authorize. */
  authorizeUrl?: string | undefined;
  /** What the configuration turns on: the consent page asks for exactly the scopes these need. */
  features: CrmFeatures;
  /** Our public URL prefix (scheme and host); the callback URL is built from it. */
  publicBaseUrl?: string | undefined;
  redis: Redis;
  prefix: string;
  /** Stores the portal as a tenant (encrypted) and makes the service load it. */
  addTenant: (record: {
    crm: 'hubspot';
    portalId: string;
    accessToken: string;
    refreshToken: string;
    scopes?: string[];
    accessTokenExpiresAt?: number;
  }) => Promise<void>;
  fetch?: typeof globalThis.fetch;
}

const page = (res: Response, status: number, title: string, text: string) =>
  void res
    .status(status)
    .type('html')
    .send(
      `<!doctype html><html lang="en"><meta charset="utf-8"><title>${title}</title><body style="font:16px system-ui;margin:48px"><h1>${title}</h1><p>${text}</p></body></html>`,
    );

const escapeHtml = (s: string) =>
  s.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c,
  );

export function hubspotInstallRouter(options: HubSpotInstallOptions): express.Router {
  const router = express.Router();
  const doFetch = options.fetch ?? globalThis.fetch;
  const stateKey = (state: string) => `${options.prefix}:oauth-state:${state}`;
  const callbackUrl = (req: Request) =>
    `${options.publicBaseUrl?.replace(/\/+$/, '') ?? `${req.protocol}://${req.get('host')}`}${req.baseUrl}/callback`;

  router.get('/install', async (req, res, next) => {
    try {
      const state = randomBytes(24).toString('base64url');
      await options.redis.set(stateKey(state), '1', 'EX', STATE_TTL_SECONDS);
      const target = new URL(options.authorizeUrl ?? 'https://app.hubspot.com/oauth/authorize');
      target.searchParams.set('client_id', options.clientId);
      target.searchParams.set('redirect_uri', callbackUrl(req));
      target.searchParams.set('scope', hubspotInstallScopes(options.features).join(' '));
      target.searchParams.set('state', state);
      res.redirect(302, target.toString());
    } catch (err) {
      next(err);
    }
  });

  router.get('/callback', async (req, res, next) => {
    try {
      const code = typeof req.query.code === 'string' ? req.query.code : '';
      const state = typeof req.query.state === 'string' ? req.query.state : '';
      if (!code || !state)
        return page(
          res,
          400,
          'Install failed',
          'The link is missing its code or state: start again from the install link.',
        );
      // Single use: a replayed or forged callback finds no state.
      if (!(await options.redis.getdel(stateKey(state))))
        return page(
          res,
          400,
          'Install failed',
          'This install link has expired or was already used: start again from the install link.',
        );
      const answer = await doFetch(`${options.basePath.replace(/\/+$/, '')}/oauth/v3/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({
          grant_type: 'authorization_code',
          client_id: options.clientId,
          client_secret: options.clientSecret,
          redirect_uri: callbackUrl(req),
          code,
        }),
      });
      if (!answer.ok)
        return page(
          res,
          502,
          'Install failed',
          `HubSpot refused the authorization code (HTTP ${answer.status}): start again.`,
        );
      const tokens = tokenAnswer.safeParse(await answer.json());
      if (!tokens.success)
        return page(res, 502, 'Install failed', 'HubSpot answered without the tokens we need.');
      await options.addTenant({
        crm: 'hubspot',
        portalId: tokens.data.hub_id,
        accessToken: tokens.data.access_token,
        refreshToken: tokens.data.refresh_token,
        ...(tokens.data.scopes ? { scopes: tokens.data.scopes } : {}),
        ...(tokens.data.expires_in
          ? { accessTokenExpiresAt: Date.now() + tokens.data.expires_in * 1000 }
          : {}),
      });
      // HubSpot grants what the consent page asked for; a grant that names fewer scopes is said here
      // rather than found on the first refused call.
      const missing = tokens.data.scopes ? missingHubSpotScopes(tokens.data.scopes, options.features) : [];
      page(
        res,
        200,
        'Buyer Intel Sync is installed',
        `Portal ${escapeHtml(tokens.data.hub_id)} is connected. ${
          missing.length
            ? `It was not granted ${missing.map((m) => `${escapeHtml(m.scope)} (${escapeHtml(m.neededFor)})`).join(', ')}: install again and approve every scope.`
            : 'You can close this page.'
        }`,
      );
    } catch (err) {
      next(err);
    }
  });
  return router;
}
