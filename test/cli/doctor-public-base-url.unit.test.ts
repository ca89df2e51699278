// doctor's PUBLIC_BASE_URL line: the value in use, unset where a configured CRM signs the URL it calls
// (WARN), and each value that can never match a signed URL (FAIL), one line naming the variable and
// the fix. The signer is HubSpot's own descriptor, so a connector that stops saying it signs the URL
// fails here.
import { describe, expect, it } from 'vitest';
import { crmOf } from '../../connectors/registry.ts';
import { checkPublicBaseUrl, type UrlSigner } from '../../src/doctor/public-base-url.ts';

const hubspot = crmOf('hubspot');
const signers: UrlSigner[] = [{ kind: hubspot.kind, signsUrl: hubspot.signsUrl ?? '' }];

describe('doctor: public base url', () => {
  it('HubSpot says it signs the URL it calls; Salesforce (a token in the query) does not', () => {
    expect(hubspot.signsUrl).toMatch(/full URL/);
    expect(crmOf('salesforce').signsUrl).toBeUndefined();
  });

  it('passes an origin, saying what signed URLs are checked as (a trailing slash is dropped)', () => {
    for (const value of ['https://sync.example.com', 'https://sync.example.com/', ' http://app:3000 ']) {
      const r = checkPublicBaseUrl(value, signers);
      expect(r.status).toBe('pass');
      expect(r.detail).toContain('/webhooks/hubspot');
    }
    expect(checkPublicBaseUrl('http://app:3000', signers).detail).toMatch(/^http:\/\/app:3000: /);
  });

  it('warns when unset and a configured CRM signs the URL, naming the fallback and the variable', () => {
    const r = checkPublicBaseUrl(undefined, signers);
    expect(r.status).toBe('warn');
    expect(r.detail).toMatch(/^PUBLIC_BASE_URL is unset: HubSpot signs/);
    expect(r.detail).toContain('Host header');
    expect(r.detail).toContain('401');
    expect(checkPublicBaseUrl('  ', signers).status).toBe('warn');
    // No CRM that signs the URL: nothing depends on it.
    expect(checkPublicBaseUrl(undefined, []).status).toBe('pass');
    // An invalid configuration: which CRMs are on is unknown.
    expect(checkPublicBaseUrl(undefined, undefined).status).toBe('skip');
  });

  it('fails what is not an absolute http(s) URL, with the value and an example', () => {
    for (const value of ['sync.example.com', '/webhooks', 'ftp://sync.example.com', 'https//x']) {
      const r = checkPublicBaseUrl(value, signers);
      expect({ value, status: r.status }).toEqual({ value, status: 'fail' });
      expect(r.detail).toBe(
        `PUBLIC_BASE_URL must be an absolute http(s) URL such as https://sync.example.com, got ${JSON.stringify(value)}`,
      );
    }
    // Also with an invalid configuration (the config line lists it too): the malformed value is named.
    expect(checkPublicBaseUrl('nope', undefined).status).toBe('fail');
  });

  it('fails a query, a fragment or credentials, naming the origin to set (credentials never shown)', () => {
    const query = checkPublicBaseUrl('https://sync.example.com/?via=proxy', signers);
    expect(query).toMatchObject({ status: 'fail' });
    expect(query.detail).toMatch(
      /^PUBLIC_BASE_URL has a query or fragment .*set it to https:\/\/sync\.example\.com$/,
    );
    expect(checkPublicBaseUrl('https://sync.example.com#x', signers).status).toBe('fail');
    expect(checkPublicBaseUrl('https://sync.example.com?', signers).status).toBe('fail');
    const creds = checkPublicBaseUrl('https://ops:hunter2secret@sync.example.com', signers);
    expect(creds.status).toBe('fail');
    expect(creds.detail).not.toContain('hunter2secret');
    expect(creds.detail).toContain('set it to https://sync.example.com');
  });

  it('fails a base that names a route (the route is added again), warns any other path', () => {
    const route = checkPublicBaseUrl('https://sync.example.com/webhooks/hubspot', signers);
    expect(route.status).toBe('fail');
    expect(route.detail).toContain('https://sync.example.com/webhooks/hubspot/webhooks/hubspot');
    expect(route.detail).toMatch(/set it to https:\/\/sync\.example\.com$/);
    for (const p of ['/api', '/admin/', '/oauth/hubspot/callback'])
      expect(checkPublicBaseUrl(`https://sync.example.com${p}`, signers).status).toBe('fail');

    const path = checkPublicBaseUrl('https://example.com/sync/', signers);
    expect(path.status).toBe('warn');
    expect(path.detail).toContain('https://example.com/sync/webhooks/hubspot');
    expect(path.detail).toContain('strips /sync');
    // "/apis" is not the route /api.
    expect(checkPublicBaseUrl('https://example.com/apis', signers).status).toBe('warn');
  });
});
