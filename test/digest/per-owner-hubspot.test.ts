// The per-owner digest on HubSpot: owners from the Owners API (GET /crm/v3/owners), each company's
// owner from its `hubspot_owner_id`, through the real connector against the HubSpot emulator; the OAuth
// token's own user (GET /oauth/v1/access-tokens/{token}) is the integration user.
import { createHubSpotConnector } from '../../connectors/hubspot/connector.ts';
import { type RunningHubSpotSandbox, startHubSpotSandbox } from '../../emulators/hubspot/server.ts';
import { describeOwnerDigest } from './per-owner-scenario.ts';

let hs: RunningHubSpotSandbox;

describeOwnerDigest({
  kind: 'hubspot',
  async start() {
    hs = await startHubSpotSandbox({});
    const tenant = String(hs.portalId);
    return {
      tenant,
      // An OAuth install's token: it names the user who installed the app (a private-app token names none).
      connector: createHubSpotConnector({
        accessToken: hs.auth.issueTokens().access_token,
        portalId: tenant,
        basePath: hs.url,
      }),
      close: () => hs.close(),
    };
  },
  async addOwner(email, firstName, lastName) {
    return hs.store.owners.add({ email, firstName, lastName }).id;
  },
  async addAccount(name, ownerId) {
    return hs.store.createCompany({ name, hubspot_owner_id: ownerId }, { source: 'CRM_UI' }).id;
  },
  async deactivateOwner(ownerId) {
    hs.store.owners.archive(ownerId);
  },
  // The installing user is a user of the portal, so an owner too (with the same user id and email).
  async integrationOwner() {
    const { userEmail: email, userId } = hs.auth;
    return {
      id: hs.store.owners.add({ email, firstName: 'Integration', lastName: 'User', userId }).id,
      email,
    };
  },
});
