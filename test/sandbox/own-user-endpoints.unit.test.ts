// The emulators' answers to "who is this token?", as the CRMs document them: Salesforce's UserInfo
// (GET /services/oauth2/userinfo: the token's own user, `sub` its identity URL) and HubSpot's access
// token metadata (GET /oauth/v1/access-tokens/{token}: the installing user; a private-app token is no
// OAuth token and has none, hubspot-api-nodejs#530). The per-owner digest tells the integration user apart with these.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningHubSpotSandbox, startHubSpotSandbox } from '../../emulators/hubspot/server.ts';
import { type RunningSalesforceSandbox, startSalesforceSandbox } from '../../emulators/salesforce/server.ts';

let sf: RunningSalesforceSandbox;
let hs: RunningHubSpotSandbox;

beforeAll(async () => {
  [sf, hs] = await Promise.all([startSalesforceSandbox(), startHubSpotSandbox({})]);
});
afterAll(async () => {
  await Promise.all([sf?.close(), hs?.close()]);
});

describe('Salesforce UserInfo', () => {
  it('names the session’s own user, the integration user of the org', async () => {
    const res = await fetch(`${sf.url}/services/oauth2/userinfo`, {
      headers: { authorization: `Bearer ${sf.accessToken}` },
    });
    expect(res.status).toBe(200);
    const body = (await res.json()) as Record<string, unknown>;
    expect(body).toMatchObject({ user_id: sf.store.userId, organization_id: sf.orgId });
    expect(body.sub).toBe(`${sf.url}/id/${sf.orgId}/${sf.store.userId}`);
    expect(body.email).toBe(sf.store.find('User', sf.store.userId).values.get('Email'));
  });

  it('refuses a token that is no session with 403 Bad_OAuth_Token', async () => {
    const res = await fetch(`${sf.url}/services/oauth2/userinfo`, {
      headers: { authorization: 'Bearer nope' },
    });
    expect(res.status).toBe(403);
    expect(await res.text()).toBe('Bad_OAuth_Token');
  });
});

describe('HubSpot access token metadata', () => {
  it('names the user who installed the OAuth app', async () => {
    const token = hs.auth.issueTokens().access_token;
    const res = await fetch(`${hs.url}/oauth/v1/access-tokens/${encodeURIComponent(token)}`);
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({
      token,
      user: hs.auth.userEmail,
      user_id: hs.auth.userId,
      hub_id: hs.portalId,
      token_type: 'access',
    });
  });

  it('knows no user for a private-app token (400, as HubSpot answers it), nor for an unknown one', async () => {
    for (const token of [hs.accessToken, 'Cunknown']) {
      const res = await fetch(`${hs.url}/oauth/v1/access-tokens/${encodeURIComponent(token)}`);
      expect(res.status).toBe(400);
      expect(await res.json()).toMatchObject({ message: 'The access token must have the correct format' });
    }
  });
});
