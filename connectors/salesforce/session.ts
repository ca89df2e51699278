// The session behind every Salesforce call. jsforce refreshes an expired access token itself (one shared
// refresh per Connection, then it re-sends the request) by calling our `refreshFn`, so every refresh —
// JWT bearer or refresh-token grant — runs here, under the Redis lock of token-refresh.ts when a
// tokenStore is set: workers sharing an org then refresh once, and a rotated refresh token is never
// presented twice. jsforce does not keep a rotated refresh token; the 'refresh' listener here does.

import type { KeyObject } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { Connection } from 'jsforce';
import { lockedRefresh, readStoredToken, type StoredToken, type TokenCodec } from '../token-refresh.ts';
import { isRecord } from './errors.ts';
import { requestJwtToken, type SalesforceTokenResponse } from './jwt.ts';

export const DEFAULT_LOGIN_URL = 'https://login.salesforce.com';

export interface SalesforceSessionOptions {
  /** Where refreshes go. Default https://login.salesforce.com. */
  loginUrl?: string;
  clientId: string;
  /** Called after jsforce refreshed the session: persist a rotated refresh token. Must not throw. */
  onRefresh?: (accessToken: string, refreshToken: string | undefined) => void;
  /**
   * JWT bearer flow: authenticate and refresh with an RS256 assertion for `username` signed with the
   * connected app's private key (PKCS#8 PEM or KeyObject) instead of a refresh token.
   */
  jwt?: { username: string; privateKey: string | KeyObject };
  /**
   * Share the session across workers: every refresh runs under a Redis lock (one at a time), the new
   * token (and a rotated refresh token) is stored under `key`, and a connector started later uses it.
   */
  tokenStore?: { redis: Redis; key: string; codec?: TokenCodec };
}

/** The session the connector holds, for clients that authenticate themselves (CDC streaming). */
export interface SalesforceSession {
  accessToken(): Promise<string>;
  /** A fresh access token (after the streaming API answered 401::Authentication invalid). */
  reauthenticate(): Promise<string>;
}

type RefreshCallback = (err?: Error, accessToken?: string, res?: SalesforceTokenResponse) => void;

/** What the client needs of the session: jsforce's hooks, and what the call wrapper asks. */
export interface SessionHandler {
  /** jsforce's refreshFn: the grant, under the Redis lock when a tokenStore is set. */
  refreshFn: (c: Connection, callback: RefreshCallback) => void;
  /** The Connection's 'refresh' listener. */
  onRefresh: (accessToken: string, res: unknown) => void;
  rotatedRefreshToken: () => string | undefined;
  /** The user id of the token responses' identity URL (`…/id/<org>/<user>`), once one came. */
  ownUserId: () => string | undefined;
  /**
   * The failure behind jsforce's "Unable to refresh session due to: …" when it may pass on a retry,
   * else undefined (not a refresh failure, or a refused grant).
   */
  transientRefreshFailure: (err: unknown) => Error | undefined;
  /** With a tokenStore, the first call starts from the stored session (and refresh token), if any. */
  loadStoredToken: () => Promise<void>;
  accessToken: () => Promise<string>;
  /** A new session through the same grant and lock as jsforce's own refreshes (for the streaming client). */
  reauthenticate: () => Promise<string>;
}

/**
 * Salesforce's token endpoint refused the grant (invalid_grant, invalid_client, inactive_user, any
 * other 4xx), or there is nothing to refresh with: only new credentials help. Anything else — the
 * endpoint down or answering unknown_error ("retry your request"), a network error, Redis or the
 * refresh lock failing — may pass on a retry. jsforce keeps only the OAuth error code, as the name.
 */
const REFUSED_GRANT =
  /^(?:invalid_\w+|unauthorized_client|inactive_(?:user|org)|unsupported_\w+|access_denied|redirect_uri_mismatch|ERROR_HTTP_4\d\d)$/;
function isRefusedGrant(err: Error): boolean {
  return /No refresh token found/.test(err.message) || REFUSED_GRANT.test(err.name);
}

/** `connection` is read lazily: the Connection is built with this handler's refreshFn. */
export function createSessionHandler(
  options: SalesforceSessionOptions,
  connection: () => Connection,
): SessionHandler {
  const loginUrl = options.loginUrl ?? DEFAULT_LOGIN_URL;
  const { jwt, tokenStore } = options;

  /** One grant: JWT bearer, or the refresh-token grant with the newest refresh token we know. */
  async function grant(conn: Connection, stored: StoredToken | null): Promise<SalesforceTokenResponse> {
    if (jwt) {
      return requestJwtToken(conn, {
        clientId: options.clientId,
        username: jwt.username,
        privateKey: jwt.privateKey,
        loginUrl,
      });
    }
    const refreshToken = stored?.refreshToken ?? conn.refreshToken;
    if (!refreshToken) throw new Error('No refresh token found in the connection');
    return (await conn.oauth2.refreshToken(refreshToken)) as unknown as SalesforceTokenResponse;
  }

  /**
   * jsforce reports a failed refresh as a new Error naming only our message; this remembers what the
   * failure was, so an unreachable token endpoint or a Redis outage is retried, not taken for revoked
   * credentials.
   */
  let lastRefreshFailure: { error: Error; refused: boolean } | undefined;

  const refreshFn = (c: Connection, callback: RefreshCallback): void => {
    const staleAccessToken = c.accessToken ?? undefined;
    const refreshed: Promise<SalesforceTokenResponse> = tokenStore
      ? lockedRefresh(
          tokenStore.redis,
          tokenStore.key,
          async (stored) => {
            const res = await grant(c, stored);
            return {
              accessToken: res.access_token,
              ...(res.refresh_token ? { refreshToken: res.refresh_token } : {}),
            };
          },
          {
            ...(staleAccessToken ? { staleAccessToken } : {}),
            ...(tokenStore.codec ? { codec: tokenStore.codec } : {}),
          },
        ).then((stored) => ({
          access_token: stored.accessToken,
          ...(stored.refreshToken ? { refresh_token: stored.refreshToken } : {}),
          instance_url: c.instanceUrl,
          id: '',
        }))
      : grant(c, null);
    refreshed.then(
      (res) => {
        lastRefreshFailure = undefined;
        ownUserId = userOfIdentity(res.id) ?? ownUserId;
        callback(undefined, res.access_token, res);
      },
      (err: unknown) => {
        const error = err instanceof Error ? err : new Error(String(err));
        lastRefreshFailure = { error, refused: isRefusedGrant(error) };
        callback(error);
      },
    );
  };

  const transientRefreshFailure = (err: unknown): Error | undefined =>
    lastRefreshFailure !== undefined &&
    !lastRefreshFailure.refused &&
    err instanceof Error &&
    err.message === `Unable to refresh session due to: ${lastRefreshFailure.error.message}`
      ? lastRefreshFailure.error
      : undefined;

  let loaded: Promise<void> | undefined;
  const loadStoredToken = (): Promise<void> => {
    if (!tokenStore) return Promise.resolve();
    loaded ??= readStoredToken(tokenStore.redis, tokenStore.key, tokenStore.codec).then(
      (stored) => {
        if (!stored) return;
        const conn = connection();
        conn.accessToken = stored.accessToken;
        if (stored.refreshToken) conn.refreshToken = stored.refreshToken;
      },
      () => {
        loaded = undefined; // Redis unreachable: try again on the next call; jsforce refreshes on a 401.
      },
    );
    return loaded;
  };

  let rotatedRefreshToken: string | undefined;
  let ownUserId: string | undefined;
  const onRefresh = (accessToken: string, res: unknown): void => {
    ownUserId = userOfIdentity(isRecord(res) ? res.id : undefined) ?? ownUserId;
    const refreshToken =
      isRecord(res) && typeof res.refresh_token === 'string' ? res.refresh_token : undefined;
    if (refreshToken) {
      rotatedRefreshToken = refreshToken;
      connection().refreshToken = refreshToken;
    }
    try {
      options.onRefresh?.(accessToken, refreshToken);
    } catch {
      // A persistence hook must not break the call that triggered the refresh.
    }
  };

  const reauthenticate = (): Promise<string> =>
    new Promise((resolve, reject) => {
      const conn = connection();
      refreshFn(conn, (err, accessToken, res) => {
        if (err || !accessToken) return reject(err ?? new Error('the refresh returned no access token'));
        conn.accessToken = accessToken;
        conn.emit('refresh', accessToken, res);
        resolve(accessToken);
      });
    });

  return {
    refreshFn,
    onRefresh,
    rotatedRefreshToken: () => rotatedRefreshToken,
    // jsforce's own refresh (no refreshFn of ours) records the user on the connection instead.
    ownUserId: () => ownUserId ?? connection().userInfo?.id ?? undefined,
    transientRefreshFailure,
    loadStoredToken,
    accessToken: async () => {
      await loadStoredToken();
      return connection().accessToken ?? reauthenticate();
    },
    reauthenticate,
  };
}

/** The user id at the end of an identity URL (`https://login…/id/00D…/005…`), when it is one. */
export function userOfIdentity(id: unknown): string | undefined {
  if (typeof id !== 'string') return undefined;
  const user = /\/id\/[^/]+\/([a-zA-Z0-9]{15}(?:[a-zA-Z0-9]{3})?)$/.exec(id)?.[1];
  return user;
}
