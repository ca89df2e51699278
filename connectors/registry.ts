// Connector factories by CRM kind: `createConnector('hubspot', {...})` builds a connector from its
// configuration without the caller importing a CRM-specific module. HubSpot and Salesforce are
// registered here.

import { createHubSpotConnector, type HubSpotConnectorOptions } from './hubspot/connector.ts';
import { createSalesforceConnector, type SalesforceConnectorOptions } from './salesforce/connector.ts';
import type { CrmConnector, CrmKind } from './types.ts';

/** The configuration each kind's factory takes. */
export interface ConnectorConfigs {
  hubspot: HubSpotConnectorOptions;
  salesforce: SalesforceConnectorOptions;
}

export type ConnectorFactory<K extends CrmKind = CrmKind> = (config: ConnectorConfigs[K]) => CrmConnector;

const factories = new Map<CrmKind, (config: never) => CrmConnector>();

/** Registers (or replaces) the factory of a CRM kind. */
export function registerConnectorFactory<K extends CrmKind>(kind: K, factory: ConnectorFactory<K>): void {
  factories.set(kind, factory as (config: never) => CrmConnector);
}

export function hasConnectorFactory(kind: CrmKind): boolean {
  return factories.has(kind);
}

/** Builds a connector of the given kind; throws when no factory is registered for it. */
export function createConnector<K extends CrmKind>(kind: K, config: ConnectorConfigs[K]): CrmConnector {
  const factory = factories.get(kind) as ConnectorFactory<K> | undefined;
  if (!factory) throw new Error(`no connector registered for CRM kind "${kind}"`);
  const connector = factory(config);
  if (connector.kind !== kind) {
    throw new Error(`the factory registered for "${kind}" built a "${connector.kind}" connector`);
  }
  return connector;
}

registerConnectorFactory('hubspot', createHubSpotConnector);
registerConnectorFactory('salesforce', createSalesforceConnector);
