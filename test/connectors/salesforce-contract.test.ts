// The connector contract against the Salesforce emulator. It has no Metadata API, so the custom fields
// `setup` would create (ours on Account, the note key on Task) are defined in its store first.
import { createSalesforceConnector } from '../../connectors/salesforce/connector.ts';
import { to18 } from '../../src/sandbox/salesforce/ids.ts';
import { startSalesforceSandbox } from '../../src/sandbox/salesforce/server.ts';
import { connectorContract } from './contract.ts';

/** Our field names → the API names the connector uses by default. */
const API_NAMES: Record<string, string> = { buyer_intel_population: 'BuyerIntel_Population__c' };

function apiName(ourField: string): string {
  const name = API_NAMES[ourField];
  if (!name) throw new Error(`no API name for ${ourField}`);
  return name;
}

connectorContract('salesforce', async () => {
  const sandbox = await startSalesforceSandbox();
  const { store } = sandbox;
  for (const name of Object.values(API_NAMES)) store.defineCustomField('Account', name);
  store.defineCustomField('Task', 'BuyerIntel_Key__c');

  const connector = createSalesforceConnector({
    instanceUrl: sandbox.url,
    loginUrl: sandbox.url,
    accessToken: sandbox.accessToken,
    refreshToken: sandbox.refreshToken,
    clientId: sandbox.clientId,
    clientSecret: sandbox.clientSecret,
    apiVersion: '62.0',
    orgId: sandbox.orgId,
  });

  return {
    connector,
    ourField: 'buyer_intel_population',
    unknownId: to18('001Dn0000000001'),
    async createAccount({ name, state, website }) {
      return store.create('Account', {
        Name: name,
        ...(state ? { BillingState: state } : {}),
        ...(website ? { Website: website } : {}),
      }).id;
    },
    async deleteAccount(id) {
      store.delete('Account', id);
    },
    async readField(accountId, field) {
      const value = store.find('Account', accountId).values.get(apiName(field));
      return value === null || value === undefined ? null : String(value);
    },
    async notesOn(accountId) {
      return store.list('Task').filter((task) => task.values.get('WhatId') === accountId).length;
    },
    close: () => sandbox.close(),
  };
});
