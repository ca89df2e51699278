// Owners as each CRM emulator serves them and each connector reads them: HubSpot's Owners API pages
// (`after` cursor, `paging.next.link`), lists archived owners apart, and refuses a company owner id that
// names no active owner (INVALID_OWNER_ID); Salesforce answers User through SOQL and refuses an Account
// owned by a deactivated user (INACTIVE_OWNER_OR_USER). Both connectors read owners once per few minutes.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHubSpotConnector } from '../../connectors/hubspot/connector.ts';
import { createSalesforceConnector } from '../../connectors/salesforce/connector.ts';
import { type RunningHubSpotSandbox, startHubSpotSandbox } from '../../emulators/hubspot/server.ts';
import { type RunningSalesforceSandbox, startSalesforceSandbox } from '../../emulators/salesforce/server.ts';

interface OwnersPage {
  results: { email: string }[];
  paging?: { next: { after: string; link: string } };
}

let hs: RunningHubSpotSandbox;
let sf: RunningSalesforceSandbox;

beforeAll(async () => {
  [hs, sf] = await Promise.all([startHubSpotSandbox({}), startSalesforceSandbox()]);
});
afterAll(async () => {
  await Promise.all([hs?.close(), sf?.close()]);
});

describe('HubSpot owners', () => {
  it('pages owners behind an after cursor and lists archived ones only when asked', async () => {
    for (let i = 0; i < 120; i++) hs.store.owners.add({ email: `rep${i}@example.com`, firstName: `Rep${i}` });
    const gone = hs.store.owners.add({ email: 'gone@example.com' });
    hs.store.owners.archive(gone.id);
    const get = async (query: string) => {
      const res = await fetch(`${hs.url}/crm/v3/owners?${query}`, {
        headers: { authorization: `Bearer ${hs.accessToken}` },
      });
      return { status: res.status, body: (await res.json()) as OwnersPage };
    };
    const first = await get('limit=100');
    expect(first.status).toBe(200);
    expect(first.body.results).toHaveLength(100);
    const after = first.body.paging?.next.after ?? '';
    expect(first.body.paging?.next.link).toContain(`after=${after}`);
    const second = await get(`limit=100&after=${after}`);
    expect(second.body.results).toHaveLength(20);
    expect(second.body.paging).toBeUndefined();
    const archived = await get('archived=true');
    expect(archived.body.results.map((o) => o.email)).toEqual(['gone@example.com']);
    expect((await get('email=REP7@example.com')).body.results).toHaveLength(1);
    expect((await get('limit=0')).status).toBe(400);

    const connector = createHubSpotConnector({
      accessToken: hs.accessToken,
      portalId: String(hs.portalId),
      basePath: hs.url,
    });
    const before = hs.stats.count('crm.owners.ownersApi.getPage');
    const owners = await connector.listOwners();
    expect(owners).toHaveLength(120);
    expect(owners[7]).toMatchObject({ email: 'rep7@example.com', name: 'Rep7', active: true });
    expect(owners.some((o) => o.email === 'gone@example.com')).toBe(false);
    await connector.listOwners();
    // Two pages, once: the second call is served from the connector's short cache.
    expect(hs.stats.count('crm.owners.ownersApi.getPage') - before).toBe(2);
  });

  it("reads a company's owner, and refuses an owner id that is no active owner", async () => {
    const rep = hs.store.owners.add({ email: 'owner-of-one@example.com' });
    const company = hs.store.createCompany({ name: 'Owned', hubspot_owner_id: rep.id });
    const connector = createHubSpotConnector({
      accessToken: hs.accessToken,
      portalId: String(hs.portalId),
      basePath: hs.url,
    });
    expect((await connector.getAccount(company.id, [])).ownerId).toBe(rep.id);
    expect((await connector.getAccounts([company.id], []))[0]?.ownerId).toBe(rep.id);
    const unowned = hs.store.createCompany({ name: 'Unowned' });
    expect((await connector.getAccount(unowned.id, [])).ownerId).toBeUndefined();

    hs.store.owners.archive(rep.id);
    const res = await fetch(`${hs.url}/crm/v3/objects/companies/${unowned.id}`, {
      method: 'PATCH',
      headers: { authorization: `Bearer ${hs.accessToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ properties: { hubspot_owner_id: rep.id } }),
    });
    expect(res.status).toBe(400);
    expect(JSON.stringify(await res.json())).toContain('INVALID_OWNER_ID');
  });
});

describe('Salesforce users', () => {
  const connector = () =>
    createSalesforceConnector({
      instanceUrl: sf.url,
      loginUrl: sf.url,
      accessToken: sf.accessToken,
      clientId: sf.clientId,
      clientSecret: sf.clientSecret,
      apiVersion: '62.0',
      orgId: sf.orgId,
    });

  it("lists active users with email and name, and reads each Account's OwnerId", async () => {
    const ann = sf.store.create('User', {
      Username: 'ann@sf.example',
      Email: 'ann@sf.example',
      FirstName: 'Ann',
      LastName: 'Lee',
    });
    const old = sf.store.create('User', {
      Username: 'old@sf.example',
      Email: 'old@sf.example',
      LastName: 'Old',
    });
    const account = sf.store.create('Account', { Name: 'Owned by Ann', OwnerId: ann.id });
    sf.store.update('User', old.id, { IsActive: false });
    const c = connector();
    const owners = await c.listOwners();
    expect(owners).toContainEqual({ id: ann.id, email: 'ann@sf.example', name: 'Ann Lee', active: true });
    expect(owners.some((o) => o.id === old.id)).toBe(false);
    // The integration user is a User of the org too (and the default owner of what it creates).
    expect(owners.some((o) => o.id === sf.store.userId)).toBe(true);
    expect((await c.getAccount(account.id, [])).ownerId).toBe(ann.id);
    expect((await c.getAccounts([account.id], []))[0]?.ownerId).toBe(ann.id);
  });

  it('refuses a deactivated user or an id of no user as an owner, and never deletes a user', () => {
    const gone = sf.store.create('User', {
      Username: 'gone@sf.example',
      Email: 'gone@sf.example',
      LastName: 'Gone',
    });
    sf.store.update('User', gone.id, { IsActive: false });
    expect(() => sf.store.create('Account', { Name: 'X', OwnerId: gone.id })).toThrow(/inactive user/);
    expect(() => sf.store.create('Account', { Name: 'Y', OwnerId: `005${'0'.repeat(12)}` })).toThrow(
      /invalid cross reference id/,
    );
    expect(() => sf.store.delete('User', gone.id)).toThrow();
  });
});
