// The connector contract against the HubSpot emulator: companies are created in the emulator's store as
// a person would, our field and the id properties through the connector's own `ensureFields`. The
// private app holds exactly the scopes our scope table names for every feature, so a call the table
// misses (or names the wrong scope for) is refused here.
import { Client } from '@hubspot/api-client';
import { ALL_CRM_FEATURES } from '../../connectors/descriptor.ts';
import { createHubSpotConnector } from '../../connectors/hubspot/connector.ts';
import { hubspotScopes } from '../../connectors/hubspot/scopes.ts';
import { startHubSpotSandbox } from '../../emulators/hubspot/server.ts';
import { DEFAULT_MAPPING } from '../../src/map/default-mapping.ts';
import { idFieldDefinitions } from '../../src/map/field-definitions.ts';
import { connectorContract } from './contract.ts';

connectorContract('hubspot', async () => {
  const sandbox = await startHubSpotSandbox({ auth: { privateAppScopes: hubspotScopes(ALL_CRM_FEATURES) } });
  const { store } = sandbox;
  // A person deletes companies in HubSpot; we archive through HubSpot's own API, as that does.
  const hubspot = new Client({
    accessToken: sandbox.accessToken,
    basePath: sandbox.url,
    numberOfApiCallRetries: 0,
  });

  const connector = createHubSpotConnector({
    accessToken: sandbox.accessToken,
    basePath: sandbox.url,
    portalId: String(sandbox.portalId),
  });
  const ourField = 'buyer_intel_population';
  await connector.ensureFields([
    { name: ourField, label: 'Population', type: 'string', description: 'Residents' },
    ...idFieldDefinitions(connector.idFields ?? [], DEFAULT_MAPPING).definitions,
  ]);

  return {
    connector,
    ourField,
    unknownId: '99999999999',
    async createAccount({ name, state, website }) {
      return store.createCompany({ name, ...(state ? { state } : {}), ...(website ? { website } : {}) }).id;
    },
    async deleteAccount(id) {
      await hubspot.crm.companies.basicApi.archive(id);
    },
    async giveOwner(accountId, email, { first, last }) {
      const owner = store.owners.add({ email, firstName: first, lastName: last });
      store.updateCompany(accountId, { hubspot_owner_id: owner.id });
      return owner.id;
    },
    async readField(accountId, field) {
      return store.valueOf('companies', accountId, field) ?? null;
    },
    async notesOn(accountId) {
      return store.notesOf(accountId).length;
    },
    close: () => sandbox.close(),
  };
});
