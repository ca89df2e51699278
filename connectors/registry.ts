// What each CRM kind supplies, by kind: a connector factory and an inbound-event handler factory. The
// service builds both from configuration without importing a CRM-specific module. HubSpot and
// Salesforce are registered here; a new CRM adds one folder and one `registerCrm` line.

import { createHubSpotConnector, type HubSpotConnectorOptions } from './hubspot/connector.ts';
import { type HubSpotEventOptions, hubspotEventHandler } from './hubspot/events.ts';
import { createSalesforceConnector, type SalesforceConnectorOptions } from './salesforce/connector.ts';
import { type OutboundMessageOptions, salesforceOutboundHandler } from './salesforce/outbound-messages.ts';
import type { CrmConnector, CrmKind, InboundEventHandler } from './types.ts';

/** The configuration each kind's factories take. */
export interface CrmConfigs {
  hubspot: { connector: HubSpotConnectorOptions; events: HubSpotEventOptions };
  salesforce: { connector: SalesforceConnectorOptions; events: OutboundMessageOptions };
}

export interface CrmFactories<K extends CrmKind = CrmKind> {
  connector: (config: CrmConfigs[K]['connector']) => CrmConnector;
  events: (config: CrmConfigs[K]['events']) => InboundEventHandler;
}

const registry = new Map<CrmKind, CrmFactories<never>>();

/** Registers (or replaces) what a CRM kind supplies. */
export function registerCrm<K extends CrmKind>(kind: K, factories: CrmFactories<K>): void {
  registry.set(kind, factories as unknown as CrmFactories<never>);
}

function factoriesOf<K extends CrmKind>(kind: K): CrmFactories<K> {
  const factories = registry.get(kind) as CrmFactories<K> | undefined;
  if (!factories) throw new Error(`no connector registered for CRM kind "${kind}"`);
  return factories;
}

/** Builds a connector of the given kind; throws when nothing is registered for it. */
export function createConnector<K extends CrmKind>(
  kind: K,
  config: CrmConfigs[K]['connector'],
): CrmConnector {
  const connector = factoriesOf(kind).connector(config);
  if (connector.kind !== kind) {
    throw new Error(`the factory registered for "${kind}" built a "${connector.kind}" connector`);
  }
  return connector;
}

/** Builds the handler that verifies and parses the kind's event deliveries. */
export function createEventHandler<K extends CrmKind>(
  kind: K,
  config: CrmConfigs[K]['events'],
): InboundEventHandler {
  return factoriesOf(kind).events(config);
}

registerCrm('hubspot', { connector: createHubSpotConnector, events: hubspotEventHandler });
registerCrm('salesforce', { connector: createSalesforceConnector, events: salesforceOutboundHandler });
