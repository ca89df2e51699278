// The user the connection signs in as (its integration user), who owns what the sync creates but is no
// rep. A token response names it (its `id`, the identity URL …/id/{orgId}/{userId}: session.ts); a
// session started from a configured access token never saw one, so the connection asks Salesforce's
// UserInfo endpoint once (Salesforce Help, "Query for User Information": GET
// /services/oauth2/userinfo answers "information only for the current user", `user_id` among the
// OpenID Connect claims) and keeps the answer for its lifetime: the user behind a connection does not
// change while it lives.
import { z } from 'zod';
import { failureFacts } from '../../src/shared/errors.ts';
import type { SalesforceCalls } from './client.ts';

const USERINFO = z.object({ user_id: z.string().regex(/^005[a-zA-Z0-9]{12}(?:[a-zA-Z0-9]{3})?$/) });

/** The connection's own user id: from a token response, else from UserInfo (asked once, then kept). */
export function ownUserOf(calls: SalesforceCalls): () => Promise<string | undefined> {
  let asked: Promise<string | undefined> | undefined;
  const ask = async (): Promise<string | undefined> => {
    try {
      const answer = await calls.call('oauth2.userinfo', () =>
        calls.conn.request<unknown>({ method: 'GET', url: '/services/oauth2/userinfo' }),
      );
      const parsed = USERINFO.safeParse(answer);
      return parsed.success ? parsed.data.user_id : undefined;
    } catch (err) {
      // Refused for good (a token without the scope for it): not known, and asking again changes
      // nothing. Anything else may pass later: ask again next time, and fail this read as it is.
      if (failureFacts(err)?.permanent) return undefined;
      asked = undefined;
      throw err;
    }
  };
  return async () => {
    const named = calls.ownUserId();
    if (named !== undefined) return named;
    asked ??= ask();
    return (await asked) ?? calls.ownUserId();
  };
}
