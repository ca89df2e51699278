import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/config/config-error.ts';
import { loadEnv } from '../../src/config/env.ts';

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
      WORKER_CONCURRENCY: 200,
      BACKFILL_ACCOUNTS_PER_JOB: 100,
      MATCH_ACCEPT_THRESHOLD: 0.75,
      SIGNALS_PERIOD: 'LastThreeMonths',
      BUYER_INTEL_CACHE_TTL_MS: 300_000,
      BUYER_INTEL_SEARCH_CACHE_TTL_MS: 600_000,
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
        BACKFILL_ACCOUNTS_PER_JOB: '0',
        MATCH_ACCEPT_THRESHOLD: '1.5',
        SIGNALS_FILTER_TYPES: 'RFP,Gossip',
        REDIS_URL: 'http://localhost',
        BUYER_INTEL_SEARCH_CACHE_TTL_MS: '10 minutes',
      });
    } catch (err) {
      error = err as ConfigError;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const names = error?.problems.map((p) => p.split(' ')[0]).sort();
    expect(names).toEqual([
      'BACKFILL_ACCOUNTS_PER_JOB',
      'BUYER_INTEL_BASE_URL',
      'BUYER_INTEL_SEARCH_CACHE_TTL_MS',
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

describe('the CRM fields that hold an account’s ids', () => {
  const salesforce = {
    BUYER_INTEL_BASE_URL: good.BUYER_INTEL_BASE_URL,
    BUYER_INTEL_TOKEN: good.BUYER_INTEL_TOKEN,
    SALESFORCE_INSTANCE_URL: 'https://acme.my.salesforce.com',
    SALESFORCE_ORG_ID: '00D5g000004ABCD',
    SALESFORCE_CLIENT_ID: 'id',
    SALESFORCE_CLIENT_SECRET: 'secret',
    SALESFORCE_REFRESH_TOKEN: 'refresh',
  };
  const problemsOf = (env: Record<string, string>): string[] => {
    try {
      loadEnv(env);
    } catch (err) {
      if (err instanceof ConfigError) return err.problems;
      throw err;
    }
    return [];
  };

  it('are ours by default, in each CRM’s spelling', () => {
    expect(loadEnv(good).crms.hubspot).toMatchObject({
      app: {
        idProperties: {
          nces: 'buyer_intel_match_nces_id',
          ipeds: 'buyer_intel_match_ipeds_id',
          census: 'buyer_intel_match_census_id',
          buyer: 'buyer_intel_match_buyer_id',
        },
      },
    });
    expect(loadEnv(salesforce).crms.salesforce).toMatchObject({
      app: {
        idFieldNames: {
          nces: 'BuyerIntel_MatchNcesId__c',
          ipeds: 'BuyerIntel_MatchIpedsId__c',
          census: 'BuyerIntel_MatchCensusId__c',
          buyer: 'BuyerIntel_MatchBuyerId__c',
        },
      },
    });
  });

  it('can name the customer’s own fields, only some kinds, or none', () => {
    const some = loadEnv({
      ...good,
      HUBSPOT_ID_PROPERTIES: ' NCES = district_nces_id , buyer=starbridge_id ',
    });
    expect(some.crms.hubspot).toMatchObject({
      app: { idProperties: { nces: 'district_nces_id', buyer: 'starbridge_id' } },
    });
    expect((some.crms.hubspot as { app: { idProperties: object } }).app.idProperties).not.toHaveProperty(
      'ipeds',
    );
    const none = loadEnv({ ...salesforce, SALESFORCE_ID_FIELDS: 'none' });
    expect(none.crms.salesforce).toMatchObject({ app: { idFieldNames: {} } });
    const own = loadEnv({ ...salesforce, SALESFORCE_ID_FIELDS: 'ipeds=k12__UNITID__c' });
    expect(own.crms.salesforce).toMatchObject({ app: { idFieldNames: { ipeds: 'k12__UNITID__c' } } });
  });

  it('lists every problem of the list at once', () => {
    expect(
      problemsOf({
        ...good,
        HUBSPOT_ID_PROPERTIES: 'nces=NCES Id,zip=zip_code,ipeds,nces=other,census=,buyer=a_b,ipeds=a_b',
      }),
    ).toEqual([
      'HUBSPOT_ID_PROPERTIES nces: "NCES Id" is not a property internal name (lower-case letters, digits and _, a letter first)',
      'HUBSPOT_ID_PROPERTIES "zip" is not an id kind (nces, ipeds, census, buyer)',
      'HUBSPOT_ID_PROPERTIES "ipeds" must be kind=field, a kind being nces, ipeds, census, buyer (or the whole value none)',
      'HUBSPOT_ID_PROPERTIES names nces twice',
      'HUBSPOT_ID_PROPERTIES census: "" is empty',
      'HUBSPOT_ID_PROPERTIES "a_b" is named for both buyer and ipeds',
    ]);
    expect(problemsOf({ ...salesforce, SALESFORCE_ID_FIELDS: 'nces=NCES Id__c,buyer=Buyer_' })).toEqual([
      'SALESFORCE_ID_FIELDS nces: "NCES Id__c" is not a field API name (letters, digits and _, e.g. NCES_Id__c)',
      'SALESFORCE_ID_FIELDS buyer: "Buyer_" is not a field API name (letters, digits and _, e.g. NCES_Id__c)',
    ]);
  });
});

describe('the Salesforce quick-action secrets', () => {
  const app = {
    BUYER_INTEL_BASE_URL: good.BUYER_INTEL_BASE_URL,
    BUYER_INTEL_TOKEN: good.BUYER_INTEL_TOKEN,
    SALESFORCE_CLIENT_ID: 'id',
    SALESFORCE_CLIENT_SECRET: 'secret',
  };
  const org = {
    SALESFORCE_INSTANCE_URL: 'https://acme.my.salesforce.com',
    SALESFORCE_ORG_ID: '00D5g000004ABCD',
    SALESFORCE_REFRESH_TOKEN: 'refresh',
  };
  const problemsOf = (env: Record<string, string>): string[] => {
    try {
      loadEnv(env);
    } catch (err) {
      if (err instanceof ConfigError) return err.problems;
      throw err;
    }
    return [];
  };

  it("are the env org's own: at most two, and never without SALESFORCE_ORG_ID (they would serve every stored org)", () => {
    const [a, b, c] = ['a'.repeat(32), 'b'.repeat(32), 'c'.repeat(32)];
    expect(
      loadEnv({ ...app, ...org, SALESFORCE_REFRESH_SECRETS: `${a},${b}` }).crms.salesforce,
    ).toMatchObject({
      requestSecrets: [a, b],
    });
    expect(problemsOf({ ...app, ...org, SALESFORCE_REFRESH_SECRETS: `${a},${b},${c}` }).join('\n')).toContain(
      'at most two secrets',
    );
    const keyOnly = { ...app, TOKEN_ENCRYPTION_KEY: Buffer.alloc(32, 1).toString('base64') };
    expect(problemsOf({ ...keyOnly, SALESFORCE_REFRESH_SECRETS: a }).join('\n')).toContain(
      'SALESFORCE_REFRESH_SECRETS are the secrets of the org SALESFORCE_ORG_ID names',
    );
  });
});
