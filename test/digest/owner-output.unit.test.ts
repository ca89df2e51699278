// What a rep and an operator read from the per-owner digest: the subject and the text name the same
// days, two accounts of one name are told apart by their states, and the `digest` command names each
// rep it could not reach for good (and exits 1 for them); the connection's own user (Salesforce: a token
// response or UserInfo; HubSpot: the OAuth token's user) is no rep.
import { describe, expect, it } from 'vitest';
import type { HubSpotCalls } from '../../connectors/hubspot/client.ts';
import { ownUserOf as hubspotOwnUser, isOwnUser } from '../../connectors/hubspot/own-user.ts';
import { createMemoryConnector } from '../../connectors/memory/connector.ts';
import { memoryCrm } from '../../connectors/memory/store.ts';
import type { SalesforceCalls } from '../../connectors/salesforce/client.ts';
import { ownUserOf as salesforceOwnUser } from '../../connectors/salesforce/own-user.ts';
import { listOwners } from '../../connectors/salesforce/owners.ts';
import { userOfIdentity } from '../../connectors/salesforce/session.ts';
import { unreachedLines } from '../../src/cli/digest.ts';
import { emptyResult } from '../../src/digest/deps.ts';
import { type OwnedAccount, ownersOfTenant, shownName } from '../../src/digest/owner-accounts.ts';
import { ownerSubject, ownerText } from '../../src/digest/owner-render.ts';
import { windowLabel } from '../../src/digest/period.ts';

describe('the per-owner digest names one period', () => {
  it('says the same days in the subject and the text, in the schedule’s time zone', () => {
    const since = new Date('2026-11-01T08:00:00Z');
    const until = new Date('2026-11-30T08:00:00Z');
    const window = windowLabel(since, until, 'UTC');
    expect(window).toBe('2026-11-01 to 2026-11-30');
    const sections = [{ accountName: 'City of Austin', total: 2, lines: [] }];
    const subject = ownerSubject(window, sections);
    const text = ownerText({ name: 'Ann', sections, window });
    expect(subject).toBe('Buyer intel — 2026-11-01 to 2026-11-30: 2 new signals on 1 of your accounts');
    expect(text).toContain('on the accounts you own, 2026-11-01 to 2026-11-30, hottest first:');
    // 03:00 UTC on the 30th is still the 29th in Chicago: both dates move with the zone.
    expect(
      windowLabel(new Date('2026-11-23T03:00:00Z'), new Date('2026-11-30T03:00:00Z'), 'America/Chicago'),
    ).toBe('2026-11-22 to 2026-11-29');
    expect(windowLabel(new Date('2026-11-30T01:00:00Z'), new Date('2026-11-30T08:00:00Z'), 'UTC')).toBe(
      '2026-11-30',
    );
  });
});

describe('accounts of the same name', () => {
  const account = (accountId: string, name: string | null, state: string | null): OwnedAccount => ({
    accountId,
    name,
    state,
    buyerId: 'b',
  });

  it('are listed with their states, and with their ids where even the state is the same', () => {
    const austinTx = account('1', 'City of Austin', 'TX');
    const austinMn = account('2', 'City of Austin', 'MN');
    const dallas = account('3', 'City of Dallas', 'TX');
    const all = [austinTx, austinMn, dallas];
    expect(shownName(austinTx, all)).toBe('City of Austin (TX)');
    expect(shownName(austinMn, all)).toBe('City of Austin (MN)');
    expect(shownName(dallas, all)).toBe('City of Dallas');
    const twins = [
      account('7', 'Springfield', 'IL'),
      account('8', 'Springfield', 'IL'),
      account('9', 'springfield', null),
    ];
    expect(twins.map((a) => shownName(a, twins))).toEqual([
      'Springfield (IL, 7)',
      'Springfield (IL, 8)',
      'springfield (state unknown)',
    ]);
    // An account without a name is shown by its id, as before.
    expect(shownName(account('5', null, 'TX'), [account('5', null, 'TX')])).toBe('5');
  });
});

describe('digest --now on reps it could not reach', () => {
  it('names each rep and what to fix, for the per-owner digest only', () => {
    const result = emptyResult('per-owner', 'week-2026-11-30', new Date('2026-11-30T08:00:00Z'));
    result.failures.push(
      {
        account: 'hubspot:123:owner 77',
        reason:
          'Slack refused (users_not_found): no Slack user has the email bob@rep.example; add them to the workspace under that email, or correct their email in the CRM',
        permanent: true,
      },
      { account: 'hubspot:123:owner 78', reason: 'Slack rate limited (retry after 3 s)', permanent: false },
    );
    expect(unreachedLines(result)).toEqual([
      'digest per-owner: hubspot:123: rep 77 was not reached: Slack refused (users_not_found): no Slack user has the email bob@rep.example; add them to the workspace under that email, or correct their email in the CRM',
    ]);
    expect(unreachedLines({ ...result, kind: 'per-account' })).toEqual([]);
    expect(unreachedLines(emptyResult('per-owner', 'p', new Date()))).toEqual([]);
  });
});

describe('the integration user', () => {
  it('gets no digest: the accounts it owns reach nobody', async () => {
    const store = memoryCrm(`owners-${Date.now()}`);
    store.owners.push(
      { id: 'u-ann', email: 'ann@rep.example', name: 'Ann', active: true },
      {
        id: 'u-sync',
        email: 'integration@org.example',
        name: 'Integration',
        active: true,
        integration: true,
      },
    );
    const ann = store.createAccount({ name: 'City of Austin', state: 'TX' });
    const synced = store.createAccount({ name: 'City of Dallas', state: 'TX' });
    const annAccount = store.accounts.get(ann);
    const syncedAccount = store.accounts.get(synced);
    if (annAccount) annAccount.ownerId = 'u-ann';
    if (syncedAccount) syncedAccount.ownerId = 'u-sync';
    const tenant = {
      crm: 'memory-crm',
      tenant: store.workspace,
      buyers: new Map([
        [ann, 'b1'],
        [synced, 'b2'],
      ]),
    };
    const groups = await ownersOfTenant(createMemoryConnector(store), tenant);
    expect(groups.map((g) => g.id)).toEqual(['u-ann']);
    expect(groups[0]?.accounts.map((a) => a.name)).toEqual(['City of Austin']);
  });

  it('is the Salesforce session’s own user, as a token response or UserInfo names it', async () => {
    expect(userOfIdentity('https://login.salesforce.com/id/00D000000000001EAA/005000000000001AAA')).toBe(
      '005000000000001AAA',
    );
    expect(userOfIdentity('')).toBeUndefined();
    const rows = [
      { Id: '005000000000001AAA', Name: 'Integration', Email: 'integration@org.example', IsActive: true },
      { Id: '005000000000002AAA', Name: 'Ann Archer', Email: 'ann@rep.example', IsActive: true },
    ];
    const calls = (own: string | undefined) =>
      ({
        queryAll: async (_op: string, _soql: string, onRow: (row: Record<string, unknown>) => void) => {
          for (const row of rows) onRow(row);
        },
        ownUserId: () => own,
      }) as unknown as SalesforceCalls;
    // 15 or 18 characters: the same user.
    const owners = await listOwners(calls(undefined), async () => '005000000000001');
    expect(owners.map((o) => [o.name, o.integration === true])).toEqual([
      ['Integration', true],
      ['Ann Archer', false],
    ]);
    // While neither a token response nor UserInfo named the user, nobody is taken for it.
    expect((await listOwners(calls(undefined), async () => undefined)).some((o) => o.integration)).toBe(
      false,
    );
  });

  it('asks Salesforce’s UserInfo once a connection, and not at all when a token response named the user', async () => {
    let named: string | undefined;
    const asked: string[] = [];
    const calls = {
      ownUserId: () => named,
      call: async (op: string, send: () => Promise<unknown>) => {
        asked.push(op);
        return send();
      },
      conn: { request: async () => ({ user_id: '005000000000009AAA', sub: 'https://x/id/00D/005' }) },
    } as unknown as SalesforceCalls;
    const own = salesforceOwnUser(calls);
    expect([await own(), await own()]).toEqual(['005000000000009AAA', '005000000000009AAA']);
    expect(asked).toEqual(['oauth2.userinfo']);
    named = '005000000000001AAA';
    const fresh = salesforceOwnUser(calls);
    expect(await fresh()).toBe('005000000000001AAA');
    expect(asked).toHaveLength(1);
  });

  it('is the HubSpot OAuth token’s user, asked once; a private-app token names no one and asks nothing', async () => {
    const asked: string[] = [];
    const calls = {
      call: async (op: string, send: () => Promise<{ data: unknown }>) => {
        asked.push(op);
        return { status: 200, data: (await send()).data };
      },
      tokenInfo: async () => ({ httpStatusCode: 200, data: { userId: 77, user: 'Sync@Example.com' } }),
    } as unknown as HubSpotCalls;
    const own = hubspotOwnUser(calls);
    expect(await own()).toEqual({ userId: 77, email: 'Sync@Example.com' });
    await own();
    expect(asked).toEqual(['oauth.accessTokensApi.get']);
    expect(isOwnUser({ userId: 77, email: 'other@example.com' }, await own())).toBe(true);
    expect(isOwnUser({ userId: 78, email: 'sync@example.com' }, await own())).toBe(false);
    // An owner without a user id (deactivated) is matched by email, in any case.
    expect(isOwnUser({ email: 'sync@example.com' }, await own())).toBe(true);
    const privateApp = hubspotOwnUser({ call: calls.call } as unknown as HubSpotCalls);
    expect(await privateApp()).toBeUndefined();
    expect(asked).toHaveLength(1);
  });
});
