// The accounts `npm run sandbox` puts in each CRM, so the README's examples have something to point
// at: a tidy name, a sloppy one, a county, a name that fits many buyers and a company that is no buyer.
// They are created first, on fresh emulators, whose ids come from seeded counters: the same ids on
// every start (the README quotes them; test/cli/sandbox.unit.test.ts checks that they still exist).
import type { RunningHubSpotSandbox } from '../hubspot/server.ts';
import type { RunningSalesforceSandbox } from '../salesforce/server.ts';

export interface SandboxAccount {
  name: string;
  state?: string;
  website?: string;
}

export const SANDBOX_ACCOUNTS: SandboxAccount[] = [
  { name: 'City of Austin', state: 'TX', website: 'https://www.austintexas.gov' },
  { name: 'Austin ISD', state: 'TX' },
  { name: 'Travis County', state: 'TX' },
  { name: 'Springfield' },
  { name: 'Zenith Quantum Holdings LLC', state: 'DE' },
];

export interface SeededAccount extends SandboxAccount {
  id: string;
}

/** HubSpot companies as an import creates them (changeSource IMPORT). */
export function seedHubSpot(hubspot: RunningHubSpotSandbox): SeededAccount[] {
  return SANDBOX_ACCOUNTS.map((account) => ({
    ...account,
    id: hubspot.store.createCompany(
      {
        name: account.name,
        ...(account.state ? { state: account.state } : {}),
        ...(account.website ? { domain: new URL(account.website).hostname.replace(/^www\./, '') } : {}),
      },
      { source: 'IMPORT' },
    ).id,
  }));
}

/** Salesforce Accounts (Name, BillingState, Website). */
export function seedSalesforce(salesforce: RunningSalesforceSandbox): SeededAccount[] {
  return SANDBOX_ACCOUNTS.map((account) => ({
    ...account,
    id: salesforce.store.create('Account', {
      Name: account.name,
      ...(account.state ? { BillingState: account.state } : {}),
      ...(account.website ? { Website: account.website } : {}),
    }).id,
  }));
}
