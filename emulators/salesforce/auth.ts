// Who may call the org: session ids (OAuth access tokens `00D…!AQ…`) issued by the token endpoint, with a
// lifetime (Salesforce's default session timeout is 2 hours), for the refresh-token grant and the JWT
// bearer grant (RS256 assertion: iss = consumer key, sub = username, aud = login URL, exp). Token errors
// are `{error, error_description}` with Salesforce's texts.
import { createHmac, type KeyObject, randomBytes, verify } from 'node:crypto';
import { invalidSession, OAuthError } from './errors.ts';

export interface AuthOptions {
  /** Connected app consumer key / secret. */
  clientId?: string;
  clientSecret?: string;
  username?: string;
  /** Session lifetime. Default 7200 s. */
  accessTokenTtlSeconds?: number;
  /** Issue a new refresh token on every refresh (and revoke the old one). Default false, as Salesforce. */
  rotateRefreshTokens?: boolean;
  /** Certificate/public key of the connected app, for the JWT bearer flow (PEM or KeyObject). */
  jwtPublicKey?: string | KeyObject;
  /**
   * A refresh token the integration user already holds, as after an earlier login: `npm run sandbox`
   * fixes one so that an .env written from its output still works after a restart.
   */
  refreshToken?: string;
}

export interface Caller {
  token: string;
  username: string;
}

export interface TokenResponse {
  access_token: string;
  refresh_token?: string;
  signature: string;
  scope: string;
  instance_url: string;
  id: string;
  token_type: 'Bearer';
  issued_at: string;
}

interface Session {
  username: string;
  expiresAt: number;
}

const JWT_GRANT = 'urn:ietf:params:oauth:grant-type:jwt-bearer';

export class AuthRegistry {
  readonly clientId: string;
  readonly clientSecret: string;
  readonly username: string;
  readonly orgId: string;
  readonly userId: string;
  accessTokenTtlSeconds: number;
  rotateRefreshTokens: boolean;
  jwtPublicKey: string | KeyObject | undefined;
  readonly #sessions = new Map<string, Session>();
  readonly #refreshTokens = new Map<string, string>();
  readonly #now: () => number;

  constructor(orgId: string, userId: string, options: AuthOptions = {}, now: () => number = Date.now) {
    this.orgId = orgId;
    this.userId = userId;
    this.clientId =
      options.clientId ?? '3MVG9sandbox.Consumer.Key.000000000000000000000000000000000000000000000000000';
    this.clientSecret =
      options.clientSecret ?? 'A1B2C3D4E5F60718293A4B5C6D7E8F90A1B2C3D4E5F60718293A4B5C6D7E8F9';
    this.username = options.username ?? 'integration@buyer-intel.sandbox';
    this.accessTokenTtlSeconds = options.accessTokenTtlSeconds ?? 7200;
    this.rotateRefreshTokens = options.rotateRefreshTokens ?? false;
    this.jwtPublicKey = options.jwtPublicKey;
    this.#now = now;
    if (options.refreshToken) this.#refreshTokens.set(options.refreshToken, this.username);
  }

  /** A new session for the configured user (what a completed login hands the product). */
  issueAccessToken(username = this.username): string {
    const token = `${this.orgId.slice(0, 15)}!AQ${randomBytes(48).toString('base64url')}`;
    this.#sessions.set(token, { username, expiresAt: this.#now() + this.accessTokenTtlSeconds * 1000 });
    return token;
  }

  issueRefreshToken(username = this.username): string {
    const token = `5Aep861${randomBytes(42).toString('base64url')}`;
    this.#refreshTokens.set(token, username);
    return token;
  }

  revokeRefreshToken(token: string): boolean {
    return this.#refreshTokens.delete(token);
  }

  /** Ends sessions now: one token, or all. Returns how many. */
  expire(token?: string): number {
    let n = 0;
    for (const [t, s] of this.#sessions) {
      if (token !== undefined && t !== token) continue;
      if (s.expiresAt > this.#now()) n++;
      s.expiresAt = this.#now() - 1;
    }
    return n;
  }

  /** The caller of `Authorization: Bearer <session id>` (jsforce also sends `OAuth <id>`), or 401. */
  authenticate(header: string | undefined): Caller {
    const match = /^(?:Bearer|OAuth)\s+(\S+)$/i.exec(header ?? '');
    const token = match?.[1];
    const session = token ? this.#sessions.get(token) : undefined;
    if (!token || !session || session.expiresAt <= this.#now()) throw invalidSession();
    return { token, username: session.username };
  }

  /** POST /services/oauth2/token. `baseUrl` is the URL the request came to (login and instance URL). */
  grant(params: Record<string, string | undefined>, baseUrl: string): TokenResponse {
    const type = params.grant_type;
    if (type === 'refresh_token') return this.#refresh(params, baseUrl);
    if (type === JWT_GRANT) return this.#jwt(params.assertion, baseUrl);
    throw new OAuthError(400, 'unsupported_grant_type', 'grant type not supported');
  }

  #refresh(params: Record<string, string | undefined>, baseUrl: string): TokenResponse {
    if (params.client_id !== this.clientId)
      throw new OAuthError(400, 'invalid_client_id', 'client identifier invalid');
    if (params.client_secret !== undefined && params.client_secret !== this.clientSecret)
      throw new OAuthError(400, 'invalid_client', 'invalid client credentials');
    const old = params.refresh_token ?? '';
    const username = this.#refreshTokens.get(old);
    if (username === undefined) throw new OAuthError(400, 'invalid_grant', 'expired access/refresh token');
    let rotated: string | undefined;
    if (this.rotateRefreshTokens) {
      this.#refreshTokens.delete(old);
      rotated = this.issueRefreshToken(username);
    }
    return this.#response(username, baseUrl, rotated);
  }

  #jwt(assertion: string | undefined, baseUrl: string): TokenResponse {
    const invalid = () => new OAuthError(400, 'invalid_grant', 'invalid assertion');
    const parts = (assertion ?? '').split('.');
    if (parts.length !== 3 || !this.jwtPublicKey) throw invalid();
    const [h = '', p = '', s = ''] = parts;
    let header: Record<string, unknown>;
    let claims: Record<string, unknown>;
    try {
      header = JSON.parse(Buffer.from(h, 'base64url').toString('utf8')) as Record<string, unknown>;
      claims = JSON.parse(Buffer.from(p, 'base64url').toString('utf8')) as Record<string, unknown>;
    } catch {
      throw invalid();
    }
    if (header.alg !== 'RS256') throw invalid();
    const ok = verify('RSA-SHA256', Buffer.from(`${h}.${p}`), this.jwtPublicKey, Buffer.from(s, 'base64url'));
    if (!ok) throw invalid();
    if (claims.iss !== this.clientId)
      throw new OAuthError(400, 'invalid_client_id', 'client identifier invalid');
    const aud = Array.isArray(claims.aud) ? claims.aud : [claims.aud];
    const strip = (u: unknown) => String(u).replace(/\/+$/, '');
    if (!aud.some((a) => strip(a) === strip(baseUrl)))
      throw new OAuthError(400, 'invalid_grant', 'audience is invalid');
    if (typeof claims.exp !== 'number' || claims.exp * 1000 <= this.#now())
      throw new OAuthError(400, 'invalid_grant', 'expired authorization code');
    if (claims.sub !== this.username)
      throw new OAuthError(400, 'invalid_grant', "user hasn't approved this consumer");
    return this.#response(this.username, baseUrl, undefined);
  }

  #response(username: string, baseUrl: string, refreshToken: string | undefined): TokenResponse {
    const id = `${baseUrl}/id/${this.orgId}/${this.userId}`;
    const issuedAt = String(this.#now());
    const signature = createHmac('sha256', this.clientSecret)
      .update(id + issuedAt)
      .digest('base64');
    return {
      access_token: this.issueAccessToken(username),
      ...(refreshToken ? { refresh_token: refreshToken } : {}),
      signature,
      scope: 'api refresh_token',
      instance_url: baseUrl,
      id,
      token_type: 'Bearer',
      issued_at: issuedAt,
    };
  }
}
