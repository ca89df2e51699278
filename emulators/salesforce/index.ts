// The Salesforce emulator's descriptor (emulators/descriptor.ts): how the sandbox, the demo, the test
// service and the conformance check start it, point the service at it and act in it as a person would.
import type { SalesforceConfig } from '../../connectors/salesforce/config.ts';
import type { EmulatorDescriptor } from '../descriptor.ts';
import { SALESFORCE_REFERENCE } from './reference.ts';
import { type RunningSalesforceSandbox, startSalesforceSandbox } from './server.ts';

/** The sandbox org's Outbound Message token (a sandbox value: no secret). */
export const SANDBOX_OUTBOUND_TOKEN = 'sandbox-outbound-token-0000000000000000';
/** Signs the Salesforce quick action's calls to our API (SALESFORCE_REFRESH_SECRETS). */
export const SANDBOX_REQUEST_SECRET = 'sandbox-request-secret-00000000000000000';
const API_VERSION = '62.0';
// Fixed so that an .env written from the sandbox's output keeps working after it restarts; sessions
// are issued from it as needed.
const SANDBOX_REFRESH_TOKEN = '5Aep861sandbox.RefreshToken.0000000000000000000000000000000000000000000';

/** What the service needs of a running one: plain data, so the bench can pass it between processes. */
export type SalesforceEndpoint = Pick<
  RunningSalesforceSandbox,
  'url' | 'orgId' | 'clientId' | 'clientSecret' | 'accessToken' | 'refreshToken'
>;

export const salesforceEmulator: EmulatorDescriptor<RunningSalesforceSandbox, SalesforceEndpoint> = {
  kind: 'salesforce',
  label: 'Salesforce emulator',
  demoHeading: 'Salesforce Accounts (notes = signal Tasks on the Account):',
  port: 4030,
  conformance: SALESFORCE_REFERENCE,
  start: ({ port, host, sandbox } = {}) =>
    startSalesforceSandbox({
      port: port ?? 0,
      ...(host ? { host } : {}),
      ...(sandbox ? { auth: { refreshToken: SANDBOX_REFRESH_TOKEN } } : {}),
    }),
  settings: (sf) =>
    ({
      app: {
        clientId: sf.clientId,
        clientSecret: sf.clientSecret,
        loginUrl: sf.url,
        apiVersion: API_VERSION,
      },
      org: {
        orgId: sf.orgId,
        instanceUrl: sf.url,
        accessToken: sf.accessToken,
        refreshToken: sf.refreshToken,
        // Outbound Messages must carry it: sendEventsTo points the emulator at `…?token=`.
        outboundTokens: [SANDBOX_OUTBOUND_TOKEN],
      },
    }) satisfies SalesforceConfig,
  tenantOf: (sf) => sf.orgId,
  describe: (sf) => ({
    heading: `Salesforce emulator: ${sf.url}  (org ${sf.orgId})`,
    examples: [
      `try: curl -H 'Authorization: Bearer ${sf.accessToken}' '${sf.url}/services/data/v${API_VERSION}/query?q=SELECT+Id,Name,BillingState+FROM+Account'`,
      `create one: curl -X POST -H 'Authorization: Bearer ${sf.accessToken}' -H 'Content-Type: application/json' '${sf.url}/services/data/v${API_VERSION}/sobjects/Account' -d '{"Name": "Travis County", "BillingState": "TX"}'`,
    ],
    exports: [
      `export SALESFORCE_INSTANCE_URL=${sf.url}`,
      `export SALESFORCE_LOGIN_URL=${sf.url}`,
      `export SALESFORCE_ORG_ID=${sf.orgId}`,
      `export SALESFORCE_CLIENT_ID=${sf.clientId}`,
      `export SALESFORCE_CLIENT_SECRET=${sf.clientSecret}`,
      `export SALESFORCE_REFRESH_TOKEN=${sf.refreshToken}`,
      `export SALESFORCE_API_VERSION=${API_VERSION}`,
    ],
  }),
  createAccount: (sf, account, how) =>
    sf.store.create('Account', {
      ...(how.owner ? { OwnerId: how.owner } : {}),
      Name: account.name,
      ...(account.state ? { BillingState: account.state } : {}),
      ...(account.website ? { Website: account.website } : {}),
    }).id,
  sendEventsTo(sf, serviceUrl, options = {}) {
    const receiver = `${serviceUrl.replace(/\/+$/, '')}/webhooks/salesforce`;
    sf.outbound.configure({
      endpointUrl: `${receiver}?token=${SANDBOX_OUTBOUND_TOKEN}`,
      ...(options.batchWindowMs === undefined ? {} : { batchWindowMs: options.batchWindowMs }),
    });
    return receiver;
  },
  serviceExports: [
    `export SALESFORCE_OUTBOUND_TOKENS=${SANDBOX_OUTBOUND_TOKEN}`,
    `export SALESFORCE_REFRESH_SECRETS=${SANDBOX_REQUEST_SECRET}`,
  ],
  addOwner: (sf, person) =>
    sf.store.create('User', {
      Username: person.email,
      Email: person.email,
      FirstName: person.firstName,
      LastName: person.lastName,
    }).id,
  setOwner: (sf, accountId, owner) => sf.store.update('Account', accountId, { OwnerId: owner }),
  activityCount: (sf, id) => sf.store.list('Task').filter((t) => t.values.get('WhatId') === id).length,
  tasksOf: (sf, accountId, owner) =>
    sf.store
      .list('Task')
      .filter((t) => t.values.get('WhatId') === accountId && t.values.get('OwnerId') === owner)
      .map((t) => ({
        id: t.id,
        subject: String(t.values.get('Subject') ?? ''),
        owner: String(t.values.get('OwnerId') ?? ''),
        due: String(t.values.get('ActivityDate') ?? ''),
        priority: String(t.values.get('Priority') ?? ''),
      })),
  completeTask: (sf, taskId) => sf.store.update('Task', taskId, { Status: 'Completed' }),
  calls: (sf) => sf.stats.count(),
  /** A few of the demo's kinds of names, as Salesforce Accounts. */
  demoAccounts: [
    { name: 'City of Austin', state: 'TX', website: 'https://www.austintexas.gov' },
    { name: 'Austin ISD', state: 'TX' },
    { name: 'Travis County', state: 'Texas' },
    { name: 'City of Springfield', state: 'IL' },
    { name: 'Springfield' },
    { name: 'Austin Police Department', state: 'TX' },
    { name: 'Kansas City', state: 'KS' },
    { name: 'Zenith Quantum Holdings LLC', state: 'DE' },
  ],
};
