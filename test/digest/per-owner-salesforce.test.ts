// The per-owner digest on Salesforce: users from a SOQL query on User, each Account's owner from its
// OwnerId, through the real connector against the Salesforce emulator.
import { createSalesforceConnector } from '../../connectors/salesforce/connector.ts';
import { type RunningSalesforceSandbox, startSalesforceSandbox } from '../../emulators/salesforce/server.ts';
import { describeOwnerDigest } from './per-owner-scenario.ts';

let sf: RunningSalesforceSandbox;

describeOwnerDigest({
  kind: 'salesforce',
  async start() {
    sf = await startSalesforceSandbox();
    return {
      tenant: sf.orgId,
      connector: createSalesforceConnector({
        instanceUrl: sf.url,
        loginUrl: sf.url,
        accessToken: sf.accessToken,
        refreshToken: sf.refreshToken,
        clientId: sf.clientId,
        clientSecret: sf.clientSecret,
        apiVersion: '62.0',
        orgId: sf.orgId,
      }),
      close: () => sf.close(),
    };
  },
  async addOwner(email, firstName, lastName) {
    return sf.store.create('User', {
      Username: email,
      Email: email,
      FirstName: firstName,
      LastName: lastName,
    }).id;
  },
  async addAccount(name, ownerId) {
    return sf.store.create('Account', { Name: name, OwnerId: ownerId }).id;
  },
  async deactivateOwner(ownerId) {
    sf.store.update('User', ownerId, { IsActive: false });
  },
  // Started from a configured access token, the connector saw no token response: UserInfo names it.
  async integrationOwner() {
    const email = sf.store.find('User', sf.store.userId).values.get('Email');
    return { id: sf.store.userId, email: String(email) };
  },
});
