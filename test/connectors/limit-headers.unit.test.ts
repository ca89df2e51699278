// Each CRM's limit headers as the CRM-neutral reading the budget keeps: well-formed values read, and a
// missing, malformed or contradictory one left out (never thrown).
import { describe, expect, it } from 'vitest';
import { hubspotLimitReading } from '../../connectors/hubspot/rate-limit-headers.ts';
import { salesforceLimitReading } from '../../connectors/salesforce/limit-info.ts';

describe('HubSpot X-HubSpot-RateLimit-* headers', () => {
  const full = {
    'x-hubspot-ratelimit-max': '190',
    'x-hubspot-ratelimit-remaining': '42',
    'x-hubspot-ratelimit-interval-milliseconds': '10000',
    'x-hubspot-ratelimit-daily': '625000',
    'x-hubspot-ratelimit-daily-remaining': '120000',
  };

  it('reads the window and the daily allocation, whatever the header names’ case', () => {
    expect(hubspotLimitReading(full)).toEqual({
      window: { max: 190, remaining: 42, intervalMs: 10_000 },
      daily: { limit: 625_000, remaining: 120_000 },
    });
    expect(
      hubspotLimitReading({
        'X-HubSpot-RateLimit-Max': '110',
        'X-HubSpot-RateLimit-Remaining': '0',
        'X-HubSpot-RateLimit-Interval-Milliseconds': ['10000'],
      }),
    ).toEqual({ window: { max: 110, remaining: 0, intervalMs: 10_000 } });
  });

  it('has no daily part for OAuth apps (HubSpot sends none) and nothing without headers', () => {
    const { 'x-hubspot-ratelimit-daily': _, 'x-hubspot-ratelimit-daily-remaining': __, ...window } = full;
    expect(hubspotLimitReading(window).daily).toBeUndefined();
    expect(hubspotLimitReading(undefined)).toEqual({});
    expect(hubspotLimitReading({})).toEqual({});
  });

  it.each([
    ['a word', 'lots'],
    ['a negative number', '-3'],
    ['a fraction', '4.5'],
    ['an empty value', ''],
    ['a huge number', '1'.repeat(40)],
  ])('leaves out a part whose value is %s', (_, bad) => {
    expect(hubspotLimitReading({ ...full, 'x-hubspot-ratelimit-remaining': bad })).toEqual({
      daily: { limit: 625_000, remaining: 120_000 },
    });
    expect(hubspotLimitReading({ ...full, 'x-hubspot-ratelimit-daily': bad }).daily).toBeUndefined();
  });

  it('leaves out what contradicts itself: more remaining than allowed, a zero limit or interval', () => {
    expect(hubspotLimitReading({ ...full, 'x-hubspot-ratelimit-remaining': '191' }).window).toBeUndefined();
    expect(hubspotLimitReading({ ...full, 'x-hubspot-ratelimit-max': '0' }).window).toBeUndefined();
    expect(
      hubspotLimitReading({ ...full, 'x-hubspot-ratelimit-interval-milliseconds': '0' }).window,
    ).toBeUndefined();
    expect(
      hubspotLimitReading({ ...full, 'x-hubspot-ratelimit-daily-remaining': '625001' }).daily,
    ).toBeUndefined();
  });
});

describe('Salesforce Sforce-Limit-Info', () => {
  it('reads api-usage=N/M as the allocation and what is left of it', () => {
    expect(salesforceLimitReading('api-usage=10018/100000')).toEqual({
      daily: { limit: 100_000, remaining: 89_982 },
    });
    expect(salesforceLimitReading('api-usage=25/15000, per-app-api-usage=17/250(appName=sample)')).toEqual({
      daily: { limit: 15_000, remaining: 14_975 },
    });
  });

  it('counts usage past the allocation as nothing left', () => {
    expect(salesforceLimitReading('api-usage=15010/15000')).toEqual({
      daily: { limit: 15_000, remaining: 0 },
    });
  });

  it.each([
    undefined,
    '',
    'api-usage=',
    'api-usage=12/',
    'api-usage=-1/100',
    'api-usage=1.5/100',
    'api-usage=abc/100',
    'api-usage=10/0',
    'per-app-api-usage=17/250',
    'api-usage=10/100x',
    42,
  ])('ignores %j', (bad) => {
    expect(salesforceLimitReading(bad)).toEqual({});
  });
});
