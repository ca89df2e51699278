// One session refresh at a time across workers, for every CRM whose tokens expire (Salesforce
// sessions, HubSpot OAuth installs). jsforce refreshes once per Connection; with several processes
// (or several connectors) on one org every one of them would refresh on the same expiry, and with
// rotating refresh tokens all but the first would present a revoked token. `lockedRefresh` takes the
// project's one Redis lock (src/shared/redis-lock.ts: a unique owner, released only by it); a worker that finds the lock held waits (polling,
// bounded) for the token the holder stores under `key` (JSON) instead of refreshing again.

import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import { IntegrationError } from '../src/shared/errors.ts';
import { releaseLocks, takeLock } from '../src/shared/redis-lock.ts';

export interface StoredToken {
  accessToken: string;
  /** The current refresh token (the rotated one when the org rotates them). */
  refreshToken?: string;
  /** When it was stored (ms since epoch). */
  storedAt: number;
  /** When the access token expires (ms since epoch), when the CRM said; for the console. */
  expiresAt?: number;
  /** The permissions the grant holds, when the CRM said; for the console. */
  scopes?: string[];
}

export interface RefreshedToken {
  accessToken: string;
  refreshToken?: string;
  expiresAt?: number;
  scopes?: string[];
}

/** How a stored token is written to and read from Redis, e.g. encrypted. Default: plain JSON. */
export interface TokenCodec {
  encode(plain: string): string;
  decode(stored: string): string;
}

const PLAIN: TokenCodec = { encode: (s) => s, decode: (s) => s };

export interface LockedRefreshOptions {
  /** How the token is kept in Redis (e.g. encrypted at rest). */
  codec?: TokenCodec;
  /**
   * The access token the caller found expired. A stored token other than this one is newer (another
   * worker refreshed): it is returned without refreshing. Without it, any stored token is taken.
   */
  staleAccessToken?: string;
  /** How long the lock lives if its holder dies. Default 30 s. */
  lockTtlMs?: number;
  /** How long to wait for another worker's refresh before giving up. Default 30 s. */
  waitTimeoutMs?: number;
  /** Poll interval while waiting. Default 50 ms. */
  pollMs?: number;
}

/** Another worker's refresh outlasted our wait: the token will likely be there on the next attempt. */
export class TokenRefreshTimeoutError extends IntegrationError {
  constructor(key: string, waitedMs: number) {
    super(`another worker held the token refresh lock for ${key} longer than ${waitedMs} ms`, {
      permanent: false,
    });
  }
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export const lockKeyOf = (key: string): string => `${key}:lock`;

/** The token stored under `key`, or null when none (or unreadable). */
export async function readStoredToken(
  redis: Redis,
  key: string,
  codec: TokenCodec = PLAIN,
): Promise<StoredToken | null> {
  const raw = await redis.get(key);
  if (!raw) return null;
  try {
    const value = JSON.parse(codec.decode(raw)) as Partial<StoredToken>;
    if (typeof value.accessToken !== 'string' || value.accessToken === '') return null;
    return {
      accessToken: value.accessToken,
      ...(typeof value.refreshToken === 'string' ? { refreshToken: value.refreshToken } : {}),
      storedAt: typeof value.storedAt === 'number' ? value.storedAt : 0,
      ...(typeof value.expiresAt === 'number' ? { expiresAt: value.expiresAt } : {}),
      ...(Array.isArray(value.scopes) ? { scopes: value.scopes.filter((x) => typeof x === 'string') } : {}),
    };
  } catch {
    return null;
  }
}

/** Stores a token; a refresh token not given keeps the one stored before. */
export async function storeToken(
  redis: Redis,
  key: string,
  token: RefreshedToken,
  previous?: StoredToken | null,
  codec: TokenCodec = PLAIN,
): Promise<StoredToken> {
  const refreshToken = token.refreshToken ?? previous?.refreshToken;
  const stored: StoredToken = {
    accessToken: token.accessToken,
    ...(refreshToken ? { refreshToken } : {}),
    storedAt: Date.now(),
    ...(token.expiresAt !== undefined ? { expiresAt: token.expiresAt } : {}),
    // A refresh that does not restate the grant keeps the one known before.
    ...((token.scopes ?? previous?.scopes) ? { scopes: token.scopes ?? previous?.scopes ?? [] } : {}),
  };
  await redis.set(key, codec.encode(JSON.stringify(stored)));
  return stored;
}

/**
 * A fresh token: the one another worker stored since `staleAccessToken` expired, or the result of
 * `refresh` (called with what is stored, e.g. to use its rotated refresh token) run under the lock and
 * stored. Rejects with `refresh`'s error, or TokenRefreshTimeoutError after `waitTimeoutMs`.
 */
export async function lockedRefresh(
  redis: Redis,
  key: string,
  refresh: (stored: StoredToken | null) => Promise<RefreshedToken>,
  opts: LockedRefreshOptions = {},
): Promise<StoredToken> {
  const lockTtlMs = opts.lockTtlMs ?? 30_000;
  const waitTimeoutMs = opts.waitTimeoutMs ?? 30_000;
  const pollMs = opts.pollMs ?? 50;
  const lockKey = lockKeyOf(key);
  const codec = opts.codec ?? PLAIN;
  const isFresh = (t: StoredToken | null): t is StoredToken =>
    t !== null && t.accessToken !== opts.staleAccessToken;

  const started = Date.now();
  for (;;) {
    const before = await readStoredToken(redis, key, codec);
    if (isFresh(before)) return before;

    const owner = randomUUID();
    if (await takeLock(redis, lockKey, owner, lockTtlMs)) {
      try {
        // Another worker may have stored a token between our read and our lock.
        const current = await readStoredToken(redis, key, codec);
        if (isFresh(current)) return current;
        const token = await refresh(current);
        return await storeToken(redis, key, token, current, codec);
      } finally {
        await releaseLocks(redis, [lockKey], owner);
      }
    }

    // Someone else is refreshing: wait for its token (or for the lock to go away, then try again).
    while (Date.now() - started < waitTimeoutMs) {
      await sleep(pollMs);
      const stored = await readStoredToken(redis, key, codec);
      if (isFresh(stored)) return stored;
      if ((await redis.exists(lockKey)) === 0) break;
    }
    if (Date.now() - started >= waitTimeoutMs) throw new TokenRefreshTimeoutError(key, waitTimeoutMs);
  }
}
