// Who may call the sandbox: a private-app token (never expires) and OAuth access tokens issued by the
// token endpoint (30-minute lifetime by default; refresh tokens do not rotate). Also the OAuth grant
// checks, in HubSpot's order: client id first, then grant type, client secret, and the code or
// refresh token (BAD_CLIENT_ID's body from a 2026 write-up of HubSpot's token errors).
import { randomBytes, randomUUID } from 'node:crypto';
import { expiredAuthentication, HubSpotError, invalidAuthentication } from './errors.ts';
import { ALL_PRODUCT_SCOPES } from './scopes.ts';

export interface AuthOptions {
  /** Default `pat-na1-…` (a fixed sandbox value). */
  privateAppToken?: string;
  privateAppId?: number;
  /** The public (OAuth) app: its id, client id and client secret (the secret also signs webhooks). */
  appId?: number;
  clientId?: string;
  clientSecret?: string;
  /** OAuth access token lifetime. Default 1800 s (HubSpot's 30 minutes). */
  accessTokenTtlSeconds?: number;
  /** What the OAuth app's grants hold when the install names no scopes (and `issueTokens`). */
  scopes?: string[];
  /** What the private app was given in its settings. Default: every scope the product can use. */
  privateAppScopes?: string[];
  /** How long an authorization code stays valid. Default 10 minutes. */
  authorizationCodeTtlSeconds?: number;
  /**
   * `POST /oauth/v1/token` answers as a retired endpoint (HubSpot retires it in February 2027, see
   * routes/oauth.ts). Default false: today it still answers.
   */
  oauthV1Retired?: boolean;
  /** The email of the user who installed the OAuth app (its tokens' `user`). */
  userEmail?: string;
}

/** GET /oauth/v1/access-tokens/{token}: what HubSpot's OAuth guide lists for an access token. */
export interface AccessTokenInfo {
  token: string;
  user: string;
  hub_domain: string;
  scopes: string[];
  hub_id: number;
  app_id: number;
  expires_in: number;
  user_id: number;
  token_type: 'access';
}

export interface Caller {
  kind: 'private' | 'oauth';
  token: string;
  /** The app making the call (the private app, or the OAuth app). */
  appId: number;
  portalId: number;
  userId: number;
  /** What the token was granted (scopes.ts decides what a call needs). */
  scopes: ReadonlySet<string>;
}

export interface TokenSet {
  access_token: string;
  refresh_token: string;
  expires_in: number;
  token_type: 'bearer';
  scopes: string[];
  hub_id: number;
  user_id: number;
}

interface AccessToken {
  token: string;
  refreshToken: string;
  expiresAt: number;
}

interface Grant {
  scopes: string[];
  userId: number;
}

const DEFAULT_SCOPES = ['oauth', ...ALL_PRODUCT_SCOPES];

export const DEFAULT_PRIVATE_APP_TOKEN = 'pat-na1-sandbox-6b1f0c2e-3d4a-4f5b-9c8d-7e6f5a4b3c2d';

export class AuthRegistry {
  readonly privateAppToken: string;
  readonly privateAppId: number;
  readonly appId: number;
  readonly clientId: string;
  readonly clientSecret: string;
  readonly portalId: number;
  readonly userId: number;
  readonly userEmail: string;
  accessTokenTtlSeconds: number;
  /** Whether `POST /oauth/v1/token` answers as retired (settable while the sandbox runs). */
  oauthV1Retired: boolean;
  readonly #scopes: string[];
  #privateAppScopes: ReadonlySet<string>;
  readonly #codeTtlMs: number;
  readonly #accessTokens = new Map<string, AccessToken>();
  readonly #refreshTokens = new Map<string, Grant>();
  readonly #codes = new Map<string, Grant & { redirectUri: string; expiresAt: number }>();

  constructor(portalId: number, userId: number, options: AuthOptions = {}) {
    this.portalId = portalId;
    this.userId = userId;
    this.userEmail = options.userEmail ?? 'integration@buyer-intel.sandbox';
    this.privateAppToken = options.privateAppToken ?? DEFAULT_PRIVATE_APP_TOKEN;
    this.privateAppId = options.privateAppId ?? 3_914_227;
    this.appId = options.appId ?? 4_127_839;
    this.clientId = options.clientId ?? '5c0a7e3d-9b21-4f68-a1c4-2e7d8f90b613';
    this.clientSecret = options.clientSecret ?? 'e2b84f0c-6d1a-47c9-8e35-b91a7c0d4f26';
    this.accessTokenTtlSeconds = options.accessTokenTtlSeconds ?? 1800;
    this.oauthV1Retired = options.oauthV1Retired ?? false;
    this.#scopes = options.scopes ?? DEFAULT_SCOPES;
    this.#privateAppScopes = new Set(options.privateAppScopes ?? ALL_PRODUCT_SCOPES);
    this.#codeTtlMs = (options.authorizationCodeTtlSeconds ?? 600) * 1000;
  }

  /** The caller behind an Authorization header, or the 401 HubSpot answers. */
  authenticate(authorization: string | undefined, now = Date.now()): Caller {
    const match = authorization ? /^Bearer\s+(\S+)\s*$/i.exec(authorization) : null;
    const token = match?.[1];
    if (!token) throw invalidAuthentication();
    if (token === this.privateAppToken) {
      return {
        kind: 'private',
        token,
        appId: this.privateAppId,
        portalId: this.portalId,
        userId: this.userId,
        scopes: this.#privateAppScopes,
      };
    }
    const access = this.#accessTokens.get(token);
    if (!access) throw invalidAuthentication();
    if (access.expiresAt <= now) throw expiredAuthentication(access.expiresAt, now);
    const grant = this.#refreshTokens.get(access.refreshToken);
    return {
      kind: 'oauth',
      token,
      appId: this.appId,
      portalId: this.portalId,
      userId: grant?.userId ?? this.userId,
      scopes: new Set(grant?.scopes ?? []),
    };
  }

  /** A portal admin changing the private app's scopes in its settings (the token stays the same). */
  setPrivateAppScopes(scopes: readonly string[]): void {
    this.#privateAppScopes = new Set(scopes);
  }

  /** What the install flow hands the app's redirect URI (`?code=…`). */
  issueAuthorizationCode(redirectUri: string, scopes: string[] = this.#scopes, now = Date.now()): string {
    const code = randomUUID();
    this.#codes.set(code, { redirectUri, scopes, userId: this.userId, expiresAt: now + this.#codeTtlMs });
    return code;
  }

  /** A fresh OAuth token pair without the HTTP flow (tests, demos): the default scopes, or these. */
  issueTokens(now = Date.now(), scopes: readonly string[] = this.#scopes): TokenSet {
    const refreshToken = randomUUID();
    this.#refreshTokens.set(refreshToken, { scopes: [...scopes], userId: this.userId });
    return this.#accessTokenFor(refreshToken, now);
  }

  /**
   * An OAuth access token's metadata: the user who installed the app, its portal and grant; undefined
   * for a private-app token (it belongs to no user), an unknown or an expired one.
   */
  accessTokenInfo(token: string, now = Date.now()): AccessTokenInfo | undefined {
    const access = this.#accessTokens.get(token);
    if (!access || access.expiresAt <= now) return undefined;
    const grant = this.#refreshTokens.get(access.refreshToken);
    return {
      token,
      user: this.userEmail,
      hub_domain: `portal-${this.portalId}.sandbox.hubspot.example`,
      scopes: grant?.scopes ?? [],
      hub_id: this.portalId,
      app_id: this.appId,
      expires_in: Math.floor((access.expiresAt - now) / 1000),
      user_id: grant?.userId ?? this.userId,
      token_type: 'access',
    };
  }

  /** Makes an OAuth access token expired as of now (or every one, without an argument). */
  expire(token?: string, now = Date.now()): number {
    let count = 0;
    for (const access of this.#accessTokens.values()) {
      if (token === undefined || access.token === token) {
        access.expiresAt = Math.min(access.expiresAt, now - 1);
        count++;
      }
    }
    return count;
  }

  /** The grant_type=authorization_code and grant_type=refresh_token exchanges. */
  grant(form: Record<string, string | undefined>, now = Date.now()): TokenSet {
    if (!form.client_id || form.client_id !== this.clientId) {
      throw oauthError('BAD_CLIENT_ID', 'missing or unknown client id', 'invalid_request');
    }
    const grantType = form.grant_type;
    if (grantType !== 'authorization_code' && grantType !== 'refresh_token') {
      throw oauthError('BAD_GRANT_TYPE', 'missing or unknown grant type', 'unsupported_grant_type');
    }
    if (!form.client_secret || form.client_secret !== this.clientSecret) {
      throw oauthError('BAD_CLIENT_SECRET', 'missing or invalid client secret', 'invalid_client');
    }
    if (grantType === 'refresh_token') {
      const refreshToken = form.refresh_token ?? '';
      if (!this.#refreshTokens.has(refreshToken)) {
        throw oauthError('BAD_REFRESH_TOKEN', 'missing or invalid refresh token', 'invalid_grant');
      }
      return this.#accessTokenFor(refreshToken, now);
    }
    const code = this.#codes.get(form.code ?? '');
    if (!code || code.expiresAt <= now) {
      throw oauthError('BAD_AUTH_CODE', 'missing or unknown auth code', 'invalid_grant');
    }
    if (form.redirect_uri !== code.redirectUri) {
      throw oauthError(
        'BAD_REDIRECT_URI',
        'redirect_uri does not match initial redirect_uri',
        'invalid_grant',
      );
    }
    this.#codes.delete(form.code ?? '');
    const refreshToken = randomUUID();
    this.#refreshTokens.set(refreshToken, { scopes: code.scopes, userId: code.userId });
    return this.#accessTokenFor(refreshToken, now);
  }

  #accessTokenFor(refreshToken: string, now: number): TokenSet {
    const grant = this.#refreshTokens.get(refreshToken) ?? { scopes: this.#scopes, userId: this.userId };
    const token = `C${randomBytes(54).toString('base64url')}`;
    this.#accessTokens.set(token, {
      token,
      refreshToken,
      expiresAt: now + this.accessTokenTtlSeconds * 1000,
    });
    return {
      access_token: token,
      refresh_token: refreshToken,
      expires_in: this.accessTokenTtlSeconds,
      token_type: 'bearer',
      scopes: grant.scopes,
      hub_id: this.portalId,
      user_id: grant.userId,
    };
  }
}

/** OAuth errors put the reason in `status` and add the OAuth 2.0 `error` / `error_description`. */
export const oauthError = (status: string, message: string, error: string) =>
  new HubSpotError(400, { status, message, error, error_description: message });
