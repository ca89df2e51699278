// The HubSpot user a signed card request names: its email when it looks like one, else its numeric id,
// else nobody (the decision is then recorded under the portal alone).
import { describe, expect, it } from 'vitest';
import { hubspotCardUser } from '../../connectors/hubspot/card-user.ts';

const user = (query: string) => hubspotCardUser(new URLSearchParams(query));

describe('hubspotCardUser', () => {
  it('takes userEmail, else "user <userId>"', () => {
    expect(user('portalId=1&userId=7&userEmail=jane.doe%40example.co.uk')).toBe('jane.doe@example.co.uk');
    expect(user('portalId=1&userId=7')).toBe('user 7');
    expect(user('portalId=1')).toBeUndefined();
  });

  it.each([
    ['markup', '<b>@example.com'],
    ['a line break', 'jane@example.com\nX-Evil: 1'],
    ['no domain', 'jane@'],
    ['too long', `${'j'.repeat(60)}@${'e'.repeat(60)}.com`],
  ])('ignores an email with %s and falls back to the id', (_, email) => {
    expect(user(`userId=7&userEmail=${encodeURIComponent(email)}`)).toBe('user 7');
  });

  it('ignores a userId that is not a number', () => {
    expect(user('userId=7%20OR%201')).toBeUndefined();
    expect(user(`userId=${'9'.repeat(19)}`)).toBeUndefined();
  });
});
