// The per-owner digest on HubSpot: owners from the Owners API (GET /crm/v3/owners), each company's
// owner from its `hubspot_owner_id`, through the real connector against the HubSpot emulator.
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
      connector: createHubSpotConnector({ accessToken: hs.accessToken, portalId: tenant, basePath: hs.url }),
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
});
