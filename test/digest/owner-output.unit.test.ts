// What a rep and an operator read from the per-owner digest: the subject and the text name the same
// days, two accounts of one name are told apart by their states, and the `digest` command names each
// rep it could not reach for good (and exits 1 for them).
import { describe, expect, it } from 'vitest';
import { unreachedLines } from '../../src/cli/digest.ts';
import { emptyResult } from '../../src/digest/deps.ts';
import { type OwnedAccount, shownName } from '../../src/digest/owner-accounts.ts';
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
