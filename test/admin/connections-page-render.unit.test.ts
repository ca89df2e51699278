// The Connections page's HTML for the states a browser test cannot reach without waiting half an
// hour: an install whose access token expired reads as expired and renewing itself, a token without a
// refresh token does not claim to renew, and a CRM value is text, never markup.
import { describe, expect, it } from 'vitest';
import { renderConnectionsPage, spanOf } from '../../src/admin/connections-page.ts';
import type { TenantConnection } from '../../src/tenants/connections.ts';

const NOW = Date.parse('2026-12-02T12:00:00Z');
const row = (over: Partial<TenantConnection>): TenantConnection => ({
  crm: 'hubspot',
  crmLabel: 'HubSpot',
  tenantNoun: 'portal',
  tenant: '3003',
  source: 'stored',
  state: { token: 'connected', credential: 'OAuth install', renews: true, missing: [] },
  ...over,
});

describe('connections page', () => {
  it('says an expired install token renews itself, and how long ago it expired', () => {
    const html = renderConnectionsPage(
      {
        tenants: [
          row({
            state: {
              token: 'expired',
              credential: 'OAuth install',
              renews: true,
              expiresAt: NOW - 31 * 60_000,
              granted: ['oauth'],
              missing: [],
            },
          }),
        ],
        connect: [],
        unreadable: ['hubspot:9009'],
      },
      NOW,
    );
    expect(html).toContain(
      '1 stored tenant cannot be read</strong> and is not served: <code>hubspot:9009</code>',
    );
    expect(html).toContain('data-token="expired">expired 31 min ago');
    expect(html).toContain('renews itself on the next call');
    expect(html).toContain('All 1 connections hold the permissions');
    expect(html).toContain('tenants add');
  });

  it('does not promise a renewal without a refresh token, and escapes what a CRM sent', () => {
    const html = renderConnectionsPage(
      {
        tenants: [
          row({
            tenant: '<b>x</b>',
            state: {
              token: 'expiring',
              credential: 'private',
              renews: false,
              expiresAt: NOW + 3 * 3_600_000,
              missing: [{ scope: '<script>', neededFor: 'notes' }],
            },
          }),
        ],
        connect: [{ crmLabel: 'HubSpot', href: '/oauth/hubspot/install', label: 'Install' }],
        unreadable: [],
      },
      NOW,
    );
    expect(html).toContain('expires in 3 h');
    expect(html).not.toContain('renews itself');
    expect(html).not.toContain('<b>x</b>');
    expect(html).not.toContain('<code><script>');
    expect(html).toContain('1 of 1 lack a permission:</strong> HubSpot portal &lt;b&gt;x&lt;/b&gt;.');
  });

  it('reads spans as a person says them', () => {
    expect([spanOf(20_000), spanOf(89 * 60_000), spanOf(5 * 3_600_000), spanOf(72 * 3_600_000)]).toEqual([
      '1 min',
      '89 min',
      '5 h',
      '3 days',
    ]);
  });
});
