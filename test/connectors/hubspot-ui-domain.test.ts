// Record links for a HubSpot portal hosted in the EU: the connector asks the portal's account details
// (GET /account-info/v3/details, the emulator answering as HubSpot's reference documents it) once a
// connection and builds its links on the `uiDomain` they name; a refused or failing ask leaves the
// links on app.hubspot.com and fails nothing, and is asked again only after a while.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHubSpotConnector } from '../../connectors/hubspot/connector.ts';
import { ALL_PRODUCT_SCOPES } from '../../emulators/hubspot/scopes.ts';
import { type RunningHubSpotSandbox, startHubSpotSandbox } from '../../emulators/hubspot/server.ts';

const DETAILS = 'accountInfo.details.get';
let eu: RunningHubSpotSandbox;
let us: RunningHubSpotSandbox;

beforeAll(async () => {
  [eu, us] = await Promise.all([
    startHubSpotSandbox({
      portalId: 144_990_21,
      dataHostingLocation: 'eu1',
      rateLimits: false,
      auth: { privateAppScopes: [...ALL_PRODUCT_SCOPES, 'oauth'] },
    }),
    // The sandbox's private app is granted the product's scopes alone: no `oauth`.
    startHubSpotSandbox({ rateLimits: false }),
  ]);
});
afterAll(async () => {
  await Promise.all([eu?.close(), us?.close()]);
});

const connectorOf = (sandbox: RunningHubSpotSandbox) =>
  createHubSpotConnector({
    portalId: String(sandbox.portalId),
    accessToken: sandbox.accessToken,
    basePath: sandbox.url,
  });

describe('HubSpot record links', () => {
  it('open an EU portal’s records on app-eu1.hubspot.com, asked once a connection', async () => {
    const connector = connectorOf(eu);
    await connector.prepareRecordUrls?.();
    expect(connector.recordUrl?.('21438460499')).toBe(
      `https://app-eu1.hubspot.com/contacts/${eu.portalId}/company/21438460499`,
    );
    await connector.prepareRecordUrls?.();
    for (let i = 0; i < 50; i++) connector.recordUrl?.(String(i));
    expect(eu.stats.count(DETAILS)).toBe(1);
    expect(eu.stats.count(DETAILS, 200)).toBe(1);
  });

  it('stay on app.hubspot.com when the details are refused (no `oauth` scope) or fail, and fail nothing', async () => {
    const refused = connectorOf(us);
    await expect(refused.prepareRecordUrls?.()).resolves.toBeUndefined();
    expect(us.stats.count(DETAILS, 403)).toBe(1);
    expect(refused.recordUrl?.('7')).toBe(`https://app.hubspot.com/contacts/${us.portalId}/company/7`);
    // Not asked again at once: one refusal a while, not one a page.
    await refused.prepareRecordUrls?.();
    expect(us.stats.count(DETAILS)).toBe(1);

    eu.faults.inject({ kind: 'status', status: 500, match: DETAILS });
    const failing = connectorOf(eu);
    await expect(failing.prepareRecordUrls?.()).resolves.toBeUndefined();
    expect(failing.recordUrl?.('7')).toBe(`https://app.hubspot.com/contacts/${eu.portalId}/company/7`);
  });

  it('answer the documented details for a US portal', async () => {
    const res = await fetch(`${us.url}/account-info/v3/details`, {
      headers: { authorization: `Bearer ${us.accessToken}` },
    });
    expect(res.status).toBe(403);
    const oauth = await startHubSpotSandbox({
      rateLimits: false,
      auth: { privateAppScopes: ['oauth'] },
    });
    try {
      const ok = await fetch(`${oauth.url}/account-info/v3/details`, {
        headers: { authorization: `Bearer ${oauth.accessToken}` },
      });
      expect(await ok.json()).toMatchObject({
        portalId: oauth.portalId,
        uiDomain: 'app.hubspot.com',
        dataHostingLocation: 'na1',
        additionalCurrencies: [],
      });
    } finally {
      await oauth.close();
    }
  });
});
