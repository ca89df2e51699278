// The user the connection acts as (the integration user), who owns what the sync creates but is no rep.
// An OAuth access token names the user who installed the app: HubSpot's OAuth guide, "Retrieve access
// token metadata" (GET /oauth/v1/access-tokens/{token}) answers their email (`user`) and id
// (`user_id`); an owner (Owners API v3, PublicOwner) carries the same `userId` and email. Asked once a
// connection and kept: the token's user does not change while it lives. A private-app token belongs
// to no user (the app acts as itself), so nothing is asked and no owner is taken for it.
import { z } from 'zod';
import { failureFacts } from '../../src/shared/errors.ts';
import type { HubSpotCalls } from './client.ts';

export interface OwnUser {
  userId: number;
  email: string | null;
}

// The SDK's model names them userId and user; zod keeps what the rest of the code reads.
const TOKEN_INFO = z.object({ userId: z.number().int(), user: z.string().optional() });

export function ownUserOf(calls: HubSpotCalls): () => Promise<OwnUser | undefined> {
  const { tokenInfo } = calls;
  if (!tokenInfo) return async () => undefined;
  let asked: Promise<OwnUser | undefined> | undefined;
  const ask = async (): Promise<OwnUser | undefined> => {
    try {
      const { data } = await calls.call('oauth.accessTokensApi.get', tokenInfo);
      const parsed = TOKEN_INFO.safeParse(data);
      return parsed.success ? { userId: parsed.data.userId, email: parsed.data.user ?? null } : undefined;
    } catch (err) {
      // Refused for good (no OAuth token after all): no user to know. Anything else may pass later.
      if (failureFacts(err)?.permanent) return undefined;
      asked = undefined;
      throw err;
    }
  };
  return () => {
    asked ??= ask();
    return asked;
  };
}

/** Whether an owner is that user: by user id, else by email (case as HubSpot may vary it). */
export function isOwnUser(owner: { userId?: number; email?: string }, own: OwnUser | undefined): boolean {
  if (!own) return false;
  if (owner.userId !== undefined) return owner.userId === own.userId;
  return own.email !== null && owner.email?.toLowerCase() === own.email.toLowerCase();
}
