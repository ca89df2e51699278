// GET /services/oauth2/userinfo: who the access token belongs to, as OpenID Connect's UserInfo answers it
// (Salesforce Help, "Query for User Information": the endpoint "provides access to information only for
// the current user"; `sub` is the identity URL https://login.salesforce.com/id/{orgId}/{userId}). The
// product asks it once per connection when no token response named the user it signs in as (a session
// started from a configured access token). A token that is no session answers 403 Bad_OAuth_Token, as
// the identity URL's error table says. Not counted against the API allocation.
import type { Request, Response, Router } from 'express';
import { SalesforceError, sendJson } from '../errors.ts';
import type { OperationContext } from '../operation.ts';

export function registerUserInfoRoutes(router: Router, ctx: OperationContext): void {
  router.get('/services/oauth2/userinfo', (req: Request, res: Response) => {
    const operation = 'oauth2.userinfo';
    res.on('finish', () => ctx.stats.record(operation, res.statusCode));
    try {
      ctx.auth.authenticate(req.get('authorization'));
    } catch (err) {
      if (!(err instanceof SalesforceError)) throw err;
      res.status(403).type('text/plain').send('Bad_OAuth_Token');
      return;
    }
    const baseUrl = `${req.protocol}://${req.get('host') ?? 'localhost'}`;
    const { orgId, userId } = ctx.auth;
    const user = ctx.store.find('User', userId).values;
    const text = (field: string) => {
      const v = user.get(field);
      return typeof v === 'string' && v ? v : undefined;
    };
    const email = text('Email') ?? '';
    sendJson(res, 200, {
      sub: `${baseUrl}/id/${orgId}/${userId}`,
      user_id: userId,
      organization_id: orgId,
      preferred_username: text('Username') ?? email,
      nickname: text('CommunityNickname') ?? email.split('@')[0] ?? '',
      name: text('Name') ?? [text('FirstName'), text('LastName')].filter(Boolean).join(' '),
      email,
      email_verified: true,
      ...(text('FirstName') ? { given_name: text('FirstName') } : {}),
      family_name: text('LastName') ?? '',
      zoneinfo: text('TimeZoneSidKey') ?? 'America/Los_Angeles',
      active: user.get('IsActive') !== false,
      user_type: 'STANDARD',
      language: 'en_US',
      locale: 'en_US',
      utcOffset: -28800000,
      updated_at: new Date().toISOString().replace(/\.\d+Z$/, '+0000'),
    });
  });
}
