// HubSpot OAuth installs: the access token lives 30 minutes. A refresh runs under the same Redis lock
// as every other session refresh (one at a time across workers), and the new token pair is stored
// encrypted; a worker that finds a fresher stored token uses it instead of refreshing again. Refreshes go
// to `POST /oauth/v3/token`, as the install does: HubSpot retires `/oauth/v1/token` in February 2027.
import type { Redis } from 'ioredis';
import { z } from 'zod';
import { describeNetworkFailure, endpointOf } from '../../src/shared/network-cause.ts';
import { lockedRefresh, readStoredToken, type TokenCodec } from '../token-refresh.ts';
import { CrmAuthError } from '../types.ts';
import { HubSpotTransientError } from './errors.ts';

const tokenAnswer = z.object({
  access_token: z.string().min(1),
  refresh_token: z.string().min(1).optional(),
  // Kept beside the session for the console's Connections page (connection-state.ts).
  expires_in: z.number().int().positive().optional(),
  scopes: z.array(z.string()).optional(),
});

export interface HubSpotRefreshOptions {
  /** e.g. https://api.hubapi.com (the emulator's URL in tests). */
  basePath: string;
  clientId: string;
  clientSecret: string;
  redis: Redis;
  key: string;
  codec: TokenCodec;
  /** The refresh token the tenant was installed with (a stored, rotated one wins). */
  refreshToken: string;
  fetch?: typeof globalThis.fetch;
}

export function hubspotTokenRefresher(options: HubSpotRefreshOptions) {
  const doFetch = options.fetch ?? globalThis.fetch;
  return {
    /** The newest stored access token, if any. */
    async current(): Promise<string | undefined> {
      return (await readStoredToken(options.redis, options.key, options.codec))?.accessToken;
    },
    async refresh(staleAccessToken: string): Promise<string> {
      const stored = await lockedRefresh(
        options.redis,
        options.key,
        async (previous) => {
          const url = `${options.basePath.replace(/\/+$/, '')}/oauth/v3/token`;
          const res = await doFetch(url, {
            method: 'POST',
            headers: { 'content-type': 'application/x-www-form-urlencoded' },
            body: new URLSearchParams({
              grant_type: 'refresh_token',
              client_id: options.clientId,
              client_secret: options.clientSecret,
              refresh_token: previous?.refreshToken ?? options.refreshToken,
            }),
          }).catch((err: unknown) => {
            // fetch's own "fetch failed" names neither the endpoint nor the cause.
            const where =
              describeNetworkFailure(url, err) ??
              `${endpointOf(url)}: ${err instanceof Error ? err.message : String(err)}`;
            throw new HubSpotTransientError(`HubSpot token refresh got no answer from ${where}`, {
              operation: 'oauth.refresh',
              cause: err,
            });
          });
          if (res.status === 400 || res.status === 401)
            throw new CrmAuthError(
              `HubSpot refused to refresh the token (HTTP ${res.status}); reinstall the app`,
              401,
            );
          if (!res.ok) throw new Error(`HubSpot token endpoint answered HTTP ${res.status}`);
          const body = tokenAnswer.parse(await res.json());
          return {
            accessToken: body.access_token,
            ...(body.refresh_token ? { refreshToken: body.refresh_token } : {}),
            ...(body.expires_in ? { expiresAt: Date.now() + body.expires_in * 1000 } : {}),
            ...(body.scopes ? { scopes: body.scopes } : {}),
          };
        },
        { staleAccessToken, codec: options.codec },
      );
      return stored.accessToken;
    },
  };
}
