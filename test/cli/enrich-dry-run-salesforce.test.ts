// `buyer-intel-sync enrich --crm salesforce --dry-run` speaks Salesforce: the fields it plans are named as
// an admin finds them in Setup (their API names), not as HubSpot's properties.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningBuyerIntelSandbox } from '../../emulators/buyer-intel/server.ts';
import { type RunningSalesforceSandbox, startSalesforceSandbox } from '../../emulators/salesforce/server.ts';
import { startSandbox } from '../helpers/buyer-intel-sandbox.ts';
import { runCliInProcess } from '../helpers/cli.ts';
import { testPrefix } from '../helpers/redis.ts';

let bi: RunningBuyerIntelSandbox;
let sf: RunningSalesforceSandbox;

beforeAll(async () => {
  [bi, sf] = await Promise.all([startSandbox(), startSalesforceSandbox({})]);
});
afterAll(() => Promise.all([bi.close(), sf.close()]));

const env = () => ({
  BUYER_INTEL_BASE_URL: bi.url,
  BUYER_INTEL_TOKEN: bi.token,
  SALESFORCE_INSTANCE_URL: sf.url,
  SALESFORCE_LOGIN_URL: sf.url,
  SALESFORCE_ORG_ID: sf.orgId,
  SALESFORCE_CLIENT_ID: sf.clientId,
  SALESFORCE_CLIENT_SECRET: sf.clientSecret,
  SALESFORCE_REFRESH_TOKEN: sf.refreshToken,
  REDIS_PREFIX: testPrefix('test-sf-dry'),
});

describe('buyer-intel-sync enrich --crm salesforce --dry-run', () => {
  it('names every planned field by its Salesforce API name', async () => {
    const setup = await runCliInProcess(['setup', '--crm', 'salesforce'], env());
    expect(setup.code, setup.stderr).toBe(0);
    const id = sf.store.create('Account', { Name: 'Travis County', BillingState: 'TX' }).id;
    const { code, stdout, stderr } = await runCliInProcess(
      ['enrich', '--crm', 'salesforce', '--account', id, '--dry-run'],
      env(),
    );
    expect(code, stderr).toBe(0);
    expect(stdout).toContain('Status: enriched');
    expect(stdout).toMatch(/│ BuyerIntel_Population__c\s+│ write\s+│ ours\s+│ ∅ → \d+\s+│/);
    expect(stdout).toMatch(/│ BuyerIntel_Status__c\s+│ enriched\s+│/);
    expect(stdout).not.toMatch(/buyer_intel_/);
  }, 120_000);
});
