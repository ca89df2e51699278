// The link from a console row to the record in its CRM: each connector says where its record pages
// are (HubSpot's company page in the portal, Salesforce's Lightning record page on the org's domain),
// and a row whose tenant is no longer connected gets no link rather than a broken one.
import { describe, expect, it } from 'vitest';
import { createHubSpotConnector } from '../../connectors/hubspot/connector.ts';
import { refreshingConnector } from '../../connectors/refreshing-connector.ts';
import { createSalesforceConnector } from '../../connectors/salesforce/connector.ts';
import type { CrmConnector } from '../../connectors/types.ts';
import { recordLink, recordUrlOf } from '../../src/admin/record-link.ts';

const hubspot = createHubSpotConnector({ portalId: '4455667', accessToken: 'not-used' });
const salesforce = createSalesforceConnector({
  instanceUrl: 'https://acme.my.salesforce.com/',
  orgId: '00D000000000001EAA',
  apiVersion: '62.0',
  accessToken: 'not-used',
  clientSecret: 'not-used',
  clientId: 'not-used',
});
const connectors: Record<string, CrmConnector> = { hubspot, salesforce };
const urlOf = recordUrlOf((crm) => {
  const c = connectors[crm];
  if (!c) throw new Error(`no ${crm} connection`);
  return c;
});

describe('record links', () => {
  it("opens each CRM's own record page", () => {
    expect(urlOf('hubspot', '4455667', '21438460499')).toBe(
      'https://app.hubspot.com/contacts/4455667/company/21438460499',
    );
    expect(urlOf('salesforce', '00D000000000001EAA', '001000000000001AAA')).toBe(
      'https://acme.my.salesforce.com/lightning/r/Account/001000000000001AAA/view',
    );
  });

  it('keeps the link on a connector whose token refreshes (an installed HubSpot portal)', () => {
    const installed = refreshingConnector({
      initialToken: 'a',
      build: (accessToken) => createHubSpotConnector({ portalId: '99', accessToken }),
      refresh: async () => 'b',
    });
    expect(installed.recordUrl?.('7')).toBe('https://app.hubspot.com/contacts/99/company/7');
  });

  it('gives no link for a tenant no longer connected, and names the CRM on the link', () => {
    expect(urlOf('memory', 'gone', '1')).toBeNull();
    expect(recordLink(urlOf, { crm: 'memory', tenant: 'gone', accountId: '1' })).toBe('');
    const html = recordLink(urlOf, {
      crm: 'hubspot',
      tenant: '4455667',
      accountId: '42',
      accountName: '<b>Travis</b>',
    });
    expect(html).toContain('href="https://app.hubspot.com/contacts/4455667/company/42"');
    expect(html).toContain('>Open in HubSpot</a>');
    expect(html).toContain('aria-label="Open in HubSpot: &lt;b&gt;Travis&lt;/b&gt; (new tab)"');
    expect(html).toContain('rel="noopener noreferrer"');
  });

  it('prepares the links of a page’s tenants without failing for one no longer connected', async () => {
    await expect(
      urlOf.prepare?.([
        { crm: 'memory', tenant: 'gone' },
        { crm: 'salesforce', tenant: '00D000000000001EAA' },
      ]),
    ).resolves.toBeUndefined();
  });
});
