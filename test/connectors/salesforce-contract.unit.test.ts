// The connector contract against the Salesforce emulator, with notes as Tasks and as ContentNotes. The
// custom fields `setup` would create through the Metadata API (ours on Account, the id fields, the note
// key on Task, and on ContentVersion for ContentNotes) are defined in its store first.

import { expect } from 'vitest';
import { createSalesforceConnector } from '../../connectors/salesforce/connector.ts';
import { to18 } from '../../emulators/salesforce/ids.ts';
import { startSalesforceSandbox } from '../../emulators/salesforce/server.ts';
import { connectorContract, type Harness } from './contract.ts';

/** Our field names → the API names the connector uses by default. */
const API_NAMES: Record<string, string> = { buyer_intel_population: 'BuyerIntel_Population__c' };

function apiName(ourField: string): string {
  const name = API_NAMES[ourField];
  if (!name) throw new Error(`no API name for ${ourField}`);
  return name;
}

const harness = (notes: 'task' | 'content-note') => async (): Promise<Harness> => {
  const sandbox = await startSalesforceSandbox();
  const { store } = sandbox;
  for (const name of Object.values(API_NAMES)) store.defineCustomField('Account', name);
  // Follow-up tasks are Tasks in either form: the key is on Task in both.
  store.defineCustomField('Task', 'BuyerIntel_Key__c');
  if (notes === 'content-note') store.defineCustomField('ContentVersion', 'BuyerIntel_Key__c');

  const connector = createSalesforceConnector({
    instanceUrl: sandbox.url,
    loginUrl: sandbox.url,
    accessToken: sandbox.accessToken,
    refreshToken: sandbox.refreshToken,
    clientId: sandbox.clientId,
    clientSecret: sandbox.clientSecret,
    apiVersion: '62.0',
    orgId: sandbox.orgId,
    notes,
  });
  for (const field of connector.idFields ?? []) store.defineCustomField('Account', field.name);

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
    async giveOwner(accountId, email, { first, last }) {
      const user = store.create('User', { Username: email, Email: email, FirstName: first, LastName: last });
      store.update('Account', accountId, { OwnerId: user.id });
      return user.id;
    },
    async readField(accountId, field) {
      const value = store.find('Account', accountId).values.get(apiName(field));
      return value === null || value === undefined ? null : String(value);
    },
    async notesOn(accountId) {
      if (notes === 'task')
        return store.list('Task').filter((task) => task.values.get('WhatId') === accountId).length;
      // Notes linked to the account; no ContentNote is left behind unlinked.
      const linked = store
        .list('ContentDocumentLink')
        .filter((link) => link.values.get('LinkedEntityId') === accountId)
        .map((link) => String(link.values.get('ContentDocumentId')));
      const notesOfLinks = store.list('ContentNote').filter((note) => linked.includes(note.id));
      const unlinked = store
        .list('ContentNote')
        .filter((note) =>
          store
            .list('ContentDocumentLink')
            .every(
              (link) =>
                link.values.get('ContentDocumentId') !== note.id ||
                link.values.get('LinkedEntityId') === store.userId,
            ),
        );
      expect(unlinked).toEqual([]);
      // A removed note takes its links with it: none is left pointing at a deleted document.
      const liveDocuments = new Set(store.list('ContentDocument').map((doc) => doc.id));
      const dangling = store
        .list('ContentDocumentLink')
        .filter((link) => !liveDocuments.has(String(link.values.get('ContentDocumentId'))));
      expect(dangling).toEqual([]);
      return notesOfLinks.length;
    },
    close: () => sandbox.close(),
  };
};

connectorContract('salesforce', harness('task'));
connectorContract('salesforce (ContentNote)', harness('content-note'));
