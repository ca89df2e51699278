// The connector contract against the in-memory CRM: accounts are created in its store as a person
// would, our field and the id fields through the connector's own `ensureFields`.
import '../helpers/memory-crm.ts'; // first: registers the test double before the registry is read
import { randomUUID } from 'node:crypto';
import { createMemoryConnector } from '../../connectors/memory/connector.ts';
import { memoryCrm } from '../../connectors/memory/store.ts';
import { DEFAULT_MAPPING } from '../../src/map/default-mapping.ts';
import { idFieldDefinitions } from '../../src/map/field-definitions.ts';
import { connectorContract } from './contract.ts';

connectorContract('memory-crm', async () => {
  const store = memoryCrm(`contract-${randomUUID().slice(0, 8)}`);
  const connector = createMemoryConnector(store);
  const ourField = 'buyer_intel_population';
  await connector.ensureFields([
    { name: ourField, label: 'Population', type: 'string', description: 'Residents' },
    ...idFieldDefinitions(connector.idFields ?? [], DEFAULT_MAPPING).definitions,
  ]);
  return {
    connector,
    ourField,
    unknownId: 'acc999999999',
    async createAccount(values) {
      return store.createAccount(values);
    },
    async deleteAccount(id) {
      store.deleteAccount(id);
    },
    async giveOwner(accountId, email, { first, last }) {
      const id = `user${store.owners.length + 1}`;
      store.owners.push({ id, email, name: `${first} ${last}`, active: true });
      const account = store.accounts.get(accountId);
      if (account) account.ownerId = id;
      return id;
    },
    async readField(accountId, field) {
      return store.accounts.get(accountId)?.fields.get(field) ?? null;
    },
    async notesOn(accountId) {
      return store.notesOf(accountId).length;
    },
    close: async () => {},
  };
});
