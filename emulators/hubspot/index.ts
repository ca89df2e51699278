// The HubSpot emulator's descriptor (emulators/descriptor.ts): how the sandbox, the demo, the test
// service and the conformance check start it, point the service at it and act in it as a person would.
import type { HubSpotConfig } from '../../connectors/hubspot/config.ts';
import type { EmulatorDescriptor } from '../descriptor.ts';
import { HUBSPOT_REFERENCE } from './reference.ts';
import { type RunningHubSpotSandbox, startHubSpotSandbox } from './server.ts';

/** What the service needs of a running one: plain data, so the bench can pass it between processes. */
export type HubSpotEndpoint = Pick<
  RunningHubSpotSandbox,
  'url' | 'accessToken' | 'portalId' | 'clientSecret' | 'appId'
>;

const domainOf = (website: string) => new URL(website).hostname.replace(/^www\./, '');

export const hubspotEmulator: EmulatorDescriptor<RunningHubSpotSandbox, HubSpotEndpoint> = {
  kind: 'hubspot',
  label: 'HubSpot emulator',
  demoHeading: 'HubSpot companies (notes = signal notes, or the owner’s tasks, on the company):',
  port: 4020,
  conformance: HUBSPOT_REFERENCE,
  // The private-app token is fixed already: nothing to pin for the sandbox.
  start: ({ port, host } = {}) => startHubSpotSandbox({ port: port ?? 0, ...(host ? { host } : {}) }),
  settings: (hs) =>
    ({
      app: { clientSecret: hs.clientSecret, appId: String(hs.appId), basePath: hs.url },
      portal: { portalId: String(hs.portalId), accessToken: hs.accessToken },
    }) satisfies HubSpotConfig,
  tenantOf: (hs) => String(hs.portalId),
  describe: (hs, firstId) => ({
    heading: `HubSpot emulator: ${hs.url}  (portal ${hs.portalId})`,
    examples: [
      `try: curl -H 'Authorization: Bearer ${hs.accessToken}' '${hs.url}/crm/v3/objects/companies/${firstId}?properties=name,state'`,
    ],
    exports: [
      `export HUBSPOT_BASE_PATH=${hs.url}`,
      `export HUBSPOT_ACCESS_TOKEN=${hs.accessToken}`,
      `export HUBSPOT_PORTAL_ID=${hs.portalId}`,
      `export HUBSPOT_CLIENT_SECRET=${hs.clientSecret}`,
      `export HUBSPOT_APP_ID=${hs.appId}`,
    ],
  }),
  createAccount: (hs, account, how) =>
    hs.store.createCompany(
      {
        name: account.name,
        ...(account.state ? { state: account.state } : {}),
        ...(account.website ? { domain: domainOf(account.website) } : {}),
        ...(how.owner ? { hubspot_owner_id: how.owner } : {}),
      },
      { source: how.imported ? 'IMPORT' : 'CRM_UI' },
    ).id,
  sendEventsTo(hs, serviceUrl) {
    const targetUrl = `${serviceUrl.replace(/\/+$/, '')}/webhooks/hubspot`;
    // Events of accounts created before wait in the batch window: sent nowhere (no target yet), they go.
    hs.webhooks.flush();
    hs.webhooks.configure({ targetUrl, propertyChanges: [] });
    return targetUrl;
  },
  // Webhooks are signed with the app's client secret, which the config section carries already.
  serviceExports: [],
  addOwner: (hs, person) => hs.store.owners.add(person).id,
  setOwner: (hs, accountId, owner) =>
    hs.store.updateCompany(accountId, { hubspot_owner_id: owner }, { source: 'CRM_UI' }),
  activityCount: (hs, id) =>
    hs.store.notesOf(id).length + hs.store.associations('companies', id, 'tasks').length,
  tasksOf: (hs, accountId, owner) =>
    hs.store.associations('companies', accountId, 'tasks').flatMap(({ toId }) => {
      const v = (p: string) => hs.store.get('tasks', toId)?.values.get(p) ?? '';
      if (v('hubspot_owner_id') !== owner) return [];
      return [
        {
          id: toId,
          subject: v('hs_task_subject'),
          owner: v('hubspot_owner_id'),
          due: v('hs_timestamp').slice(0, 10),
          priority: v('hs_task_priority'),
        },
      ];
    }),
  completeTask: (hs, taskId) =>
    hs.store.update('tasks', taskId, { hs_task_status: 'COMPLETED' }, { source: 'CRM_UI' }),
  calls: (hs) => hs.stats.count(),
  /** What sales teams really have in their CRM: tidy names, sloppy names, and names that fit several buyers. */
  demoAccounts: [
    { name: 'City of Austin', state: 'TX', website: 'https://austintexas.gov' },
    { name: 'Austin ISD', state: 'Texas' },
    { name: 'Travis County', state: 'TX' },
    { name: 'UT Austin', state: 'TX', website: 'https://utexas.edu' },
    { name: 'Austin', state: 'TX' },
    { name: 'City of Austin', state: 'MN' },
    { name: 'Springfield' },
    { name: 'City of Springfield', state: 'IL' },
    { name: 'Springfield Public Schools', state: 'MA' },
    { name: 'Portland', state: 'OR' },
    { name: 'City of Portland', state: 'Maine' },
    { name: 'Columbus', state: 'OH' },
    { name: 'Kansas City', state: 'MO' },
    { name: 'Kansas City', state: 'KS' },
    { name: 'Austin Police Department', state: 'TX' },
    { name: 'Austin Fire Dept', state: 'TX' },
    { name: 'Austin Community College', state: 'TX' },
    { name: 'Springfield', state: 'MO' },
    { name: 'Zenith Quantum Holdings LLC', state: 'DE' },
    { name: 'Columbus', state: 'GA' },
  ],
};
