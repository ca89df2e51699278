// The quick action's request signature: v3 vouches for the org and the Salesforce user, v2 for the
// user only and v1 (installs not yet upgraded) for nobody; an org or user the signature does not cover
// is never believed. (Which of them the API takes with several orgs served: test/webhooks/inbound-security.)
import { describe, expect, it } from 'vitest';
import {
  salesforceRequestSignature,
  salesforceRequestSignatureV2,
  salesforceRequestSignatureV3,
  verifySalesforceRequest,
} from '../../connectors/salesforce/request-signature.ts';

const SECRET = 'shared-secret';
const NOW = 1_700_000_000;
const TS = String(NOW);
const NONCE = '0123456789abcdef0123456789abcdef';
const USER = 'jane.doe@acme.example';
const BODY = '{"tenant":"00D000000000001","reason":"a vendor"}';

const ORG = '00D5g000004XyZaEAK';
const OTHER_ORG = '00DAm000000BcDeMAK';

const check = (headers: Record<string, string>, body = BODY, secrets = ['old-secret', SECRET]) =>
  verifySalesforceRequest({
    secrets,
    headers: { 'x-buyerintel-timestamp': TS, 'x-buyerintel-nonce': NONCE, ...headers },
    body,
    nowSeconds: NOW,
  });
const v2 = (user: string, body = BODY) => ({
  'x-buyerintel-user': user,
  'x-buyerintel-signature': salesforceRequestSignatureV2(SECRET, TS, NONCE, user, body),
});

const v3 = (org: string, user = USER, body = BODY) => ({
  'x-buyerintel-org': org,
  'x-buyerintel-user': user,
  'x-buyerintel-signature': salesforceRequestSignatureV3(SECRET, TS, NONCE, org, user, body),
});

describe('v3: the signature covers the org and the user', () => {
  it('returns the org and user it vouches for', () => {
    expect(check(v3(ORG))).toEqual({ ok: true, nonce: NONCE, user: USER, org: ORG });
    expect(check(v3(ORG, USER, ''), '')).toEqual({ ok: true, nonce: NONCE, user: USER, org: ORG });
  });

  it('refuses another org or user in the headers, or a changed body', () => {
    const signed = v3(ORG);
    expect(check({ ...signed, 'x-buyerintel-org': OTHER_ORG })).toEqual({
      ok: false,
      reason: 'signature does not match',
    });
    expect(check({ ...signed, 'x-buyerintel-user': 'mallory@acme.example' })).toMatchObject({ ok: false });
    expect(check(signed, BODY.replace('a vendor', 'a city'))).toMatchObject({ ok: false });
    const { 'x-buyerintel-org': _, ...withoutOrg } = signed;
    expect(check(withoutOrg)).toEqual({
      ok: false,
      reason: 'a v3 signature needs X-BuyerIntel-Org and X-BuyerIntel-User',
    });
  });

  it.each([
    ['its 15-character form', ORG.slice(0, 15)],
    ['a checksum that does not match', `${ORG.slice(0, 15)}AAA`],
    ['an id of another object', '001000000000001AAA'],
  ])('refuses an org that is %s', (_, org) => {
    expect(check(v3(org))).toEqual({
      ok: false,
      reason: 'X-BuyerIntel-Org must be the 18-character org id (00D…)',
    });
  });

  it('refuses an org beside a v2 or v1 signature, which does not cover it', () => {
    const reason = 'X-BuyerIntel-Org needs a v3 signature';
    expect(check({ ...v2(USER), 'x-buyerintel-org': ORG })).toEqual({ ok: false, reason });
    const v1 = salesforceRequestSignature(SECRET, TS, NONCE, BODY);
    expect(check({ 'x-buyerintel-signature': v1, 'x-buyerintel-org': ORG })).toEqual({ ok: false, reason });
  });
});

describe('v2: the signature covers the user', () => {
  it('returns the user it vouches for, with any of the configured secrets', () => {
    expect(check(v2(USER))).toEqual({ ok: true, nonce: NONCE, user: USER });
    expect(check(v2(USER, ''), '')).toEqual({ ok: true, nonce: NONCE, user: USER });
  });

  it('refuses another user in the header, a missing one, or a changed body', () => {
    const signed = v2(USER);
    expect(check({ ...signed, 'x-buyerintel-user': 'mallory@acme.example' })).toEqual({
      ok: false,
      reason: 'signature does not match',
    });
    const { 'x-buyerintel-user': _, ...withoutUser } = signed;
    expect(check(withoutUser)).toEqual({ ok: false, reason: 'a v2 signature needs X-BuyerIntel-User' });
    expect(check(signed, BODY.replace('a vendor', 'a city'))).toMatchObject({ ok: false });
    expect(check(signed, BODY, ['not-the-secret'])).toMatchObject({ ok: false });
  });

  it('refuses a user moved into the body or the body into the user (the same signed string)', () => {
    // "ts.nonce.jane.doe@acme.example.{…}" also splits as user "jane" and body "doe@acme.example.{…}".
    const signed = v2(USER);
    const shifted = { ...signed, 'x-buyerintel-user': 'jane' };
    expect(check(shifted, `doe@acme.example.${BODY}`)).toEqual({
      ok: false,
      reason: 'a v2-signed body must be empty or a JSON object',
    });
    // And the other way: "ts.nonce.jane.{"reason":"Acme Inc. is a vendor"}" as user `jane.{"reason":"Acme Inc`.
    const body = '{"reason":"Acme Inc. is a vendor"}';
    const longer = { ...v2('jane', body), 'x-buyerintel-user': 'jane.{"reason":"Acme Inc' };
    expect(check(longer, ' is a vendor"}')).toMatchObject({ ok: false });
    expect(check(v2('jane', body), body)).toMatchObject({ ok: true, user: 'jane' });
  });

  it.each([
    ['empty', ''],
    ['with a space', 'jane doe@acme.example'],
    ['with "{" (a merge formula in a Named Credential header)', '{!$User.Email}'],
    ['not ASCII', 'jané@acme.example'],
    ['with a control character', 'jane\u0007@acme.example'],
    ['longer than 120 characters', `${'j'.repeat(110)}@acme.example`],
  ])('refuses a user %s, naming the header', (_, user) => {
    expect(check(v2(user))).toEqual({
      ok: false,
      reason: 'X-BuyerIntel-User must be 1-120 visible ASCII characters, without spaces or "{"',
    });
  });

  it('accepts a 120-character user', () => {
    const user = `${'j'.repeat(107)}@acme.example`;
    expect(user).toHaveLength(120);
    expect(check(v2(user))).toMatchObject({ ok: true, user });
  });
});

describe('v1: installs not yet upgraded', () => {
  it('is still accepted, naming no user', () => {
    const signature = salesforceRequestSignature(SECRET, TS, NONCE, BODY);
    expect(check({ 'x-buyerintel-signature': signature })).toEqual({ ok: true, nonce: NONCE });
  });

  it('refuses a user beside a v1 signature, which does not cover it', () => {
    const signature = salesforceRequestSignature(SECRET, TS, NONCE, BODY);
    expect(check({ 'x-buyerintel-signature': signature, 'x-buyerintel-user': USER })).toEqual({
      ok: false,
      reason: 'X-BuyerIntel-User needs a v2 signature',
    });
  });

  it('refuses an unknown signature version', () => {
    const hex = salesforceRequestSignature(SECRET, TS, NONCE, BODY).slice(3);
    expect(check({ 'x-buyerintel-signature': `v9=${hex}` })).toEqual({
      ok: false,
      reason: 'X-BuyerIntel-Signature must start with v3=, v2= or v1=',
    });
  });
});
