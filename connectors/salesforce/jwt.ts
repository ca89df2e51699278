// The OAuth 2.0 JWT bearer flow for Salesforce: a connected app with a certificate, an integration user
// pre-authorised for it, and no refresh token at all. We sign the assertion (RS256, with `jose`) and POST
// it to `${loginUrl}/services/oauth2/token`; Salesforce answers with a session (no refresh token). The
// assertion carries iss = consumer key, sub = username, aud = login URL and a short exp (≤ 3 minutes).

import type { KeyObject } from 'node:crypto';
import { importPKCS8, SignJWT } from 'jose';
import type { Connection } from 'jsforce';

export const JWT_BEARER_GRANT = 'urn:ietf:params:oauth:grant-type:jwt-bearer';

export interface JwtAssertionOptions {
  /** Connected app consumer key (the `iss` claim). */
  clientId: string;
  /** The Salesforce username the session is for (the `sub` claim). */
  username: string;
  /** The login URL (the `aud` claim): https://login.salesforce.com, https://test.salesforce.com or the My Domain URL. */
  audience: string;
  /** The connected app's private key: a PKCS#8 PEM or a KeyObject. */
  privateKey: string | KeyObject;
  /** Lifetime of the assertion. Default 180 s (Salesforce accepts at most 3 minutes). */
  lifetimeSeconds?: number;
}

/** A signed RS256 assertion for the JWT bearer grant. */
export async function signJwtAssertion(options: JwtAssertionOptions): Promise<string> {
  const { clientId, username, audience, privateKey, lifetimeSeconds = 180 } = options;
  const key = typeof privateKey === 'string' ? await importPKCS8(privateKey, 'RS256') : privateKey;
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({})
    .setProtectedHeader({ alg: 'RS256' })
    .setIssuer(clientId)
    .setSubject(username)
    .setAudience(audience)
    .setExpirationTime(now + lifetimeSeconds)
    .sign(key);
}

/** What the token endpoint answers (the fields we read). */
export interface SalesforceTokenResponse {
  access_token: string;
  refresh_token?: string;
  instance_url: string;
  id: string;
  issued_at?: string;
  [key: string]: unknown;
}

export interface JwtGrantOptions {
  clientId: string;
  username: string;
  privateKey: string | KeyObject;
  /** Default: the connection's oauth2.loginUrl. */
  loginUrl?: string;
  lifetimeSeconds?: number;
}

/**
 * One JWT bearer grant through the connection's OAuth2 client (POST ${loginUrl}/services/oauth2/token).
 * Does not change the connection: the caller (jsforce's refresh delegate) installs the token.
 */
export async function requestJwtToken(
  conn: Connection,
  options: JwtGrantOptions,
): Promise<SalesforceTokenResponse> {
  const loginUrl = (options.loginUrl ?? conn.oauth2.loginUrl).replace(/\/+$/, '');
  const assertion = await signJwtAssertion({
    clientId: options.clientId,
    username: options.username,
    audience: loginUrl,
    privateKey: options.privateKey,
    ...(options.lifetimeSeconds !== undefined ? { lifetimeSeconds: options.lifetimeSeconds } : {}),
  });
  const res = await conn.oauth2.requestToken({ grant_type: JWT_BEARER_GRANT, assertion });
  return res as unknown as SalesforceTokenResponse;
}

/**
 * A jsforce `refreshFn` that gets a new session with the JWT bearer grant:
 * `new Connection({ ..., refreshFn: jwtRefreshFn({ clientId, username, privateKey }) })`.
 */
export function jwtRefreshFn(
  options: JwtGrantOptions,
): (
  conn: Connection,
  callback: (err?: Error, accessToken?: string, res?: SalesforceTokenResponse) => void,
) => void {
  return (conn, callback) => {
    requestJwtToken(conn, options).then(
      (res) => callback(undefined, res.access_token, res),
      (err: unknown) => callback(err instanceof Error ? err : new Error(String(err))),
    );
  };
}
