import { describe, expect, it } from 'vitest';
import { ConfigError, loadEnv } from '../../src/config/env.ts';

const good = {
  BUYER_INTEL_BASE_URL: 'https://dashboard.example.com',
  BUYER_INTEL_TOKEN: 'bi-secret-token',
  HUBSPOT_ACCESS_TOKEN: 'pat-na1-secret',
  HUBSPOT_PORTAL_ID: '4242',
  HUBSPOT_CLIENT_SECRET: 'client-secret',
};

describe('loadEnv', () => {
  it('applies defaults', () => {
    const env = loadEnv(good);
    expect(env).toMatchObject({
      REDIS_URL: 'redis://127.0.0.1:6379',
      WORKER_CONCURRENCY: 20,
      MATCH_ACCEPT_THRESHOLD: 0.75,
      SIGNALS_PERIOD: 'LastThreeMonths',
    });
  });

  it('lists every bad or missing variable at once, and never echoes a secret', () => {
    let error: ConfigError | undefined;
    try {
      loadEnv({
        BUYER_INTEL_BASE_URL: 'not a url',
        HUBSPOT_ACCESS_TOKEN: 'pat-na1-secret',
        HUBSPOT_PORTAL_ID: 'abc',
        WORKER_CONCURRENCY: 'many',
        MATCH_ACCEPT_THRESHOLD: '1.5',
        SIGNALS_FILTER_TYPES: 'RFP,Gossip',
        REDIS_URL: 'http://localhost',
      });
    } catch (err) {
      error = err as ConfigError;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const names = error?.problems.map((p) => p.split(' ')[0]).sort();
    expect(names).toEqual([
      'BUYER_INTEL_BASE_URL',
      'BUYER_INTEL_TOKEN',
      'HUBSPOT_CLIENT_SECRET',
      'HUBSPOT_PORTAL_ID',
      'MATCH_ACCEPT_THRESHOLD',
      'REDIS_URL',
      'SIGNALS_FILTER_TYPES',
      'WORKER_CONCURRENCY',
    ]);
    expect(error?.problems).toContain('BUYER_INTEL_TOKEN is required');
    expect(error?.message).not.toContain('pat-na1-secret');
  });

  it('takes a CRM as a whole group of variables, and needs at least one CRM', () => {
    const base = {
      BUYER_INTEL_BASE_URL: good.BUYER_INTEL_BASE_URL,
      BUYER_INTEL_TOKEN: good.BUYER_INTEL_TOKEN,
    };
    expect(() => loadEnv(base)).toThrow(
      /no CRM configured: set HUBSPOT_ACCESS_TOKEN.*SALESFORCE_ORG_ID for Salesforce/,
    );
    let error: ConfigError | undefined;
    try {
      loadEnv({
        ...base,
        SALESFORCE_INSTANCE_URL: 'https://acme.my.salesforce.com',
        SALESFORCE_ORG_ID: '00D5g000004ABCD',
      });
    } catch (err) {
      error = err as ConfigError;
    }
    expect(error?.problems).toEqual([
      'SALESFORCE_CLIENT_ID is required (Salesforce is configured)',
      'SALESFORCE_CLIENT_SECRET is required (Salesforce is configured)',
      'SALESFORCE_REFRESH_TOKEN is required (Salesforce is configured)',
    ]);
    const salesforceOnly = loadEnv({
      ...base,
      SALESFORCE_INSTANCE_URL: 'https://acme.my.salesforce.com',
      SALESFORCE_ORG_ID: '00D5g000004ABCD',
      SALESFORCE_CLIENT_ID: 'id',
      SALESFORCE_CLIENT_SECRET: 'secret',
      SALESFORCE_REFRESH_TOKEN: 'refresh',
    });
    expect(salesforceOnly.crms.salesforce).toMatchObject({
      app: { apiVersion: '62.0', loginUrl: 'https://login.salesforce.com' },
      org: { orgId: '00D5g000004ABCD' },
    });
    expect(salesforceOnly.crms.hubspot).toBeUndefined();
  });

  it('treats an empty variable as unset', () => {
    expect(() => loadEnv({ ...good, BUYER_INTEL_TOKEN: '' })).toThrow('BUYER_INTEL_TOKEN is required');
  });
});
